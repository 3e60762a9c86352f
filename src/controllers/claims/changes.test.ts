import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { claimChangeMatters, resourceChangeMatters } from './changes.js';

const ready = (status: 'True' | 'False', extra: Record<string, unknown> = {}) => ({
  conditions: [
    {
      type: 'Ready',
      status,
      reason: status === 'True' ? 'Available' : 'Creating',
      message: '',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      observedGeneration: 1,
    },
  ],
  ...extra,
});

function obj(rv: string, patch: Partial<KObject> & { metadata?: Partial<KObject['metadata']> } = {}): KObject {
  return {
    apiVersion: 'x/v1',
    kind: 'X',
    ...patch,
    metadata: { namespace: 'ns', name: 'n', uid: 'u', generation: 1, resourceVersion: rv, ...(patch.metadata ?? {}) },
  };
}

describe('claimChangeMatters', () => {
  const base = obj('1', { spec: { a: 1 }, status: { phase: 'Pending' } });
  for (const c of [
    { reason: "a status-only write (the controller's own) needs no reconcile", next: obj('2', { spec: { a: 1 }, status: { phase: 'Bound' } }), want: false },
    { reason: 'a resync (same object) always reconciles', next: base, want: true },
    { reason: 'a spec change (new generation) reconciles', next: obj('2', { metadata: { generation: 2 }, spec: { a: 2 } }), want: true },
    { reason: 'deletion reconciles', next: obj('2', { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } }), want: true },
    { reason: 'a finalizer change reconciles', next: obj('2', { metadata: { finalizers: ['x'] } }), want: true },
    { reason: 'a label change reconciles', next: obj('2', { metadata: { labels: { a: 'b' } } }), want: true },
    { reason: 'an annotation change reconciles', next: obj('2', { metadata: { annotations: { a: 'b' } } }), want: true },
  ]) {
    test(c.reason, () => assert.equal(claimChangeMatters(base, c.next), c.want));
  }
});

describe('resourceChangeMatters', () => {
  const base = obj('1', { spec: { claimRef: { name: 'c' } }, status: ready('True', { phase: 'Available', observedGeneration: 1 }) });
  for (const c of [
    {
      reason: 'the reconciler restating phase and observedGeneration wakes nobody',
      next: obj('2', {
        spec: { claimRef: { name: 'c' } },
        status: {
          ...ready('True', { phase: 'Bound', observedGeneration: 1 }),
          conditions: [{ ...ready('True').conditions[0], observedGeneration: 2, lastTransitionTime: '2026-01-02T00:00:00Z' }],
        },
      }),
      want: false,
    },
    { reason: 'readiness lost wakes the bound claims', next: obj('2', { spec: { claimRef: { name: 'c' } }, status: ready('False') }), want: true },
    {
      reason: "a condition's reason or message changing (drift reported) wakes them",
      next: obj('2', {
        spec: { claimRef: { name: 'c' } },
        status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available', message: 'user recreated' }] },
      }),
      want: true,
    },
    { reason: 'a spec change (claimRef, capacity) wakes them', next: obj('2', { metadata: { generation: 2 }, spec: { claimRef: null } }), want: true },
    {
      reason: 'new bindings of a shared resource wake them',
      next: obj('2', {
        spec: { claimRef: { name: 'c' } },
        status: ready('True', { phase: 'Available', observedGeneration: 1, bindings: [{ claimRef: { uid: 'x' } }] }),
      }),
      want: true,
    },
    {
      reason: 'observed state changing wakes them',
      next: obj('2', {
        spec: { claimRef: { name: 'c' } },
        status: ready('True', { phase: 'Available', observedGeneration: 1, atProvider: { version: '16' } }),
      }),
      want: true,
    },
    {
      reason: 'deletion wakes them',
      next: obj('2', {
        metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' },
        spec: { claimRef: { name: 'c' } },
        status: ready('True', { phase: 'Available', observedGeneration: 1 }),
      }),
      want: true,
    },
    { reason: 'a resync always does', next: base, want: true },
  ]) {
    test(c.reason, () => assert.equal(resourceChangeMatters(base, c.next), c.want));
  }

  const unbound = obj('1', { spec: { size: 5 }, status: ready('True', { phase: 'Available' }) });
  for (const c of [
    {
      reason: "a claimRef put on a free resource (the binder's own write) wakes nobody",
      next: obj('2', { metadata: { generation: 2 }, spec: { size: 5, claimRef: { name: 'c', uid: 'u1' } }, status: ready('True', { phase: 'Available' }) }),
      want: false,
    },
    {
      reason: 'a claimRef put on together with another spec change wakes them',
      next: obj('2', { metadata: { generation: 2 }, spec: { size: 6, claimRef: { name: 'c', uid: 'u1' } }, status: ready('True', { phase: 'Available' }) }),
      want: true,
    },
    {
      reason: "a claimRef replaced by another claim's wakes them",
      from: obj('1', { spec: { size: 5, claimRef: { name: 'c', uid: 'u1' } } }),
      next: obj('2', { metadata: { generation: 2 }, spec: { size: 5, claimRef: { name: 'd', uid: 'u2' } } }),
      want: true,
    },
  ]) {
    test(c.reason, () => assert.equal(resourceChangeMatters(c.from ?? unbound, c.next), c.want));
  }
});
