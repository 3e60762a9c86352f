import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiV3 } from './openapi-v3.js';
import type { SchemaObject } from './meta-schemas.js';
import { buildServedSet } from './served-set.js';
import { configMap, fixtureTypes, mysqlInstance, namespace, providerKind } from './test-fixtures.js';
import { NON_NEGATIVE_QUANTITY_PATTERN, type JSONSchemaProps } from '../../machinery/schema-types.js';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, SchemaObject>>;
  components: { schemas: Record<string, SchemaObject> };
};

function docFor(groupVersion: string, types = fixtureTypes()): Doc {
  const gv = buildServedSet(types).byGroupVersion.get(groupVersion);
  assert.ok(gv, `group-version ${groupVersion} is served`);
  return buildOpenApiV3(gv, 'v1.32.0') as unknown as Doc;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
type Gvk = { group: string; version: string; kind: string };

function operations(doc: Doc): { path: string; method: string; op: SchemaObject }[] {
  const out: { path: string; method: string; op: SchemaObject }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ path, method, op: item[method] });
  }
  return out;
}

function paramNames(op: SchemaObject): string[] {
  return ((op.parameters as { name: string; in: string }[] | undefined) ?? []).filter((p) => p.in === 'query').map((p) => p.name);
}

/** What kubectl's field-validation check does: every PATCH operation of the GVK must list fieldValidation inline. */
function supportsFieldValidation(doc: Doc, gvk: Gvk): boolean {
  const patches = operations(doc).filter(
    ({ method, op }) => method === 'patch' && JSON.stringify(op['x-kubernetes-group-version-kind']) === JSON.stringify(gvk),
  );
  return patches.length > 0 && patches.every(({ op }) => paramNames(op).includes('fieldValidation'));
}

/** What `kubectl explain` does: GVK from an operation of the resource's paths, then the schema listing it. */
function explainLookup(doc: Doc, prefix: string, resource: string): SchemaObject | undefined {
  const candidates = [
    `${prefix}/${resource}`,
    `${prefix}/${resource}/{name}`,
    `${prefix}/namespaces/{namespace}/${resource}`,
    `${prefix}/namespaces/{namespace}/${resource}/{name}`,
  ];
  let gvk: unknown;
  for (const path of candidates) {
    for (const method of METHODS) {
      const op = doc.paths[path]?.[method];
      if (op && !gvk) gvk = op['x-kubernetes-group-version-kind'];
    }
  }
  if (!gvk) return undefined;
  for (const schema of Object.values(doc.components.schemas)) {
    const list = schema['x-kubernetes-group-version-kind'];
    if (Array.isArray(list) && list.some((x) => JSON.stringify(x) === JSON.stringify(gvk))) return schema;
  }
  return undefined;
}

function resolve(doc: Doc, ref: string): SchemaObject | undefined {
  const prefix = '#/components/schemas/';
  assert.ok(ref.startsWith(prefix), `ref ${ref} points into components.schemas`);
  return doc.components.schemas[ref.slice(prefix.length)];
}

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

