/**
 * The documents clients discover the server with: /version, legacy and aggregated discovery,
 * OpenAPI v2 (JSON and protobuf) and v3 (index plus hashed, cacheable group-version documents).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlOk, serverForSuite } from '../support/server.js';

const AGG_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

describe('discovery and OpenAPI', () => {
  const t = serverForSuite({});

  test('/version reports a Kubernetes-compatible version that kubectl accepts without warning', async () => {
    const v = (await t.api.request('GET', '/version')).json();
    assert.match(v.gitVersion, /^v1\.\d+\.\d+\+conductor/);
    const out = await kubectlOk(t.server, ['version']);
    assert.match(out, /Server Version: v1\.\d+/);
  });

  test('legacy discovery: /api, /apis, group and resource lists', async () => {
    assert.deepEqual((await t.api.request('GET', '/api')).json().versions, ['v1']);
    const groups = (await t.api.request('GET', '/apis')).json();
    assert.equal(groups.kind, 'APIGroupList');
    const names = groups.groups.map((g: any) => g.name);
    assert.ok(names.includes('apiextensions.k8s.io') && names.includes('coordination.k8s.io'));
    const core = (await t.api.request('GET', '/api/v1')).json();
    const cm = core.resources.find((r: any) => r.name === 'configmaps');
    assert.deepEqual({ kind: cm.kind, namespaced: cm.namespaced, shortNames: cm.shortNames }, { kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] });
    assert.ok(core.resources.some((r: any) => r.name === 'namespaces/status'));
    assert.equal((await t.api.request('GET', '/apis/nope.example.com')).status, 404);
  });

  test('aggregated discovery answers with its own content type', async () => {
    const r = await t.api.request('GET', '/apis', undefined, { Accept: `${AGG_V2},application/json` });
    assert.equal(r.headers['content-type'], AGG_V2);
    const doc = r.json();
    assert.equal(doc.kind, 'APIGroupDiscoveryList');
    const crdGroup = doc.items.find((i: any) => i.metadata.name === 'apiextensions.k8s.io');
    const crdRes = crdGroup.versions[0].resources.find((x: any) => x.resource === 'customresourcedefinitions');
    assert.equal(crdRes.scope, 'Cluster');
    assert.deepEqual(
      crdRes.subresources.map((s: any) => s.subresource),
      ['status'],
    );
    const core = (await t.api.request('GET', '/api', undefined, { Accept: AGG_V2 })).json();
    assert.equal(core.items[0].metadata.name ?? '', '');
  });

  test('a new CRD appears in discovery and OpenAPI at once', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.disco.example.io' },
      spec: {
        group: 'disco.example.io',
        scope: 'Cluster',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer', description: 'a number' } } } } },
            },
          },
        ],
      },
    };
    assert.equal((await t.api.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const list = (await t.api.request('GET', '/apis/disco.example.io/v1')).json();
    assert.equal(list.resources[0].name, 'gadgets');
    const index = (await t.api.request('GET', '/openapi/v3')).json();
    const entry = index.paths['apis/disco.example.io/v1'];
    assert.match(entry.serverRelativeURL, /\?hash=[0-9A-F]+$/);
    const doc = await t.api.request('GET', entry.serverRelativeURL);
    assert.equal(doc.status, 200);
    assert.match(String(doc.headers['cache-control']), /immutable/);
    const schemas = doc.json().components.schemas;
    const gadget = Object.values(schemas).find((s: any) => s['x-kubernetes-group-version-kind']?.some((g: any) => g.kind === 'Gadget')) as any;
    assert.equal(gadget.properties.spec.properties.n.description, 'a number');
  });

  test('OpenAPI v2 is served as JSON, and as protobuf to a protobuf-only request', async () => {
    const json = await t.api.request('GET', '/openapi/v2');
    assert.equal(json.status, 200);
    assert.equal(json.json().swagger, '2.0');
    const pb = await t.api.request('GET', '/openapi/v2', undefined, { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  });

  test('a table is served when asked for, with PartialObjectMetadata rows', async () => {
    const table = (await t.api.request('GET', '/api/v1/namespaces', undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json();
    assert.equal(table.kind, 'Table');
    assert.deepEqual(
      table.columnDefinitions.map((c: any) => c.name),
      ['Name', 'Status', 'Age'],
    );
    const row = table.rows.find((r: any) => r.cells[0] === 'default');
    assert.equal(row.cells[1], 'Active');
    assert.equal(row.object.kind, 'PartialObjectMetadata');
  });
});
