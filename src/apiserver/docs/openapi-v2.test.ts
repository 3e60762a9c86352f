import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiV2, toV2Schema } from './openapi-v2.js';
import type { SchemaObject } from './meta-schemas.js';
import { buildServedSet } from './served-set.js';
import { fixtureTypes } from './test-fixtures.js';

describe('toV2Schema', () => {
  const cases: { reason: string; input: SchemaObject; want: SchemaObject }[] = [
    {
      reason: 'refs move from components.schemas to definitions',
      input: { allOf: [{ $ref: '#/components/schemas/a.B' }], description: 'd' },
      want: { allOf: [{ $ref: '#/definitions/a.B' }], description: 'd' },
    },
    {
      reason: 'a nullable value becomes untyped (Swagger 2.0 cannot say nullable)',
      input: { type: 'object', nullable: true, description: 'd', properties: { a: { type: 'string' } } },
      want: { description: 'd' },
    },
    {
      reason: 'oneOf, anyOf and not are dropped, deep inside too',
      input: {
        type: 'object',
        properties: { q: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
        items: { not: { type: 'string' }, type: 'string' },
        oneOf: [{ required: ['a'] }],
      },
      want: { type: 'object', properties: { q: { 'x-kubernetes-int-or-string': true } }, items: { type: 'string' } },
    },
    {
      reason: 'extensions, defaults and enums are kept',
      input: { type: 'string', default: 'x', enum: ['x', 'y'], 'x-kubernetes-patch-strategy': 'merge' },
      want: { type: 'string', default: 'x', enum: ['x', 'y'], 'x-kubernetes-patch-strategy': 'merge' },
    },
    {
      reason: 'a property named like a keyword is still a property',
      input: { type: 'object', properties: { nullable: { type: 'boolean' }, not: { type: 'string' } } },
      want: { type: 'object', properties: { nullable: { type: 'boolean' }, not: { type: 'string' } } },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = structuredClone(c.input);
      assert.deepEqual(toV2Schema(c.input), c.want);
      assert.deepEqual(c.input, before, 'the input is not changed');
    });
  }
  test('a schema needing no change is returned as is', () => {
    const s = { type: 'object', properties: { a: { type: 'string' } } };
    assert.equal(toV2Schema(s), s);
  });
});

describe('OpenAPI v2 document', () => {
  const doc = buildOpenApiV2(buildServedSet(fixtureTypes()), 'v1.32.0') as {
    swagger: string;
    paths: Record<string, Record<string, SchemaObject>>;
    definitions: Record<string, SchemaObject>;
    parameters: Record<string, SchemaObject>;
  };
  const json = JSON.stringify(doc);

  test('is Swagger 2.0 with every group-version in one document', () => {
    assert.equal(doc.swagger, '2.0');
    for (const p of [
      '/api/v1/namespaces/{namespace}/configmaps/{name}',
      '/api/v1/namespaces/{name}/status',
      '/apis/storage.conductor.io/v1alpha1/namespaces/{namespace}/mysqlinstances/{name}/status',
      '/apis/core.conductor.io/v1alpha1/clusterprofiles',
    ]) {
      assert.ok(doc.paths[p], p);
    }
  });

  test('has no v3 constructs left', () => {
    assert.ok(!json.includes('#/components/'), 'no v3 refs');
    assert.ok(!json.includes('"nullable"'), 'no nullable');
    assert.ok(!json.includes('"anyOf"'), 'no anyOf');
  });

  test('every $ref resolves to a definition or a shared parameter', () => {
    for (const m of json.matchAll(/"\$ref":"#\/(definitions|parameters)\/([^"]+)"/g)) {
      const table = m[1] === 'definitions' ? doc.definitions : doc.parameters;
      assert.ok(table[m[2]], `${m[1]}/${m[2]} exists`);
    }
  });

  test('definitions carry the GVK extension', () => {
    assert.deepEqual(doc.definitions['io.conductor.storage.v1alpha1.MySQLInstance']?.['x-kubernetes-group-version-kind'], [
      { group: 'storage.conductor.io', version: 'v1alpha1', kind: 'MySQLInstance' },
    ]);
    const meta = (doc.definitions['io.k8s.api.core.v1.ConfigMap']?.properties as Record<string, SchemaObject>).metadata;
    assert.deepEqual(meta?.allOf, [{ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
  });

  test('PATCH consumes the patch types, takes a body and declares fieldValidation inline', () => {
    const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
    assert.deepEqual(patch.consumes, [
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    const params = patch.parameters as SchemaObject[];
    assert.deepEqual(params[0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
    assert.ok(params.some((p) => p.name === 'fieldValidation' && p.in === 'query'));
    assert.ok(params.some((p) => p.$ref === '#/parameters/fieldManager'));
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'ConfigMap' });
  });
});
