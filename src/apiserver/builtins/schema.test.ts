import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import { builtinResourceTypes } from './builtins.js';
import { objectMetaSchema } from './object-meta-schema.js';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

function newAjv() {
  // strict: false makes ajv ignore the x-kubernetes-* keywords.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** Every property schema in `schema` that lacks a description, as dotted paths. */
function undescribed(schema: JSONSchemaProps, path: string, out: string[]): string[] {
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const p = `${path}.${name}`;
    if (!prop.description) out.push(p);
    undescribed(prop, p, out);
  }
  if (schema.items) undescribed(schema.items, `${path}[]`, out);
  if (typeof schema.additionalProperties === 'object') undescribed(schema.additionalProperties, `${path}{}`, out);
  return out;
}

function hasRef(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasRef);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => k === '$ref' || hasRef(v));
  }
  return false;
}

describe('built-in schemas', () => {
  for (const rt of builtinResourceTypes()) {
    test(`${rt.kind} compiles with ajv`, () => {
      assert.doesNotThrow(() => newAjv().compile(rt.schema));
    });
    test(`${rt.kind} describes every property`, () => {
      assert.deepEqual(undescribed(rt.schema, rt.kind, []), []);
      assert.ok(rt.schema.description, 'the root has a description');
    });
    test(`${rt.kind} is fully inlined`, () => {
      assert.equal(hasRef(rt.schema), false);
    });
    test(`${rt.kind} has apiVersion, kind and the shared metadata`, () => {
      assert.equal(rt.schema.properties?.apiVersion?.type, 'string');
      assert.equal(rt.schema.properties?.kind?.type, 'string');
      assert.deepEqual(rt.schema.properties?.metadata, objectMetaSchema);
    });
  }

  test('each call returns schemas that share no objects', () => {
    const [a] = builtinResourceTypes();
    const [b] = builtinResourceTypes();
    assert.notEqual(a.schema, b.schema);
    assert.notEqual(a.schema.properties!.metadata, b.schema.properties!.metadata);
  });
});

describe('ObjectMeta schema', () => {
  const props = objectMetaSchema.properties!;
  const cases = [
    {
      reason: 'owner references merge on uid',
      path: 'ownerReferences',
      want: {
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['uid'],
      },
    },
    { reason: 'finalizers are a merged set', path: 'finalizers', want: { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'set' } },
    { reason: 'managed fields are replaced whole', path: 'managedFields', want: { 'x-kubernetes-list-type': 'atomic' } },
    { reason: 'timestamps are date-times', path: 'creationTimestamp', want: { format: 'date-time' } },
    { reason: 'generation is an int64', path: 'generation', want: { type: 'integer', format: 'int64' } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = props[c.path] as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.want)) assert.deepEqual(got[k], v, `${c.path} ${k}`);
    });
  }
  test('labels have a description kubectl explain can show', () => {
    assert.match(props.labels.description!, /select/);
  });
  test('fieldsV1 keeps its free-form content', () => {
    assert.equal(props.managedFields.items!.properties!.fieldsV1['x-kubernetes-preserve-unknown-fields'], true);
  });
  test('owner references require apiVersion, kind, name and uid', () => {
    assert.deepEqual(props.ownerReferences.items!.required, ['apiVersion', 'kind', 'name', 'uid']);
  });
});

describe('kind schemas accept valid objects and reject wrong types', () => {
  const types = new Map(builtinResourceTypes().map((rt) => [rt.kind, rt]));
  const meta = {
    name: 'a',
    namespace: 'ns',
    labels: { app: 'x' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', controller: true }],
    managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }],
  };
  const cases: { reason: string; kind: string; obj: unknown; valid: boolean }[] = [
    {
      reason: 'a Secret with base64 data',
      kind: 'Secret',
      obj: { apiVersion: 'v1', kind: 'Secret', metadata: meta, data: { a: 'aGVsbG8=' }, type: 'Opaque' },
      valid: true,
    },
    {
      reason: 'a Secret whose data is not base64',
      kind: 'Secret',
      obj: { apiVersion: 'v1', kind: 'Secret', metadata: meta, data: { a: '!!!' } },
      valid: false,
    },
    {
      reason: 'a ConfigMap with a number value',
      kind: 'ConfigMap',
      obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: 1 } },
      valid: false,
    },
    {
      reason: 'a Namespace in an unknown phase',
      kind: 'Namespace',
      obj: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, status: { phase: 'Gone' } },
      valid: false,
    },
    {
      reason: 'an Event with times and a series',
      kind: 'Event',
      obj: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: meta,
        involvedObject: { kind: 'Pod', name: 'p' },
        eventTime: '2024-01-01T00:00:00.123456Z',
        series: { count: 2, lastObservedTime: '2024-01-01T00:00:01.000000Z' },
      },
      valid: true,
    },
    { reason: 'an Event without involvedObject', kind: 'Event', obj: { apiVersion: 'v1', kind: 'Event', metadata: meta }, valid: false },
    {
      reason: 'a Lease with a fractional duration',
      kind: 'Lease',
      obj: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta, spec: { leaseDurationSeconds: 1.5 } },
      valid: false,
    },
    {
      reason: 'a CRD with an arbitrary embedded schema',
      kind: 'CustomResourceDefinition',
      obj: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          names: { plural: 'widgets', kind: 'Widget' },
          scope: 'Namespaced',
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
        },
      },
      valid: true,
    },
    {
      reason: 'a CRD version without served',
      kind: 'CustomResourceDefinition',
      obj: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.com' },
        spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [{ name: 'v1', storage: true }] },
      },
      valid: false,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const validate = newAjv().compile(types.get(c.kind)!.schema);
      assert.equal(validate(c.obj), c.valid, JSON.stringify(validate.errors));
    });
  }
});
