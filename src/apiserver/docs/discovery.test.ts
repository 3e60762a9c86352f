import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAggregated, buildApiGroup, buildApiGroupList, buildApiResourceList, buildApiVersions, storageVersionHash } from './discovery.js';
import { buildServedSet } from './served-set.js';
import { configMap, fixtureTypes, mysqlInstance } from './test-fixtures.js';

describe('legacy discovery', () => {
  const types = fixtureTypes();
  const set = buildServedSet(types);

  test('/api lists the core versions and the server address', () => {
    assert.deepEqual(buildApiVersions(set, '10.0.0.1:6443'), {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
  });

  test('/apis lists named groups only, each with its preferred version', () => {
    const list = buildApiGroupList(set);
    assert.equal(list.kind, 'APIGroupList');
    assert.equal(list.apiVersion, 'v1');
    assert.deepEqual(
      list.groups.map((g) => g.name),
      ['core.conductor.io', 'storage.conductor.io'],
    );
    assert.deepEqual(list.groups[1], {
      name: 'storage.conductor.io',
      versions: [{ groupVersion: 'storage.conductor.io/v1alpha1', version: 'v1alpha1' }],
      preferredVersion: { groupVersion: 'storage.conductor.io/v1alpha1', version: 'v1alpha1' },
    });
  });

  test('/apis/<group> is an APIGroup; an unknown group is undefined', () => {
    const g = buildApiGroup(set, 'core.conductor.io');
    assert.equal(g?.kind, 'APIGroup');
    assert.equal(g?.preferredVersion.groupVersion, 'core.conductor.io/v1alpha1');
    assert.equal(buildApiGroup(set, 'nope.example.com'), undefined);
    assert.equal(buildApiGroup(set, ''), undefined, 'the core group is not served under /apis');
  });

  test('several versions: the preferred (highest priority) version comes first', () => {
    const multi = buildServedSet([mysqlInstance('v1alpha1', false), mysqlInstance('v1beta1', true), mysqlInstance('v1alpha2', false)]);
    const g = buildApiGroup(multi, 'storage.conductor.io');
    assert.deepEqual(
      g?.versions.map((v) => v.version),
      ['v1beta1', 'v1alpha2', 'v1alpha1'],
    );
    assert.equal(g?.preferredVersion.version, 'v1beta1');
  });

  test('/api/v1 lists resources and subresources sorted by name, main resource first', () => {
    const list = buildApiResourceList(set, types, '', 'v1');
    assert.equal(list?.kind, 'APIResourceList');
    assert.equal(list?.groupVersion, 'v1');
    assert.deepEqual(
      list?.resources.map((r) => r.name),
      ['configmaps', 'namespaces', 'namespaces/finalize', 'namespaces/status'],
    );
    const [cm, ns, finalize, status] = list.resources;
    assert.deepEqual(cm, {
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
      storageVersionHash: storageVersionHash('', 'v1', 'ConfigMap'),
    });
    assert.equal(ns?.namespaced, false);
    assert.deepEqual(finalize, { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
    assert.deepEqual(status, { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] });
  });

  test('a CRD resource carries categories and short names; its status subresource follows it', () => {
    const list = buildApiResourceList(set, types, 'storage.conductor.io', 'v1alpha1');
    assert.equal(list?.groupVersion, 'storage.conductor.io/v1alpha1');
    assert.deepEqual(
      list?.resources.map((r) => r.name),
      ['mysqlinstances', 'mysqlinstances/status'],
    );
    assert.deepEqual(list?.resources[0]?.categories, ['claim', 'all']);
    assert.deepEqual(list?.resources[0]?.shortNames, ['mysql']);
    assert.equal(list?.resources[1]?.kind, 'MySQLInstance');
  });

  test('empty short names and categories are left out', () => {
    const list = buildApiResourceList(set, types, 'core.conductor.io', 'v1alpha1');
    assert.equal('shortNames' in list!.resources[0], false);
    assert.equal('categories' in list!.resources[0], false);
  });

  test('unknown group-versions are undefined', () => {
    assert.equal(buildApiResourceList(set, types, '', 'v2'), undefined);
    assert.equal(buildApiResourceList(set, types, 'storage.conductor.io', 'v1'), undefined);
    assert.equal(buildApiResourceList(set, types, 'v1', ''), undefined);
  });

  test('storageVersionHash names the storage version for every served version of a CRD', () => {
    const all = [mysqlInstance('v1alpha1', false), mysqlInstance('v1beta1', true)];
    const s = buildServedSet(all);
    const alpha = buildApiResourceList(s, all, 'storage.conductor.io', 'v1alpha1')!.resources[0];
    const beta = buildApiResourceList(s, all, 'storage.conductor.io', 'v1beta1')!.resources[0];
    assert.equal(alpha.storageVersionHash, beta.storageVersionHash);
    assert.equal(beta.storageVersionHash, storageVersionHash('storage.conductor.io', 'v1beta1', 'MySQLInstance'));
  });

  test('storageVersionHash is 8 bytes of base64 and matches the value Kubernetes publishes for v1 Namespace', () => {
    assert.equal(storageVersionHash('', 'v1', 'Namespace'), 'Q3oi5N2YM8M=');
    assert.equal(Buffer.from(storageVersionHash('apps', 'v1', 'Deployment'), 'base64').length, 8);
  });
});

describe('aggregated discovery', () => {
  const set = buildServedSet(fixtureTypes());

  test('/api holds one item, the core group, with the empty name', () => {
    const doc = buildAggregated(set, 'api', 'v2');
    assert.equal(doc.kind, 'APIGroupDiscoveryList');
    assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2');
    assert.deepEqual(doc.metadata, {});
    assert.equal(doc.items.length, 1);
    assert.equal(doc.items[0]?.metadata.name, '');
    assert.deepEqual(
      doc.items[0]?.versions.map((v) => [v.version, v.freshness]),
      [['v1', 'Current']],
    );
  });

  test('a namespaced resource with status: scope, responseKind, singular, verbs, subresources', () => {
    const doc = buildAggregated(set, 'apis', 'v2');
    const storage = doc.items.find((i) => i.metadata.name === 'storage.conductor.io');
    assert.deepEqual(storage?.versions[0]?.resources[0], {
      resource: 'mysqlinstances',
      responseKind: { group: 'storage.conductor.io', version: 'v1alpha1', kind: 'MySQLInstance' },
      scope: 'Namespaced',
      singularResource: 'mysqlinstance',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['mysql'],
      categories: ['claim', 'all'],
      subresources: [
        {
          subresource: 'status',
          responseKind: { group: 'storage.conductor.io', version: 'v1alpha1', kind: 'MySQLInstance' },
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
  });

  test('a cluster-scoped resource without subresources', () => {
    const doc = buildAggregated(set, 'apis', 'v2');
    const core = doc.items.find((i) => i.metadata.name === 'core.conductor.io');
    const r = core?.versions[0]?.resources[0];
    assert.equal(r?.scope, 'Cluster');
    assert.equal(r?.resource, 'clusterprofiles');
    assert.equal('subresources' in r, false);
  });

  test('namespaces carry finalize and status subresources', () => {
    const doc = buildAggregated(set, 'api', 'v2beta1');
    assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2beta1');
    const ns = doc.items[0]?.versions[0]?.resources.find((r) => r.resource === 'namespaces');
    assert.deepEqual(
      ns?.subresources?.map((s) => [s.subresource, s.verbs.join(',')]),
      [
        ['finalize', 'update'],
        ['status', 'get,patch,update'],
      ],
    );
  });

  test('/apis lists the same groups in the same order as the legacy APIGroupList', () => {
    const doc = buildAggregated(set, 'apis', 'v2');
    assert.deepEqual(
      doc.items.map((i) => i.metadata.name),
      buildApiGroupList(set).groups.map((g) => g.name),
    );
  });

  test('built-in groups come before CRD groups', () => {
    const lease = { ...configMap(), group: 'coordination.k8s.io', kind: 'Lease', listKind: 'LeaseList', resource: 'leases' };
    const s = buildServedSet([mysqlInstance(), lease]);
    assert.deepEqual(
      buildAggregated(s, 'apis', 'v2').items.map((i) => i.metadata.name),
      ['coordination.k8s.io', 'storage.conductor.io'],
    );
  });
});