describe('OpenAPI v3 group-version documents', () => {
  test('is an OpenAPI 3.0 document whose every $ref resolves', () => {
    for (const gv of ['v1', 'storage.conductor.io/v1alpha1', 'core.conductor.io/v1alpha1']) {
      const doc = docFor(gv);
      assert.equal(doc.openapi, '3.0.0');
      for (const ref of collectRefs(doc)) assert.ok(resolve(doc, ref), `${gv}: ${ref} resolves`);
    }
  });

  test('names kind and list schemas after the reversed CRD group and tags them with their GVK', () => {
    const doc = docFor('storage.conductor.io/v1alpha1');
    const kind = doc.components.schemas['io.conductor.storage.v1alpha1.MySQLInstance'];
    const list = doc.components.schemas['io.conductor.storage.v1alpha1.MySQLInstanceList'];
    assert.deepEqual(kind?.['x-kubernetes-group-version-kind'], [{ group: 'storage.conductor.io', version: 'v1alpha1', kind: 'MySQLInstance' }]);
    assert.deepEqual(list?.['x-kubernetes-group-version-kind'], [{ group: 'storage.conductor.io', version: 'v1alpha1', kind: 'MySQLInstanceList' }]);
    assert.deepEqual((list?.properties as SchemaObject).items, {
      type: 'array',
      description: 'The MySQLInstance objects.',
      items: { $ref: '#/components/schemas/io.conductor.storage.v1alpha1.MySQLInstance' },
    });
  });

  test('built-in kinds are named like Kubernetes names them; the core GVK has an empty group', () => {
    const doc = docFor('v1');
    assert.deepEqual(doc.components.schemas['io.k8s.api.core.v1.ConfigMap']?.['x-kubernetes-group-version-kind'], [
      { group: '', version: 'v1', kind: 'ConfigMap' },
    ]);
    assert.ok(doc.components.schemas['io.k8s.api.core.v1.NamespaceList']);
  });

  test('metadata refers to the shared ObjectMeta, which carries the patch metadata of its lists', () => {
    const doc = docFor('storage.conductor.io/v1alpha1');
    const props = doc.components.schemas['io.conductor.storage.v1alpha1.MySQLInstance']?.properties as Record<string, SchemaObject>;
    assert.deepEqual(props.metadata?.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    const meta = doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']?.properties as Record<string, SchemaObject>;
    assert.equal(meta.ownerReferences?.['x-kubernetes-patch-merge-key'], 'uid');
    assert.equal(meta.ownerReferences?.['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(meta.finalizers?.['x-kubernetes-patch-strategy'], 'merge');
    for (const name of ['Status', 'DeleteOptions', 'ListMeta', 'Patch', 'OwnerReference', 'ManagedFieldsEntry']) {
      assert.ok(doc.components.schemas[`io.k8s.apimachinery.pkg.apis.meta.v1.${name}`], `${name} is included`);
    }
  });

  test('keeps the rest of the schema (spec, status, descriptions, extensions) and leaves the input untouched', () => {
    const rt = mysqlInstance();
    const before = structuredClone(rt.schema);
    const doc = docFor('storage.conductor.io/v1alpha1', [rt]);
    assert.deepEqual(rt.schema, before);
    const kind = doc.components.schemas['io.conductor.storage.v1alpha1.MySQLInstance'];
    assert.equal(kind.description, 'A MySQLInstance claims a MySQL database.');
    const props = kind.properties as Record<string, SchemaObject>;
    // The int-or-string capacity values reference IntOrString (scalar-schemas.ts); the rest is as given.
    const spec = structuredClone((before.properties as Record<string, SchemaObject>).spec);
    const requirements = (spec.properties as Record<string, SchemaObject>).requirements;
    (requirements.properties as Record<string, SchemaObject>).capacity.additionalProperties = {
      'x-kubernetes-int-or-string': true,
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString' }],
    };
    assert.deepEqual(props.spec, spec);
    assert.deepEqual(Object.keys(props), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    assert.equal(typeof props.apiVersion?.description, 'string');
  });

  test('an int-or-string with the quantity pattern references Quantity (kubectl explain: map[string]Quantity), keeping its description and rules', () => {
    const quantity = {
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: NON_NEGATIVE_QUANTITY_PATTERN,
      minimum: 0,
    };
    const rt = mysqlInstance('v1alpha1', true, {
      limits: { type: 'object', description: 'Amounts.', additionalProperties: quantity },
      size: { ...quantity, description: 'One amount.' },
      items: { type: 'array', items: quantity },
    } as Record<string, JSONSchemaProps>);
    const doc = docFor('storage.conductor.io/v1alpha1', [rt]);
    const spec = (doc.components.schemas['io.conductor.storage.v1alpha1.MySQLInstance'].properties as Record<string, SchemaObject>).spec;
    const fields = spec.properties as Record<string, SchemaObject>;
    const ref = { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' };
    const named = { 'x-kubernetes-int-or-string': true, pattern: NON_NEGATIVE_QUANTITY_PATTERN, minimum: 0, allOf: [ref] };
    assert.deepEqual(fields.limits, { type: 'object', description: 'Amounts.', additionalProperties: named });
    assert.deepEqual(fields.size, { ...named, description: 'One amount.' });
    assert.deepEqual(fields.items, { type: 'array', items: named });
    assert.deepEqual(doc.components.schemas['io.k8s.apimachinery.pkg.api.resource.Quantity'], { oneOf: [{ type: 'string' }, { type: 'number' }] });
    assert.ok(doc.components.schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString']);
  });

  test('declares fieldValidation on every PATCH of every kind (what kubectl checks before sending fieldValidation=Strict)', () => {
    for (const [gv, kinds] of [
      ['v1', ['ConfigMap', 'Namespace']],
      ['storage.conductor.io/v1alpha1', ['MySQLInstance']],
      ['core.conductor.io/v1alpha1', ['ClusterProfile']],
    ] as const) {
      const doc = docFor(gv);
      const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
      for (const kind of kinds) assert.ok(supportsFieldValidation(doc, { group: group, version: version, kind }), `${gv} ${kind}`);
    }
  });

  test('POST and PUT declare dryRun, fieldManager and fieldValidation; PATCH adds force', () => {
    const doc = docFor('storage.conductor.io/v1alpha1');
    for (const { method, op, path } of operations(doc)) {
      if (method === 'post' || method === 'put') assert.deepEqual(paramNames(op), ['dryRun', 'fieldManager', 'fieldValidation'], path);
      if (method === 'patch') assert.deepEqual(paramNames(op), ['dryRun', 'fieldManager', 'fieldValidation', 'force'], path);
    }
  });

  test('a namespaced kind with status has collection, all-namespaces, item and status paths', () => {
    const doc = docFor('storage.conductor.io/v1alpha1');
    const base = '/apis/storage.conductor.io/v1alpha1';
    const shape = Object.fromEntries(Object.entries(doc.paths).map(([p, item]) => [p, METHODS.filter((m) => item[m])]));
    assert.deepEqual(shape, {
      [`${base}/mysqlinstances`]: ['get'],
      [`${base}/namespaces/{namespace}/mysqlinstances`]: ['get', 'post', 'delete'],
      [`${base}/namespaces/{namespace}/mysqlinstances/{name}`]: ['get', 'put', 'delete', 'patch'],
      [`${base}/namespaces/{namespace}/mysqlinstances/{name}/status`]: ['get', 'put', 'patch'],
    });
    const item = doc.paths[`${base}/namespaces/{namespace}/mysqlinstances/{name}`];
    assert.deepEqual(
      (item.parameters as unknown as { name: string; in: string; required?: boolean }[]).map((p) => [p.name, p.in, p.required ?? false]),
      [
        ['name', 'path', true],
        ['namespace', 'path', true],
        ['pretty', 'query', false],
      ],
    );
    assert.equal(item.patch?.['x-kubernetes-action'], 'patch');
    assert.equal(doc.paths[`${base}/namespaces/{namespace}/mysqlinstances`]?.delete?.['x-kubernetes-action'], 'deletecollection');
    assert.deepEqual(doc.paths[`${base}/namespaces/{namespace}/mysqlinstances/{name}/status`]?.patch?.['x-kubernetes-group-version-kind'], {
      group: 'storage.conductor.io',
      version: 'v1alpha1',
      kind: 'MySQLInstance',
    });
  });

  test('list operations take the list and watch parameters', () => {
    const doc = docFor('storage.conductor.io/v1alpha1');
    const list = doc.paths['/apis/storage.conductor.io/v1alpha1/namespaces/{namespace}/mysqlinstances'].get;
    assert.deepEqual(paramNames(list), [
      'allowWatchBookmarks',
      'continue',
      'fieldSelector',
      'labelSelector',
      'limit',
      'resourceVersion',
      'resourceVersionMatch',
      'sendInitialEvents',
      'timeoutSeconds',
      'watch',
    ]);
    assert.equal(list['x-kubernetes-action'], 'list');
    const ok = (list.responses as Record<string, { content: Record<string, { schema: SchemaObject }> }>)['200'];
    assert.deepEqual(ok.content['application/json']?.schema, { $ref: '#/components/schemas/io.conductor.storage.v1alpha1.MySQLInstanceList' });
  });

  test('a cluster-scoped kind without deletecollection has no namespace paths and no collection DELETE', () => {
    const doc = docFor('core.conductor.io/v1alpha1');
    const base = '/apis/core.conductor.io/v1alpha1';
    assert.deepEqual(Object.keys(doc.paths), [`${base}/clusterprofiles`, `${base}/clusterprofiles/{name}`]);
    assert.equal(doc.paths[`${base}/clusterprofiles`]?.delete, undefined);
    assert.deepEqual(
      (doc.paths[`${base}/clusterprofiles/{name}`].parameters as unknown as { name: string }[]).map((p) => p.name),
      ['name', 'pretty'],
    );
  });

  test('namespaces serve finalize (PUT only) besides status', () => {
    const doc = docFor('v1');
    const finalize = doc.paths['/api/v1/namespaces/{name}/finalize'];
    assert.deepEqual(
      METHODS.filter((m) => finalize[m]),
      ['put'],
    );
    assert.deepEqual(finalize.put?.['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Namespace' });
  });

  test('PATCH accepts strategic merge patch for built-ins only', () => {
    const cm = docFor('v1').paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
    const crd = docFor('storage.conductor.io/v1alpha1').paths['/apis/storage.conductor.io/v1alpha1/namespaces/{namespace}/mysqlinstances/{name}'].patch;
    const types = (op: SchemaObject) => Object.keys((op.requestBody as { content: SchemaObject }).content);
    assert.deepEqual(types(cm), [
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    assert.deepEqual(types(crd), ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json']);
  });

  const explainCases = [
    {
      reason: 'namespaced CRD kind',
      gv: 'storage.conductor.io/v1alpha1',
      prefix: '/apis/storage.conductor.io/v1alpha1',
      resource: 'mysqlinstances',
      kind: 'MySQLInstance',
    },
    {
      reason: 'cluster-scoped CRD kind',
      gv: 'core.conductor.io/v1alpha1',
      prefix: '/apis/core.conductor.io/v1alpha1',
      resource: 'clusterprofiles',
      kind: 'ClusterProfile',
    },
    { reason: 'namespaced built-in', gv: 'v1', prefix: '/api/v1', resource: 'configmaps', kind: 'ConfigMap' },
    { reason: 'cluster-scoped built-in', gv: 'v1', prefix: '/api/v1', resource: 'namespaces', kind: 'Namespace' },
  ];
  for (const c of explainCases) {
    test(`kubectl explain finds the schema of a ${c.reason} by its GVK`, () => {
      const schema = explainLookup(docFor(c.gv), c.prefix, c.resource);
      assert.ok(schema, 'a schema is found');
      assert.equal((schema['x-kubernetes-group-version-kind'] as Gvk[])[0]?.kind, c.kind);
    });
  }

  test('only the verbs a kind serves become operations', () => {
    const readOnly = { ...providerKind(), verbs: ['get', 'list'] };
    const doc = docFor('core.conductor.io/v1alpha1', [readOnly]);
    assert.deepEqual(
      operations(doc).map((o) => `${o.method} ${o.path}`),
      ['get /apis/core.conductor.io/v1alpha1/clusterprofiles', 'get /apis/core.conductor.io/v1alpha1/clusterprofiles/{name}'],
    );
    assert.ok(!paramNames(operations(doc)[0].op).includes('watch'), 'no watch parameter without the watch verb');
  });

  test('operation ids are unique within a document', () => {
    const doc = docFor('v1', [configMap(), namespace()]);
    const ids = operations(doc).map((o) => o.op.operationId);
    assert.equal(new Set(ids).size, ids.length);
  });
});
