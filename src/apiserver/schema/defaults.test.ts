import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../registry/resource-type.js';
import { compileSchema } from './index.js';

function root(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec } };
}

const head = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' } };

interface Case {
  reason: string;
  schema: JSONSchemaProps;
  spec: unknown;
  want: unknown;
}

const cases: Case[] = [
  {
    reason: 'an absent field gets its default; a present one keeps its value',
    schema: root({ type: 'object', properties: { replicas: { type: 'integer', default: 1 }, name: { type: 'string', default: 'x' } } }),
    spec: { name: 'mine' },
    want: { replicas: 1, name: 'mine' },
  },
  {
    reason: 'nested defaults apply only where the parent exists',
    schema: root({
      type: 'object',
      properties: {
        present: { type: 'object', properties: { a: { type: 'integer', default: 5 } } },
        absent: { type: 'object', properties: { a: { type: 'integer', default: 5 } } },
      },
    }),
    spec: { present: {} },
    want: { present: { a: 5 } },
  },
  {
    reason: 'a defaulted object is itself defaulted inside',
    schema: root({
      type: 'object',
      properties: { tls: { type: 'object', default: {}, properties: { enabled: { type: 'boolean', default: true } } } },
    }),
    spec: {},
    want: { tls: { enabled: true } },
  },
  {
    reason: 'defaults apply inside every list item',
    schema: root({
      type: 'object',
      properties: {
        ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } } },
      },
    }),
    spec: { ports: [{ name: 'a' }, { name: 'b', protocol: 'UDP' }] },
    want: {
      ports: [
        { name: 'a', protocol: 'TCP' },
        { name: 'b', protocol: 'UDP' },
      ],
    },
  },
  {
    reason: 'defaults apply inside every map value',
    schema: root({
      type: 'object',
      properties: { pools: { type: 'object', additionalProperties: { type: 'object', properties: { size: { type: 'integer', default: 3 } } } } },
    }),
    spec: { pools: { a: {}, b: { size: 1 } } },
    want: { pools: { a: { size: 3 }, b: { size: 1 } } },
  },
  {
    reason: 'null in a non-nullable defaulted field becomes the default',
    schema: root({ type: 'object', properties: { replicas: { type: 'integer', default: 1 } } }),
    spec: { replicas: null },
    want: { replicas: 1 },
  },
  {
    reason: 'null in a non-nullable field without default is dropped',
    schema: root({ type: 'object', properties: { name: { type: 'string' } } }),
    spec: { name: null },
    want: {},
  },
  {
    reason: 'null in a nullable field stays, even with a default',
    schema: root({ type: 'object', properties: { name: { type: 'string', nullable: true, default: 'x' } } }),
    spec: { name: null },
    want: { name: null },
  },
  {
    reason: 'null list items with an items default are replaced',
    schema: root({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string', default: 'none' } } } }),
    spec: { tags: ['a', null] },
    want: { tags: ['a', 'none'] },
  },
  {
    reason: 'an object default is filled in whole',
    schema: root({ type: 'object', properties: { opts: { type: 'object', default: { a: 1 }, properties: { a: { type: 'integer' } } } } }),
    spec: {},
    want: { opts: { a: 1 } },
  },
];

describe('applyDefaults', () => {
  for (const c of cases) {
    test(c.reason, () => {
      const compiled = compileSchema(c.schema, { group: 'example.com', kind: 'Widget' });
      const o: Record<string, unknown> = { ...structuredClone(head), spec: structuredClone(c.spec) };
      compiled.applyDefaults(o);
      assert.deepEqual(o, { ...head, spec: c.want });
    });
  }

  test('a default object is copied, not shared', () => {
    const compiled = compileSchema(
      root({ type: 'object', properties: { opts: { type: 'object', default: { a: 1 }, properties: { a: { type: 'integer' } } } } }),
      {
        group: 'example.com',
        kind: 'Widget',
      },
    );
    const first: Record<string, unknown> = { ...structuredClone(head), spec: {} };
    compiled.applyDefaults(first);
    (first.spec as Record<string, Record<string, number>>).opts.a = 99;
    const second: Record<string, unknown> = { ...structuredClone(head), spec: {} };
    compiled.applyDefaults(second);
    assert.deepEqual(second.spec, { opts: { a: 1 } });
  });

  test('the root metadata is never defaulted or pruned of nulls', () => {
    const compiled = compileSchema(root({ type: 'object' }), { group: 'example.com', kind: 'Widget' });
    const o = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a', labels: null }, spec: {} };
    compiled.applyDefaults(o);
    assert.deepEqual(o.metadata, { name: 'a', labels: null });
  });
});
