import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import { leaseResourceType } from './lease.js';

const rt = leaseResourceType();

function lease(spec: Record<string, unknown>): KObject {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'ns' }, spec };
}

function summary(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field ?? ''} ${c.reason}`);
}

describe('Lease validation', () => {
  const cases: { reason: string; spec: Record<string, unknown>; want: string[] }[] = [
    {
      reason: 'a held lease is valid',
      spec: { holderIdentity: 'pod-1', leaseDurationSeconds: 15, leaseTransitions: 0, acquireTime: '2024-01-01T00:00:00.000000Z' },
      want: [],
    },
    { reason: 'an empty spec is valid', spec: {}, want: [] },
    { reason: 'the duration must be positive', spec: { leaseDurationSeconds: 0 }, want: ['spec.leaseDurationSeconds FieldValueInvalid'] },
    { reason: 'transitions may not be negative', spec: { leaseTransitions: -1 }, want: ['spec.leaseTransitions FieldValueInvalid'] },
    { reason: 'only the known strategy is supported', spec: { strategy: 'Newest' }, want: ['spec.strategy FieldValueNotSupported'] },
    { reason: 'a preferred holder needs a strategy', spec: { preferredHolder: 'b' }, want: ['spec.preferredHolder FieldValueForbidden'] },
    { reason: 'a preferred holder with a strategy is valid', spec: { preferredHolder: 'b', strategy: 'OldestEmulationVersion' }, want: [] },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(summary(rt.strategy.validate!(lease(c.spec), { operation: 'create', subresource: '' })), c.want));
  }
  test('the duration message states the bound', () => {
    const [cause] = rt.strategy.validate!(lease({ leaseDurationSeconds: -5 }), { operation: 'create', subresource: '' });
    assert.equal(cause.message, 'Invalid value: -5: must be greater than 0');
  });
});

describe('Lease type', () => {
  test('is served in coordination.k8s.io/v1, namespaced', () => {
    assert.equal(rt.group, 'coordination.k8s.io');
    assert.equal(rt.version, 'v1');
    assert.equal(rt.namespaced, true);
  });
  test('HOLDER shows the holder identity', () => {
    assert.equal(rt.printerColumns[0].name, 'Holder');
    assert.equal(rt.printerColumns[0].cell!(lease({ holderIdentity: 'pod-1' })), 'pod-1');
    assert.equal(rt.printerColumns[0].cell!(lease({})), '');
  });
});
