/**
 * What GitOps tools (Argo CD, Flux, Helm, the Terraform provider) rely on, checked against a
 * real server the way they use it: server-side apply by several field managers, where
 * `dryRun=All` answers exactly what the real apply then returns; managedFields in kube's shape
 * and order; metadata.generation; the last-applied-configuration round trip of client-side
 * apply; resourceVersion as an opaque string; 409s with kube's reason, message and causes;
 * a terminating namespace's conditions.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

const GROUP = 'gitops.example.io';
const NS = 'gitops';
const gadgets = `/apis/${GROUP}/v1/namespaces/${NS}/gadgets`;
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', properties: { observedGeneration: { type: 'integer' }, phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

function gadget(name: string, spec: Record<string, unknown>, labels?: Record<string, string>) {
  return { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name, namespace: NS, ...(labels ? { labels } : {}) }, spec };
}

/** An object without what differs between two writes of the same content: resourceVersion, and the times (so also the order) of managedFields. */
function comparable(obj: any): any {
  const copy = structuredClone(obj);
  delete copy.metadata.resourceVersion;
  for (const e of copy.metadata.managedFields ?? []) delete e.time;
  // Entries are ordered by time (in seconds) before manager: two writes a second apart may order them differently.
  copy.metadata.managedFields?.sort((a: any, b: any) => `${a.operation}/${a.manager}`.localeCompare(`${b.operation}/${b.manager}`));
  return copy;
}

