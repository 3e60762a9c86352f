import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { groupWord, operationIdOf, schemaName, tagOf } from './names.js';

describe('schemaName', () => {
  const builtin = { type: 'builtin' } as const;
  const crd = { type: 'crd', crdName: 'x', storage: true } as const;
  const cases: { reason: string; group: string; version: string; kind: string; source: typeof builtin | typeof crd; want: string }[] = [
    { reason: 'core built-ins live in io.k8s.api.core', group: '', version: 'v1', kind: 'ConfigMap', source: builtin, want: 'io.k8s.api.core.v1.ConfigMap' },
    {
      reason: 'built-in groups use their first label',
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'Role',
      source: builtin,
      want: 'io.k8s.api.rbac.v1.Role',
    },
    { reason: 'coordination Leases', group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', source: builtin, want: 'io.k8s.api.coordination.v1.Lease' },
    {
      reason: 'CRDs are defined by apiextensions-apiserver',
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      source: builtin,
      want: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    },
    {
      reason: 'CRD kinds use the reversed group',
      group: 'storage.conductor.io',
      version: 'v1alpha1',
      kind: 'MySQLInstance',
      source: crd,
      want: 'io.conductor.storage.v1alpha1.MySQLInstance',
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.equal(schemaName({ group: c.group, version: c.version, source: c.source }, c.kind), c.want));
  }
});

describe('operation names', () => {
  test('group words and tags', () => {
    assert.equal(groupWord(''), 'Core');
    assert.equal(groupWord('rbac.authorization.k8s.io'), 'RbacAuthorization');
    assert.equal(groupWord('storage.conductor.io'), 'StorageConductorIo');
    assert.equal(tagOf('', 'v1'), 'core_v1');
    assert.equal(tagOf('storage.conductor.io', 'v1alpha1'), 'storageConductorIo_v1alpha1');
  });
  test('operation ids follow the Kubernetes pattern', () => {
    const rt = { group: 'storage.conductor.io', version: 'v1alpha1', kind: 'MySQLInstance' };
    assert.equal(operationIdOf('list', rt, { namespaced: true }), 'listStorageConductorIoV1alpha1NamespacedMySQLInstance');
    assert.equal(operationIdOf('list', rt, { namespaced: false, allNamespaces: true }), 'listStorageConductorIoV1alpha1MySQLInstanceForAllNamespaces');
    assert.equal(
      operationIdOf('patch', { group: '', version: 'v1', kind: 'Namespace' }, { namespaced: false, subresource: 'status' }),
      'patchCoreV1NamespaceStatus',
    );
  });
});
