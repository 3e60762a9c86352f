import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiDocuments } from './api-documents.js';
import type { ResourceType } from '../registry/resource-type.js';
import { fixtureTypes, mysqlInstance, providerKind } from './test-fixtures.js';

function setup(initial: ResourceType[] = fixtureTypes()) {
  let types = initial;
  let calls = 0;
  const docs = new ApiDocuments(
    () => {
      calls++;
      return types;
    },
    { serverAddress: () => '127.0.0.1:6443', gitVersion: 'v1.32.0+conductor.0.1.0' },
  );
  return {
    docs,
    set: (next: ResourceType[]) => (types = next),
    calls: () => calls,
  };
}

describe('ApiDocuments', () => {
  test('builds lazily, once, and rebuilds after invalidate()', () => {
    const s = setup();
    assert.equal(s.calls(), 0, 'nothing is built before first use');
    const first = s.docs.aggregated('apis', 'v2');
    assert.equal(s.docs.aggregated('apis', 'v2'), first, 'the same document is served until invalidated');
    assert.equal(s.docs.openApiV3('api/v1'), s.docs.openApiV3('api/v1'));
    assert.equal(s.calls(), 1);
    s.docs.invalidate();
    assert.notEqual(s.docs.aggregated('apis', 'v2'), first);
    assert.equal(s.calls(), 2);
  });

  test('invalidate() with a new CRD kind: discovery shows it and the group-version hash changes', () => {
    const s = setup([mysqlInstance(), providerKind()]);
    const before = s.docs.openApiV3Index().paths['apis/storage.conductor.io/v1alpha1'].serverRelativeURL;
    const unrelated = s.docs.openApiV3Index().paths['apis/core.conductor.io/v1alpha1'].serverRelativeURL;
    const bucket = { ...mysqlInstance(), kind: 'Bucket', listKind: 'BucketList', resource: 'buckets', singular: 'bucket', shortNames: [] };
    s.set([mysqlInstance(), bucket, providerKind()]);
    assert.equal(s.docs.openApiV3Index().paths['apis/storage.conductor.io/v1alpha1'].serverRelativeURL, before, 'cached until invalidated');
    s.docs.invalidate();
    const after = s.docs.openApiV3Index().paths['apis/storage.conductor.io/v1alpha1'].serverRelativeURL;
    assert.notEqual(after, before);
    assert.equal(s.docs.openApiV3Index().paths['apis/core.conductor.io/v1alpha1'].serverRelativeURL, unrelated, 'other group-versions keep their hash');
    assert.deepEqual(
      s.docs.apiResourceList('storage.conductor.io', 'v1alpha1')?.resources.map((r) => r.name),
      ['buckets', 'buckets/status', 'mysqlinstances', 'mysqlinstances/status'],
    );
  });

  test('the hash is stable across rebuilds of the same set, whatever the registration order', () => {
    const a = setup(fixtureTypes());
    const b = setup([...fixtureTypes()].reverse());
    assert.deepEqual(a.docs.openApiV3Index(), b.docs.openApiV3Index());
    assert.equal(a.docs.openApiV2Serialized().hash, b.docs.openApiV2Serialized().hash);
    const hash = a.docs.openApiV3('api/v1')!.hash;
    a.docs.invalidate();
    assert.equal(a.docs.openApiV3('api/v1')!.hash, hash);
  });

  test('the index lists every group-version with a hashed server-relative URL', () => {
    const { docs } = setup();
    const index = docs.openApiV3Index();
    assert.deepEqual(Object.keys(index.paths), ['api/v1', 'apis/core.conductor.io/v1alpha1', 'apis/storage.conductor.io/v1alpha1']);
    const doc = docs.openApiV3('apis/storage.conductor.io/v1alpha1')!;
    assert.match(doc.hash, /^[0-9A-F]{128}$/);
    assert.equal(index.paths['apis/storage.conductor.io/v1alpha1'].serverRelativeURL, `/openapi/v3/apis/storage.conductor.io/v1alpha1?hash=${doc.hash}`);
    assert.equal(doc.json, JSON.stringify(doc.body), 'json is the serialized body');
  });

  test('openApiV3 accepts paths with slashes around them and rejects unknown ones', () => {
    const { docs } = setup();
    assert.equal(docs.openApiV3('/api/v1/'), docs.openApiV3('api/v1'));
    for (const bad of ['api/v2', 'apis/storage.conductor.io/v1', 'apis/storage.conductor.io', 'apis/v1/x', 'api', '', 'apis/x/y/z']) {
      assert.equal(docs.openApiV3(bad), undefined, bad);
    }
  });

  test('openApiV3Answer: current hash is immutable, an old hash redirects, no hash revalidates', () => {
    const { docs } = setup();
    const doc = docs.openApiV3('api/v1')!;
    assert.deepEqual(docs.openApiV3Answer('api/v1', doc.hash), { status: 200, json: doc.json, hash: doc.hash, immutable: true });
    assert.deepEqual(docs.openApiV3Answer('api/v1', 'DEADBEEF'), { status: 301, location: `/openapi/v3/api/v1?hash=${doc.hash}` });
    assert.deepEqual(docs.openApiV3Answer('api/v1', undefined), { status: 200, json: doc.json, hash: doc.hash, immutable: false });
    assert.deepEqual(docs.openApiV3Answer('apis/nope/v1', doc.hash), { status: 404 });
  });

  test('discovery answers and unknown groups', () => {
    const { docs } = setup();
    assert.deepEqual(docs.apiVersions().serverAddressByClientCIDRs, [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1:6443' }]);
    assert.equal(docs.apiGroupList().groups.length, 2);
    assert.equal(docs.apiGroup('storage.conductor.io')?.name, 'storage.conductor.io');
    assert.equal(docs.apiGroup('nope.io'), undefined);
    assert.equal(docs.apiResourceList('nope.io', 'v1'), undefined);
    assert.equal(docs.aggregated('api', 'v2').items[0]?.metadata.name, '');
    assert.equal(docs.aggregatedSerialized('apis', 'v2beta1').body.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  });

  test('version() reports the Kubernetes minor kubectl expects', () => {
    const { docs } = setup();
    assert.equal(docs.version().major, '1');
    assert.equal(docs.version().minor, '32');
    assert.throws(
      () => new ApiDocuments(() => [], { serverAddress: () => '', gitVersion: 'conductor-0.1' }),
      /gitVersion "conductor-0.1" is not a semantic version/,
    );
  });

  test('an empty served set still yields valid documents', () => {
    const { docs } = setup([]);
    assert.deepEqual(docs.apiVersions().versions, []);
    assert.deepEqual(docs.apiGroupList().groups, []);
    assert.deepEqual(docs.aggregated('api', 'v2').items, []);
    assert.deepEqual(docs.openApiV3Index().paths, {});
    assert.equal((docs.openApiV2() as { swagger: string }).swagger, '2.0');
  });
});