describe('GitOps semantics', { concurrency: 1 }, () => {
  const s = serverForSuite({
    setup: async ({ api }) => {
      assert.equal((await api.request('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
      assert.equal((await api.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).status, 201);
      await eventually(async () => (await api.request('GET', gadgets)).status === 200, 'the Gadget kind to be served');
    },
  });

  test('server-side apply by two managers: dryRun=All answers exactly what the real apply returns', async () => {
    const first = gadget('ga', { size: 4, color: 'green' }, { app: 'shop' });
    const dryCreate = await s.api.request('PATCH', `${gadgets}/ga?fieldManager=flux&dryRun=All`, first, APPLY);
    assert.equal(dryCreate.status, 201, dryCreate.text);
    assert.equal((await s.api.request('GET', `${gadgets}/ga`)).status, 404, 'a dry run stores nothing');
    const create = await s.api.request('PATCH', `${gadgets}/ga?fieldManager=flux`, first, APPLY);
    assert.equal(create.status, 201, create.text);
    const dry = dryCreate.json();
    const real = create.json();
    assert.equal(dry.metadata.resourceVersion, undefined, 'a dry-run create has no resourceVersion (nothing was stored)');
    for (const o of [dry, real]) {
      delete o.metadata.uid;
      delete o.metadata.creationTimestamp;
    }
    assert.deepEqual(comparable(dry), comparable(real));

    const second = gadget('ga', { size: 5 });
    const dryUpdate = await s.api.request('PATCH', `${gadgets}/ga?fieldManager=argocd&dryRun=All&force=true`, second, APPLY);
    assert.equal(dryUpdate.status, 200, dryUpdate.text);
    assert.equal(dryUpdate.json().metadata.resourceVersion, create.json().metadata.resourceVersion, 'a dry-run update keeps the stored resourceVersion');
    assert.equal((await s.api.request('GET', `${gadgets}/ga`)).json().spec.size, 4, 'a dry run changes nothing');
    const update = await s.api.request('PATCH', `${gadgets}/ga?fieldManager=argocd&force=true`, second, APPLY);
    assert.equal(update.status, 200, update.text);
    assert.deepEqual(comparable(dryUpdate.json()), comparable(update.json()));
    assert.equal(update.json().metadata.generation, 2);
  });

  test("managedFields: kube's entry shape, Apply sets without '.', Update sets with it, Apply entries first", async () => {
    const created = await s.api.request('POST', gadgets, gadget('gb', { size: 1 }));
    assert.equal(created.status, 201, created.text);
    const applied = await s.api.request('PATCH', `${gadgets}/gb?fieldManager=flux`, gadget('gb', { color: 'red' }, { team: 'a' }), APPLY);
    assert.equal(applied.status, 200, applied.text);
    const entries = applied.json().metadata.managedFields;
    assert.deepEqual(
      entries.map((e: any) => e.operation),
      ['Apply', 'Update'],
    );
    assert.equal(entries[0].manager, 'flux');
    for (const e of entries) {
      assert.deepEqual(Object.keys(e), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
      assert.equal(e.apiVersion, `${GROUP}/v1`);
      assert.equal(e.fieldsType, 'FieldsV1');
      assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    assert.deepEqual(entries[0].fieldsV1, { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:spec': { 'f:color': {} } });
    assert.deepEqual(entries[1].fieldsV1, { 'f:spec': { '.': {}, 'f:size': {} } });
  });

  test('metadata.generation moves with spec only; status (with observedGeneration) and metadata leave it', async () => {
    const path = `${gadgets}/gb`;
    const g0 = (await s.api.request('GET', path)).json().metadata.generation;
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    assert.equal((await s.api.request('PATCH', path, { metadata: { labels: { extra: 'x' } } }, merge)).json().metadata.generation, g0);
    const status = await s.api.request('PATCH', `${path}/status`, { status: { observedGeneration: g0, phase: 'Ready' } }, merge);
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json().metadata.generation, g0);
    assert.equal(status.json().status.observedGeneration, g0);
    const spec = await s.api.request('PATCH', path, { spec: { size: 9 }, status: { phase: 'ignored' } }, merge);
    assert.equal(spec.json().metadata.generation, g0 + 1);
    assert.equal(spec.json().status.phase, 'Ready', 'the main resource does not write status');
  });

  test('client-side apply: the last-applied-configuration annotation round-trips and drives removals', async () => {
    const manifest = (spec: Record<string, unknown>) => JSON.stringify(gadget('gc', spec));
    await kubectlOk(s.server, ['apply', '-f', '-'], { input: manifest({ size: 2, color: 'blue' }) });
    const stored = (await s.api.request('GET', `${gadgets}/gc`)).json();
    const annotation = JSON.parse(stored.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.deepEqual(annotation.spec, { size: 2, color: 'blue' });
    const view = JSON.parse(await kubectlOk(s.server, ['apply', 'view-last-applied', 'gadget/gc', '-n', NS, '-o', 'json']));
    assert.deepEqual(view, annotation);
    await kubectlOk(s.server, ['apply', '-f', '-'], { input: manifest({ size: 3 }) });
    const after = (await s.api.request('GET', `${gadgets}/gc`)).json();
    assert.deepEqual(after.spec, { size: 3 }, 'a field dropped from the manifest is removed (three-way merge)');
  });

  test('resourceVersion is an opaque string; a stale one is a 409 with kube message and details', async () => {
    const obj = (await s.api.request('GET', `${gadgets}/gc`)).json();
    assert.equal(typeof obj.metadata.resourceVersion, 'string');
    const stale = { ...obj, metadata: { ...obj.metadata, resourceVersion: '1' }, spec: { size: 4 } };
    const r = await s.api.request('PUT', `${gadgets}/gc`, stale);
    assert.equal(r.status, 409);
    assert.deepEqual(r.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Operation cannot be fulfilled on gadgets.${GROUP} "gc": the object has been modified; please apply your changes to the latest version and try again`,
      reason: 'Conflict',
      details: { name: 'gc', group: GROUP, kind: 'gadgets' },
      code: 409,
    });
    const core = await s.api.request('PUT', `/api/v1/namespaces/${NS}/configmaps/none`, { metadata: { name: 'none', resourceVersion: '1' } });
    assert.equal(core.status, 404);
    assert.deepEqual(core.json().details, { name: 'none', kind: 'configmaps' }, 'no empty group, as kube');
  });

  test('an apply conflict: 409 Conflict with one FieldManagerConflict cause per field, as kube', async () => {
    const r = await s.api.request('PATCH', `${gadgets}/ga?fieldManager=helm`, gadget('ga', { size: 6, color: 'black' }), APPLY);
    assert.equal(r.status, 409);
    const body = r.json();
    assert.equal(body.reason, 'Conflict');
    assert.equal(body.message, 'Apply failed with 2 conflicts: conflicts with "argocd":\n- .spec.size\nconflicts with "flux":\n- .spec.color');
    assert.deepEqual(body.details, {
      causes: [
        { reason: 'FieldManagerConflict', message: 'conflict with "argocd"', field: '.spec.size' },
        { reason: 'FieldManagerConflict', message: 'conflict with "flux"', field: '.spec.color' },
      ],
    });
    const cli = await kubectl(s.server, ['apply', '--server-side', '--field-manager=helm', '-f', '-'], { input: JSON.stringify(gadget('ga', { size: 6 })) });
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr, /^error: Apply failed with 1 conflict: conflict with "argocd": \.spec\.size$/m);
  });

  test("a namespace held by a finalizer reports what remains and which finalizers hold it, in kube's conditions", async () => {
    assert.equal((await s.api.request('POST', '/api/v1/namespaces', { metadata: { name: 'held' } })).status, 201);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stuck', namespace: 'held', finalizers: ['example.com/hold'] } };
    assert.equal((await s.api.request('POST', '/api/v1/namespaces/held/configmaps', cm)).status, 201);
    await kubectlOk(s.server, ['delete', 'namespace', 'held', '--wait=false']);
    const conditions = await eventually(async () => {
      const ns = (await s.api.request('GET', '/api/v1/namespaces/held')).json();
      const c = ns.status?.conditions as { type: string; status: string; reason: string; message: string }[] | undefined;
      return c?.find((x) => x.type === 'NamespaceFinalizersRemaining' && x.status === 'True') ? c : undefined;
    }, 'the namespace deletion conditions');
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain'],
        ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain'],
      ],
    );
    const described = await kubectlOk(s.server, ['describe', 'namespace', 'held']);
    assert.match(described, /NamespaceContentRemaining\s+True\s+.*SomeResourcesRemain\s+Some resources are remaining: configmaps\. has 1 resource instances/);
    assert.match(described, /SomeFinalizersRemain\s+Some content in the namespace has finalizers remaining: example\.com\/hold in 1 resource instances/);
    await s.api.request(
      'PATCH',
      '/api/v1/namespaces/held/configmaps/stuck',
      { metadata: { finalizers: null } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    await eventually(async () => (await s.api.request('GET', '/api/v1/namespaces/held')).status === 404, 'the namespace to go once the finalizer is removed');
  });
});
