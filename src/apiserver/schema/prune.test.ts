import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import { compileSchema } from './index.js';

function root(spec: JSONSchemaProps, extra: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec, ...extra } };
}

interface Case {
  reason: string;
  schema: JSONSchemaProps;
  obj: Record<string, unknown>;
  wantRemoved: string[];
  wantObj: Record<string, unknown>;
}

const meta = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a', labels: { x: 'y' } } };

const cases: Case[] = [
  {
    reason: 'unknown fields are removed at every level; apiVersion, kind and ObjectMeta fields stay untouched',
    schema: root({ type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } }),
    obj: { ...meta, spec: { a: { b: 'x', c: 1 }, d: 2 }, extra: true },
    wantRemoved: ['spec.a.c', 'spec.d', 'extra'],
    wantObj: { ...meta, spec: { a: { b: 'x' } } },
  },
  {
    reason: 'the object\'s metadata keeps only ObjectMeta fields (kube: strict decoding error: unknown field "metadata.madeUp")',
    schema: root({ type: 'object' }),
    obj: { ...meta, metadata: { ...meta.metadata, madeUp: 1 }, spec: {} },
    wantRemoved: ['metadata.madeUp'],
    wantObj: { ...meta, spec: {} },
  },
  {
    reason: 'fields inside list items and map values are pruned with their paths',
    schema: root({
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        byName: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'integer' } } } },
      },
    }),
    obj: { ...meta, spec: { items: [{ name: 'a', junk: 1 }], byName: { k1: { v: 1, junk: 2 } } } },
    wantRemoved: ['spec.items[0].junk', 'spec.byName[k1].junk'],
    wantObj: { ...meta, spec: { items: [{ name: 'a' }], byName: { k1: { v: 1 } } } },
  },
  {
    reason: 'x-kubernetes-preserve-unknown-fields keeps unknown fields but prunes inside declared ones',
    schema: root({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { known: { type: 'object', properties: { a: { type: 'string' } } } },
    }),
    obj: { ...meta, spec: { anything: { deep: [1, { x: 2 }] }, known: { a: 'x', b: 'y' } } },
    wantRemoved: ['spec.known.b'],
    wantObj: { ...meta, spec: { anything: { deep: [1, { x: 2 }] }, known: { a: 'x' } } },
  },
  {
    reason: 'an object without properties and without preserve-unknown-fields is emptied',
    schema: root({ type: 'object' }),
    obj: { ...meta, spec: { a: 1 } },
    wantRemoved: ['spec.a'],
    wantObj: { ...meta, spec: {} },
  },
  {
    reason: 'an embedded resource keeps apiVersion/kind/metadata and prunes metadata to ObjectMeta fields',
    schema: root({
      type: 'object',
      properties: {
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
        },
      },
    }),
    obj: {
      ...meta,
      spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' }, bogus: 1 }, spec: { image: 'nginx', junk: 1 }, other: 1 } },
    },
    wantRemoved: ['spec.template.metadata.bogus', 'spec.template.spec.junk', 'spec.template.other'],
    wantObj: { ...meta, spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { image: 'nginx' } } } },
  },
  {
    reason: 'an embedded resource with preserve-unknown-fields keeps everything',
    schema: root({
      type: 'object',
      properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
    }),
    obj: { ...meta, spec: { template: { apiVersion: 'v1', kind: 'Pod', spec: { anything: 1 } } } },
    wantRemoved: [],
    wantObj: { ...meta, spec: { template: { apiVersion: 'v1', kind: 'Pod', spec: { anything: 1 } } } },
  },
  {
    reason: 'a root with preserve-unknown-fields keeps unknown top-level fields',
    schema: { ...root({ type: 'object', properties: { a: { type: 'string' } } }), 'x-kubernetes-preserve-unknown-fields': true },
    obj: { ...meta, spec: { a: 'x', b: 'y' }, data: { z: 1 } },
    wantRemoved: ['spec.b'],
    wantObj: { ...meta, spec: { a: 'x' }, data: { z: 1 } },
  },
  {
    reason: 'nested nulls and scalars of unknown type are left alone',
    schema: root({ type: 'object', properties: { a: { type: 'string', nullable: true } } }),
    obj: { ...meta, spec: { a: null } },
    wantRemoved: [],
    wantObj: { ...meta, spec: { a: null } },
  },
];

describe('prune', () => {
  for (const c of cases) {
    test(c.reason, () => {
      const compiled = compileSchema(c.schema, { group: 'example.com', kind: 'Widget' });
      const before = structuredClone(c.obj);
      assert.deepEqual(compiled.unknownFields(before), c.wantRemoved, 'unknownFields');
      assert.deepEqual(before, c.obj, 'unknownFields must not change the object');
      const o = structuredClone(c.obj);
      assert.deepEqual(compiled.prune(o), c.wantRemoved, 'prune');
      assert.deepEqual(o, c.wantObj);
      assert.deepEqual(compiled.unknownFields(o), [], 'a pruned object has no unknown fields');
    });
  }
});
