import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../schema-types.js';
import { isApiError } from '../errors.js';
import type { JsonValue } from '../object.js';
import { fieldSetOf } from './field-set-of.js';
import { configMap, configMapSchema, widget, widgetSchema } from './test-fixtures.js';

const obj = (v: unknown): JsonValue => v as JsonValue;

describe('fieldSetOf', () => {
  const cases: { reason: string; object: JsonValue; schema?: JSONSchemaProps; ignore?: string[][]; want: JsonValue }[] = [
    {
      reason: 'identity metadata, apiVersion and kind are never owned',
      object: obj(widget(undefined, { uid: 'u', resourceVersion: '3', generation: 2, creationTimestamp: 'x' })),
      schema: widgetSchema,
      want: {},
    },
    {
      reason: 'declared fields own their leaves; free map keys own themselves',
      object: obj(configMap({ a: '1' }, { labels: { app: 'x' } })),
      schema: configMapSchema,
      want: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
    },
    {
      reason: 'map-list items own themselves and their fields (keyed with defaults); set items own their value',
      object: obj(widget({ ports: [{ port: 80, name: 'http' }], tags: ['a', 'b'] })),
      schema: widgetSchema,
      want: {
        'f:spec': {
          'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
          'f:tags': { 'v:"a"': {}, 'v:"b"': {} },
        },
      },
    },
    {
      reason: 'a patch merge key makes items keyed; owner references are keyed by uid; finalizers are a set',
      object: obj(
        widget({ containers: [{ name: 'c', image: 'i' }] }, { finalizers: ['f'], ownerReferences: [{ uid: 'o', kind: 'K', name: 'n', apiVersion: 'v1' }] }),
      ),
      schema: widgetSchema,
      want: {
        'f:metadata': {
          'f:finalizers': { 'v:"f"': {} },
          'f:ownerReferences': { 'k:{"uid":"o"}': { '.': {}, 'f:apiVersion': {}, 'f:kind': {}, 'f:name': {}, 'f:uid': {} } },
        },
        'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    },
    {
      reason: 'atomic lists and atomic maps are single leaves',
      object: obj(widget({ args: ['x', 'y'], selector: { a: 'b' } })),
      schema: widgetSchema,
      want: { 'f:spec': { 'f:args': {}, 'f:selector': {} } },
    },
    {
      reason: 'preserve-unknown-fields objects are granular maps whose keys own themselves',
      object: obj(widget({ config: { nested: { deep: 1 } } })),
      schema: widgetSchema,
      want: { 'f:spec': { 'f:config': { 'f:nested': { '.': {}, 'f:deep': {} } } } },
    },
    {
      reason: 'empty maps and nulls are owned as values',
      object: obj(widget({ config: {}, note: null })),
      schema: widgetSchema,
      want: { 'f:spec': { 'f:config': {}, 'f:note': {} } },
    },
    {
      reason: 'without a schema, maps are granular and lists atomic',
      object: obj(widget({ list: [{ a: 1 }], m: { k: 'v' } })),
      want: { 'f:spec': { '.': {}, 'f:list': {}, 'f:m': { '.': {}, 'f:k': {} } } },
    },
    {
      reason: 'ignored prefixes are left out',
      object: obj({ ...widget({ replicas: 1 }), status: { phase: 'Ready' } }),
      schema: widgetSchema,
      ignore: [['status']],
      want: { 'f:spec': { 'f:replicas': {} } },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(fieldSetOf(c.object, c.schema, { ignore: c.ignore }).toFieldsV1(), c.want);
    });
  }

  test('a map-list item without its key is a 400 naming the list', () => {
    assert.throws(
      () => fieldSetOf(obj(widget({ containers: [{ image: 'i' }] })), widgetSchema),
      (err: unknown) =>
        isApiError(err) &&
        err.code === 400 &&
        /\.spec\.containers: element 0: associative list with keys has an element that omits key field "name"/.test(err.message),
    );
  });
});
