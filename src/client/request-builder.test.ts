import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { collectionPath, deleteOptionsBody, listQuery, objectPath, patchQuery, watchQuery, withQuery, writeQuery } from './request-builder.js';
import { builtinRefs, resourceRef } from './types.js';

const widgets = resourceRef('example.conductor.io/v1alpha1', 'Widget', 'widgets', true);
const clusterWidgets = resourceRef('example.conductor.io/v1alpha1', 'ClusterWidget', 'clusterwidgets', false);

describe('paths', () => {
  const cases: Array<{ reason: string; got: string; want: string }> = [
    { reason: 'core namespaced object', got: objectPath(builtinRefs.configmaps, 'ns', 'name'), want: '/api/v1/namespaces/ns/configmaps/name' },
    { reason: 'core collection in a namespace', got: collectionPath(builtinRefs.configmaps, 'ns'), want: '/api/v1/namespaces/ns/configmaps' },
    { reason: 'core collection across namespaces', got: collectionPath(builtinRefs.configmaps), want: '/api/v1/configmaps' },
    {
      reason: 'core cluster-scoped object ignores a namespace',
      got: objectPath(builtinRefs.namespaces, 'ignored', 'team-a'),
      want: '/api/v1/namespaces/team-a',
    },
    { reason: 'group namespaced object', got: objectPath(widgets, 'ns', 'w'), want: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets/w' },
    { reason: 'group cluster-scoped collection', got: collectionPath(clusterWidgets), want: '/apis/example.conductor.io/v1alpha1/clusterwidgets' },
    { reason: 'status subresource', got: objectPath(widgets, 'ns', 'w', 'status'), want: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets/w/status' },
    {
      reason: 'lease',
      got: objectPath(builtinRefs.leases, 'kube-system', 'conductor'),
      want: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/conductor',
    },
    { reason: 'names are percent-encoded', got: objectPath(builtinRefs.configmaps, 'ns', 'a b/c'), want: '/api/v1/namespaces/ns/configmaps/a%20b%2Fc' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(c.got, c.want));

  test('the last segment always decodes back to the name (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (name) => {
        const path = objectPath(widgets, 'ns', name);
        const last = path.slice(path.lastIndexOf('/') + 1);
        return decodeURIComponent(last) === name;
      }),
    );
  });
});

describe('queries', () => {
  const cases: Array<{ reason: string; got: URLSearchParams; want: string }> = [
    { reason: 'empty list options add nothing', got: listQuery({}), want: '' },
    {
      reason: 'every list option',
      got: listQuery({
        labelSelector: 'a=b,c',
        fieldSelector: 'metadata.name=x',
        limit: 500,
        continue: 'tok',
        resourceVersion: '10',
        resourceVersionMatch: 'NotOlderThan',
      }),
      want: 'labelSelector=a%3Db%2Cc&fieldSelector=metadata.name%3Dx&limit=500&continue=tok&resourceVersion=10&resourceVersionMatch=NotOlderThan',
    },
    { reason: 'limit 0 means no limit', got: listQuery({ limit: 0 }), want: '' },
    { reason: 'a bare watch', got: watchQuery({}), want: 'watch=true' },
    {
      reason: 'watch with bookmarks and timeout',
      got: watchQuery({ resourceVersion: '42', allowWatchBookmarks: true, timeoutSeconds: 300, labelSelector: 'app=x' }),
      want: 'watch=true&labelSelector=app%3Dx&resourceVersion=42&allowWatchBookmarks=true&timeoutSeconds=300',
    },
    {
      reason: 'sendInitialEvents needs resourceVersionMatch',
      got: watchQuery({ sendInitialEvents: true }),
      want: 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
    },
    {
      reason: 'write options',
      got: writeQuery({ fieldManager: 'binder', dryRun: true, fieldValidation: 'Strict' }),
      want: 'fieldManager=binder&dryRun=All&fieldValidation=Strict',
    },
    { reason: 'dryRun false adds nothing', got: writeQuery({ dryRun: false }), want: '' },
    { reason: 'apply with force', got: patchQuery({ fieldManager: 'm', force: true }), want: 'fieldManager=m&force=true' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(c.got.toString(), c.want));

  test('withQuery adds ? only when there are parameters', () => {
    assert.equal(withQuery('/api/v1/pods', new URLSearchParams()), '/api/v1/pods');
    assert.equal(withQuery('/api/v1/pods', listQuery({ limit: 1 })), '/api/v1/pods?limit=1');
  });
});

describe('deleteOptionsBody', () => {
  const cases: Array<{ reason: string; got: unknown; want: unknown }> = [
    { reason: 'no options is a bare DeleteOptions', got: deleteOptionsBody(), want: { apiVersion: 'v1', kind: 'DeleteOptions' } },
    {
      reason: 'every option',
      got: deleteOptionsBody({ propagationPolicy: 'Foreground', gracePeriodSeconds: 0, preconditions: { uid: 'u', resourceVersion: '3' }, dryRun: true }),
      want: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Foreground',
        gracePeriodSeconds: 0,
        preconditions: { uid: 'u', resourceVersion: '3' },
        dryRun: ['All'],
      },
    },
    { reason: 'empty preconditions are left out', got: deleteOptionsBody({ preconditions: {} }), want: { apiVersion: 'v1', kind: 'DeleteOptions' } },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(c.got, c.want));
});
