import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { maskCredentials, notReadyReason } from './resource-conditions.js';

const resource = (conditions: unknown[]): KObject => ({
  apiVersion: 'x/v1',
  kind: 'MemoryDatabase',
  metadata: { namespace: 'conductor-system', name: 'r' },
  status: { conditions },
});
const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z' });

describe('notReadyReason', () => {
  for (const c of [
    {
      reason: 'a failing Synced condition is carried: its reason, and its message',
      conds: [cond('Synced', 'False', 'CannotConnect', 'cannot read Provider conductor-system/nope named by spec.providerRef: providers "nope" not found')],
      want: {
        reason: 'CannotConnect',
        message:
          'MemoryDatabase conductor-system/r is not ready: CannotConnect: cannot read Provider conductor-system/nope named by spec.providerRef: providers "nope" not found',
        failing: true,
      },
    },
    {
      reason: 'progress (Ready=False Creating) is waiting, with the reason',
      conds: [cond('Ready', 'False', 'Creating', 'the external resource was created; observing it'), cond('Synced', 'True', 'ReconcileSuccess', '')],
      want: {
        reason: 'Waiting',
        message: 'waiting for MemoryDatabase conductor-system/r to become ready (Creating: the external resource was created; observing it)',
        failing: false,
      },
    },
    {
      reason: 'no conditions yet',
      conds: [],
      want: { reason: 'Waiting', message: 'waiting for MemoryDatabase conductor-system/r to become ready', failing: false },
    },
    {
      reason: 'a reason that is not CamelCase is not carried as one',
      conds: [cond('Synced', 'False', 'bad reason!', 'boom')],
      want: { reason: 'ResourceNotReady', message: 'MemoryDatabase conductor-system/r is not ready: ResourceNotReady: boom', failing: true },
    },
  ]) {
    test(c.reason, () => assert.deepEqual(notReadyReason(resource(c.conds)), c.want));
  }

  test('credentials in a carried message are masked', () => {
    const r = notReadyReason(
      resource([cond('Synced', 'False', 'CannotConnect', "cannot connect to postgresql://admin:hunter2@db:5432/x: password=hunter2 PASSWORD 'hunter2'")]),
    );
    assert.doesNotMatch(r.message, /hunter2/);
    assert.match(r.message, /postgresql:\/\/admin:\*\*\*@db:5432/);
  });
});

describe('maskCredentials', () => {
  for (const [input, want] of [
    ['redis://default:s3cret@127.0.0.1:6379', 'redis://default:***@127.0.0.1:6379'],
    ['token=abc, next', 'token=***, next'],
    ['secretAccessKey: xyz', 'secretAccessKey: ***'],
    ['nothing secret here', 'nothing secret here'],
  ] as const) {
    test(input, () => assert.equal(maskCredentials(input), want));
  }
});
