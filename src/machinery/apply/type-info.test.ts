import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../schema-types.js';
import type { JsonValue } from '../object.js';
import { encodeElement } from './field-path.js';
import type { ListType } from './type-info.js';
import { ListShapeError, listItemElements, listTypeOf } from './type-info.js';

describe('listTypeOf', () => {
  const cases: { reason: string; schema: JSONSchemaProps | undefined; want: ListType }[] = [
    { reason: 'no schema means atomic', schema: undefined, want: { type: 'atomic' } },
    { reason: 'a list without extensions is atomic', schema: { type: 'array', items: { type: 'string' } }, want: { type: 'atomic' } },
    { reason: 'x-kubernetes-list-type: set', schema: { type: 'array', 'x-kubernetes-list-type': 'set' }, want: { type: 'set' } },
    {
      reason: 'x-kubernetes-list-type: map with its keys',
      schema: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
      want: { type: 'map', keys: ['name'] },
    },
    {
      reason: 'a map list without keys cannot merge by key, so it is atomic',
      schema: { type: 'array', 'x-kubernetes-list-type': 'map' },
      want: { type: 'atomic' },
    },
    {
      reason: 'a patch merge key (built-in kinds) makes a map-list',
      schema: { type: 'array', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
      want: { type: 'map', keys: ['name'] },
    },
    {
      reason: 'an explicit list type wins over the patch merge key',
      schema: { type: 'array', 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-patch-merge-key': 'name' },
      want: { type: 'atomic' },
    },
    {
      reason: 'a merge strategy on scalars (finalizers) makes a set',
      schema: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
      want: { type: 'set' },
    },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(listTypeOf(c.schema), c.want));
});

describe('listItemElements', () => {
  const items: JSONSchemaProps = { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } };
  const cases: { reason: string; list: JsonValue[]; lt: ListType; want: string[] | RegExp }[] = [
    {
      reason: 'map items are keyed by their key fields',
      list: [{ name: 'a' }, { name: 'b' }],
      lt: { type: 'map', keys: ['name'] },
      want: ['k:{"name":"a"}', 'k:{"name":"b"}'],
    },
    {
      reason: 'a missing key takes its schema default',
      list: [{ port: 80 }],
      lt: { type: 'map', keys: ['port', 'protocol'] },
      want: ['k:{"port":80,"protocol":"TCP"}'],
    },
    { reason: 'set items are keyed by value', list: ['a', 1], lt: { type: 'set' }, want: ['v:"a"', 'v:1'] },
    {
      reason: 'a missing key without default is an error',
      list: [{ port: 1 }, {}],
      lt: { type: 'map', keys: ['port'] },
      want: /element 1: associative list with keys has an element that omits key field "port"/,
    },
    {
      reason: 'duplicate keys are an error',
      list: [{ name: 'a' }, { name: 'a' }],
      lt: { type: 'map', keys: ['name'] },
      want: /duplicate entries for key \[name="a"\]/,
    },
    { reason: 'duplicate set values are an error', list: ['a', 'a'], lt: { type: 'set' }, want: /duplicate entries for value "a"/ },
    {
      reason: 'a key that is an object is an error',
      list: [{ name: {} }],
      lt: { type: 'map', keys: ['name'] },
      want: /key field "name" must be a string, number or boolean/,
    },
    {
      reason: 'a map item that is not an object is an error',
      list: ['x'],
      lt: { type: 'map', keys: ['name'] },
      want: /element 0: associative list item must be an object/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = listItemElements(c.list, c.lt, items);
      if (c.want instanceof RegExp) {
        assert.ok(got instanceof ListShapeError, 'wanted an error');
        assert.match(got.message, c.want);
      } else {
        assert.ok(!(got instanceof ListShapeError), `unexpected error ${String(got)}`);
        assert.deepEqual(got.map(encodeElement), c.want);
      }
    });
  }
});
