import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '../../machinery/object.js';
import { setCondition } from './conditions.js';
import { nextPhase, nextStatus } from './status.js';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const t1 = new Date('2026-01-01T00:05:00.500Z');

describe('setCondition', () => {
  const ready = (status: Condition['status'], reason = 'R'): Condition => ({
    type: 'Ready',
    status,
    reason,
    message: 'm',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  });
  for (const c of [
    {
      reason: 'same status keeps the transition time',
      old: [ready('True')],
      update: { type: 'Ready', status: 'True' as const, reason: 'Other', message: 'new' },
      wantTime: '2026-01-01T00:00:00Z',
    },
    {
      reason: 'a new status moves it to now, in whole seconds',
      old: [ready('True')],
      update: { type: 'Ready', status: 'False' as const, reason: 'Down', message: 'x' },
      wantTime: '2026-01-01T00:05:00Z',
    },
    {
      reason: 'a new type is appended with now',
      old: [ready('True')],
      update: { type: 'Synced', status: 'True' as const, reason: 'Ok', message: '' },
      wantTime: '2026-01-01T00:05:00Z',
    },
  ]) {
    test(c.reason, () => {
      const before = structuredClone(c.old);
      const got = setCondition(c.old, c.update, t1);
      const set = got.find((x) => x.type === c.update.type)!;
      assert.equal(set.lastTransitionTime, c.wantTime);
      assert.equal(set.reason, c.update.reason);
      assert.equal(set.message, c.update.message);
      assert.equal(got.filter((x) => x.type === c.update.type).length, 1, 'one entry per type');
      assert.deepEqual(c.old, before, 'the input is not modified');
    });
  }
});

describe('nextPhase', () => {
  for (const c of [
    { reason: 'a new resource is Pending', current: undefined, wanted: undefined, want: 'Pending' },
    { reason: 'ready: Pending becomes Available', current: 'Pending', wanted: 'Available' as const, want: 'Available' },
    { reason: 'a recovered Failed resource becomes Available', current: 'Failed', wanted: 'Available' as const, want: 'Available' },
    { reason: 'Available stays while nothing is wanted', current: 'Available', wanted: undefined, want: 'Available' },
    { reason: 'Pending can fail', current: 'Pending', wanted: 'Failed' as const, want: 'Failed' },
    { reason: "the binder's Bound is never overwritten", current: 'Bound', wanted: 'Available' as const, want: 'Bound' },
    { reason: 'nor is Released, even by Failed', current: 'Released', wanted: 'Failed' as const, want: 'Released' },
    { reason: 'garbage becomes Pending', current: 42, wanted: undefined, want: 'Pending' },
    { reason: 'an exclusive resource whose claimRef names a claim is Bound', current: 'Available', wanted: 'Available' as const, claimed: true, want: 'Bound' },
    { reason: 'even before it is ready (provisioned for its claim)', current: undefined, wanted: undefined, claimed: true, want: 'Bound' },
    {
      reason: 'a claimRef does not undo Released (Retain keeps it until an admin acts)',
      current: 'Released',
      wanted: 'Available' as const,
      claimed: true,
      want: 'Released',
    },
  ]) {
    test(c.reason, () => assert.equal(nextPhase(c.current, c.wanted, 'claimed' in c ? c.claimed : false), c.want));
  }
});

describe('nextStatus of a claimed exclusive resource', () => {
  test('the status write after the binder set spec.claimRef makes it Bound and names the claim', () => {
    const got = nextStatus({ phase: 'Available', observedGeneration: 1 }, { ready: { status: 'True', reason: 'Available', message: '' } }, 2, t0, 'team-a/db');
    assert.equal(got.phase, 'Bound');
    assert.equal(got.claim, 'team-a/db');
    assert.equal(got.observedGeneration, 2);
  });
  test('a resource already Bound keeps the claim summary the binder wrote', () => {
    const got = nextStatus({ phase: 'Bound', claim: 'team-a/db' }, {}, 3, t0, 'team-a/db');
    assert.equal(got.claim, 'team-a/db');
  });
});

describe('nextStatus', () => {
  test("keeps the binder's fields and sets conditions, atProvider and observedGeneration", () => {
    const current = { phase: 'Bound', bindings: [{ claimRef: { apiVersion: 'v', kind: 'K', name: 'c' } }], allocatable: { storage: '5Gi' }, claim: 'ns/c' };
    const got = nextStatus(
      current,
      {
        ready: { status: 'True', reason: 'Available', message: 'ok' },
        synced: { status: 'True', reason: 'ReconcileSuccess', message: '' },
        atProvider: { port: 5432 },
        phase: 'Available',
      },
      7,
      t0,
    );
    assert.equal(got.phase, 'Bound');
    assert.deepEqual(got.bindings, current.bindings);
    assert.deepEqual(got.allocatable, { storage: '5Gi' });
    assert.equal(got.claim, 'ns/c');
    assert.deepEqual(got.atProvider, { port: 5432 });
    assert.equal(got.observedGeneration, 7);
    assert.deepEqual(
      (got.conditions as Condition[]).map((c) => [c.type, c.status, c.observedGeneration]),
      [
        ['Ready', 'True', 7],
        ['Synced', 'True', 7],
      ],
    );
  });
  test('a change without atProvider keeps the last observed one; the same change twice is a fixed point', () => {
    const first = nextStatus({}, { synced: { status: 'False', reason: 'CannotObserve', message: 'boom' }, atProvider: { a: 1 } }, 1, t0);
    const second = nextStatus(first, { synced: { status: 'False', reason: 'CannotObserve', message: 'boom' } }, 1, t1);
    assert.deepEqual(second, first);
  });
  test('long messages are cut to what the schema accepts', () => {
    const got = nextStatus({}, { synced: { status: 'False', reason: 'X', message: 'x'.repeat(40_000) } }, 1, t0);
    assert.equal((got.conditions as Condition[])[0].message.length, 32768);
  });
});
