import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { concreteFields } from './concrete-fields.js';
import { needsReconcile } from './managed-reconciler.js';

const obj = (spec: unknown, metadata: KObject['metadata'] = {}): KObject => ({
  apiVersion: 'g/v1',
  kind: 'K',
  metadata: { name: 'db', namespace: 'ns', ...metadata },
  spec,
});

describe('concreteFields', () => {
  for (const c of [
    {
      reason: "defaults: Full, the kind's sharing, <name>-connection",
      spec: {},
      kindSharing: 'Exclusive' as const,
      want: { managementPolicy: 'Full', rebindPolicy: 'Retain', sharing: 'Exclusive', connectionSecretName: 'db-connection' },
    },
    {
      reason: 'explicit fields win',
      spec: {
        managementPolicy: 'ObserveOnly',
        rebindPolicy: 'Delete',
        sharing: { mode: 'Shared' },
        providerRef: { name: 'aws' },
        writeConnectionSecretToRef: { name: 'raw' },
      },
      kindSharing: 'Exclusive' as const,
      want: { managementPolicy: 'ObserveOnly', rebindPolicy: 'Delete', sharing: 'Shared', providerName: 'aws', connectionSecretName: 'raw' },
    },
    {
      reason: 'malformed fields fall back (an unknown rebindPolicy reads as Retain: it never destroys data)',
      spec: { managementPolicy: 7, rebindPolicy: 'Destroy', sharing: 'Shared', providerRef: { name: '' }, writeConnectionSecretToRef: {} },
      kindSharing: 'Shared' as const,
      want: { managementPolicy: 'Full', rebindPolicy: 'Retain', sharing: 'Shared', connectionSecretName: 'db-connection' },
    },
    {
      reason: 'Recycle is read',
      spec: { rebindPolicy: 'Recycle' },
      kindSharing: 'Exclusive' as const,
      want: { managementPolicy: 'Full', rebindPolicy: 'Recycle', sharing: 'Exclusive', connectionSecretName: 'db-connection' },
    },
    {
      reason: 'no spec at all',
      spec: undefined,
      kindSharing: 'Exclusive' as const,
      want: { managementPolicy: 'Full', rebindPolicy: 'Retain', sharing: 'Exclusive', connectionSecretName: 'db-connection' },
    },
  ]) {
    test(c.reason, () => assert.deepEqual(concreteFields(obj(c.spec), c.kindSharing), c.want));
  }
});

describe('needsReconcile', () => {
  const base = obj({}, { resourceVersion: '1', generation: 1, annotations: { a: '1' }, finalizers: ['f'] });
  const changed = (metadata: Partial<KObject['metadata']>, status?: unknown): KObject => ({
    ...base,
    metadata: { ...base.metadata, resourceVersion: '2', ...metadata },
    ...(status ? { status } : {}),
  });
  for (const c of [
    { reason: 'a resync of the same version', next: base, want: false },
    { reason: "a status-only write (ours or the binder's)", next: changed({}, { phase: 'Bound' }), want: false },
    { reason: 'a new spec', next: changed({ generation: 2 }), want: true },
    { reason: 'a new annotation (e.g. poll interval, crash guard cleared)', next: changed({ annotations: { a: '2' } }), want: true },
    { reason: 'a finalizer removed by someone', next: changed({ finalizers: [] }), want: true },
    { reason: 'deletion starting', next: changed({ deletionTimestamp: '2026-01-01T00:00:00Z' }), want: true },
  ]) {
    test(c.reason, () => assert.equal(needsReconcile(base, c.next), c.want));
  }
});
