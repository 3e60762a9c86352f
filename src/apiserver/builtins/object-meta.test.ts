import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject, ObjectMeta } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import { builtinResourceTypes } from './builtins.js';
import { objectMetaOptionsFor, validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from './object-meta.js';

function obj(metadata: ObjectMeta): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata };
}

/** The fields and reasons of causes, which is what the cases compare. */
function summary(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field ?? ''} ${c.reason}`);
}

const namespaced: ObjectMetaOptions = { namespaced: true, nameFormat: 'subdomain' };
const cluster: ObjectMetaOptions = { namespaced: false, nameFormat: 'subdomain' };

describe('validateObjectMeta', () => {
  const cases: { reason: string; meta: ObjectMeta; opts: ObjectMetaOptions; want: string[] }[] = [
    { reason: 'a plain namespaced object is valid', meta: { name: 'a.b-c', namespace: 'ns' }, opts: namespaced, want: [] },
    { reason: 'a name is required', meta: { namespace: 'ns' }, opts: namespaced, want: ['metadata.name FieldValueRequired'] },
    { reason: 'a subdomain name may not have capitals', meta: { name: 'Bad', namespace: 'ns' }, opts: namespaced, want: ['metadata.name FieldValueInvalid'] },
    {
      reason: 'a label name may not have dots',
      meta: { name: 'a.b' },
      opts: { namespaced: false, nameFormat: 'label' },
      want: ['metadata.name FieldValueInvalid'],
    },
    { reason: 'a path segment name may have capitals', meta: { name: 'Admin:Role' }, opts: { namespaced: false, nameFormat: 'path-segment' }, want: [] },
    {
      reason: 'a path segment name may not contain a slash',
      meta: { name: 'a/b' },
      opts: { namespaced: false, nameFormat: 'path-segment' },
      want: ['metadata.name FieldValueInvalid'],
    },
    { reason: 'a generateName may end with a dash', meta: { name: 'web-x1', generateName: 'web-', namespace: 'ns' }, opts: namespaced, want: [] },
    {
      reason: 'a generateName must still be a valid prefix',
      meta: { name: 'a', generateName: 'Web-', namespace: 'ns' },
      opts: namespaced,
      want: ['metadata.generateName FieldValueInvalid'],
    },
    { reason: 'namespaced objects need a namespace', meta: { name: 'a' }, opts: namespaced, want: ['metadata.namespace FieldValueRequired'] },
    { reason: 'the namespace must be a DNS label', meta: { name: 'a', namespace: 'a.b' }, opts: namespaced, want: ['metadata.namespace FieldValueInvalid'] },
    {
      reason: 'cluster-scoped objects may not have a namespace',
      meta: { name: 'a', namespace: 'ns' },
      opts: cluster,
      want: ['metadata.namespace FieldValueForbidden'],
    },
    {
      reason: 'label keys must be qualified names',
      meta: { name: 'a', labels: { 'bad key': 'v' } },
      opts: cluster,
      want: ['metadata.labels FieldValueInvalid'],
    },
    {
      reason: 'label values are limited to 63 characters',
      meta: { name: 'a', labels: { k: 'v'.repeat(64) } },
      opts: cluster,
      want: ['metadata.labels FieldValueInvalid'],
    },
    {
      reason: 'annotation keys must be qualified names',
      meta: { name: 'a', annotations: { '/x': 'v' } },
      opts: cluster,
      want: ['metadata.annotations FieldValueInvalid'],
    },
    {
      reason: 'annotations may hold at most 256 KiB',
      meta: { name: 'a', annotations: { k: 'v'.repeat(256 * 1024) } },
      opts: cluster,
      want: ['metadata.annotations FieldValueTooLong'],
    },
    {
      reason: 'finalizers must be qualified names',
      meta: { name: 'a', finalizers: ['ok.io/x', 'a/b/c'] },
      opts: cluster,
      want: ['metadata.finalizers[1] FieldValueInvalid'],
    },
    {
      reason: 'orphan and foregroundDeletion exclude each other',
      meta: { name: 'a', finalizers: ['orphan', 'foregroundDeletion'] },
      opts: cluster,
      want: ['metadata.finalizers FieldValueInvalid'],
    },
    {
      reason: 'core kinds accept only standard finalizers without a domain',
      meta: { name: 'a', finalizers: ['kubernetes', 'custom', 'example.com/x'] },
      opts: { ...cluster, standardFinalizersOnly: true },
      want: ['metadata.finalizers[1] FieldValueInvalid'],
    },
    { reason: 'other kinds accept any qualified finalizer', meta: { name: 'a', finalizers: ['custom'] }, opts: cluster, want: [] },
    {
      reason: 'owner references need apiVersion, kind, name and uid',
      meta: { name: 'a', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] },
      opts: cluster,
      want: [
        'metadata.ownerReferences[0].apiVersion FieldValueInvalid',
        'metadata.ownerReferences[0].kind FieldValueInvalid',
        'metadata.ownerReferences[0].name FieldValueInvalid',
        'metadata.ownerReferences[0].uid FieldValueInvalid',
      ],
    },
    {
      reason: 'at most one owner is the controller',
      meta: {
        name: 'a',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'A', name: 'x', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'y', uid: '2', controller: true },
        ],
      },
      opts: cluster,
      want: ['metadata.ownerReferences FieldValueInvalid'],
    },
    {
      reason: 'events cannot own objects',
      meta: { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' }] },
      opts: cluster,
      want: ['metadata.ownerReferences[0] FieldValueInvalid'],
    },
    { reason: 'generation may not be negative', meta: { name: 'a', generation: -1 }, opts: cluster, want: ['metadata.generation FieldValueInvalid'] },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(summary(validateObjectMeta(obj(c.meta), c.opts)), c.want));
  }

  test('messages read like Kubernetes field errors', () => {
    const [cause] = validateObjectMeta(obj({ name: 'Bad', namespace: 'ns' }), namespaced);
    assert.match(cause.message, /^Invalid value: "Bad": a lowercase RFC 1123 subdomain/);
    const [two] = validateObjectMeta(
      obj({
        name: 'a',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'A', name: 'x', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'y', uid: '2', controller: true },
        ],
      }),
      cluster,
    );
    assert.match(two.message, /Only one reference can have Controller set to true\. Found "true" in references for A\/x and B\/y$/);
  });
});

describe('validateObjectMetaUpdate', () => {
  const base: ObjectMeta = { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', generation: 2, finalizers: ['x.io/a'] };
  const cases: { reason: string; old?: Partial<ObjectMeta>; change: Partial<ObjectMeta>; want: string[] }[] = [
    { reason: 'labels may change', change: { labels: { a: 'b' } }, want: [] },
    { reason: 'the name is immutable', change: { name: 'b' }, want: ['metadata.name FieldValueInvalid'] },
    { reason: 'the namespace is immutable', change: { namespace: 'other' }, want: ['metadata.namespace FieldValueInvalid'] },
    { reason: 'the uid is immutable', change: { uid: 'u2' }, want: ['metadata.uid FieldValueInvalid'] },
    { reason: 'the creation time is immutable', change: { creationTimestamp: '2025-01-01T00:00:00Z' }, want: ['metadata.creationTimestamp FieldValueInvalid'] },
    {
      reason: 'the deletion time cannot be set by an update',
      change: { deletionTimestamp: '2025-01-01T00:00:00Z' },
      want: ['metadata.deletionTimestamp FieldValueInvalid'],
    },
    { reason: 'generation never goes down', change: { generation: 1 }, want: ['metadata.generation FieldValueInvalid'] },
    {
      reason: 'an object being deleted may drop finalizers',
      old: { deletionTimestamp: '2025-01-01T00:00:00Z' },
      change: { deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: [] },
      want: [],
    },
    {
      reason: 'an object being deleted takes no new finalizers',
      old: { deletionTimestamp: '2025-01-01T00:00:00Z' },
      change: { deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['x.io/a', 'x.io/b'] },
      want: ['metadata.finalizers FieldValueForbidden'],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const old = obj({ ...base, ...c.old });
      const next = obj({ ...base, ...c.change });
      assert.deepEqual(summary(validateObjectMetaUpdate(next, old)), c.want);
    });
  }
  test('the immutable message names the new value', () => {
    const [cause] = validateObjectMetaUpdate(obj({ ...base, name: 'b' }), obj(base));
    assert.equal(cause.message, 'Invalid value: "b": field is immutable');
  });
});

describe('objectMetaOptionsFor', () => {
  const byKind = new Map(builtinResourceTypes().map((rt) => [rt.kind, rt]));
  const cases = [
    { reason: 'namespace names are DNS labels', kind: 'Namespace', want: { namespaced: false, nameFormat: 'label', standardFinalizersOnly: true } },
    {
      reason: 'secrets use subdomains and core finalizer rules',
      kind: 'Secret',
      want: { namespaced: true, nameFormat: 'subdomain', standardFinalizersOnly: true },
    },
    { reason: 'leases follow the core rules', kind: 'Lease', want: { namespaced: true, nameFormat: 'subdomain', standardFinalizersOnly: true } },
    {
      reason: 'CRDs accept any qualified finalizer',
      kind: 'CustomResourceDefinition',
      want: { namespaced: false, nameFormat: 'subdomain', standardFinalizersOnly: false },
    },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(objectMetaOptionsFor(byKind.get(c.kind)!), c.want));

  test('RBAC kinds use path segment names', () => {
    const rt = { group: 'rbac.authorization.k8s.io', kind: 'Role', namespaced: true, source: { type: 'builtin' as const } };
    assert.equal(objectMetaOptionsFor(rt).nameFormat, 'path-segment');
  });
  test('custom resources use subdomain names', () => {
    const rt = { group: '', kind: 'Namespace', namespaced: false, source: { type: 'crd' as const, crdName: 'x', storage: true } };
    assert.equal(objectMetaOptionsFor(rt).nameFormat, 'subdomain');
  });
});
