import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import { configMapResourceType } from './config-map.js';

const rt = configMapResourceType();
const validate = rt.strategy.validate!.bind(rt.strategy);

function cm(fields: Record<string, unknown>): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, ...fields };
}

function summary(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field ?? '<object>'} ${c.reason}`);
}

describe('ConfigMap validation on create', () => {
  const cases: { reason: string; obj: KObject; want: string[] }[] = [
    { reason: 'text and binary entries with good keys are valid', obj: cm({ data: { 'app.properties': 'a=b' }, binaryData: { logo: 'iVBORw==' } }), want: [] },
    { reason: 'an empty config map is valid', obj: cm({}), want: [] },
    { reason: 'data keys must be config keys', obj: cm({ data: { 'a/b': 'x' } }), want: ['data[a/b] FieldValueInvalid'] },
    { reason: 'binary keys must be config keys', obj: cm({ binaryData: { '.': 'eA==' } }), want: ['binaryData[.] FieldValueInvalid'] },
    {
      reason: 'keys named like object methods are ordinary keys',
      obj: cm({ data: { toString: 'x', constructor: 'y' }, binaryData: { valueOf: 'eA==' } }),
      want: [],
    },
    { reason: 'a key may not be in both maps', obj: cm({ data: { k: 'x' }, binaryData: { k: 'eA==' } }), want: ['data[k] FieldValueInvalid'] },
    {
      reason: 'both maps share the 1 MiB limit, which concerns the whole object',
      obj: cm({ data: { a: 'x'.repeat(1024 * 1024 - 1) }, binaryData: { b: Buffer.alloc(2).toString('base64') } }),
      want: ['<object> FieldValueTooLong'],
    },
    { reason: 'multi-byte characters count as bytes', obj: cm({ data: { a: 'é'.repeat(512 * 1024 + 1) } }), want: ['<object> FieldValueTooLong'] },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(summary(validate(c.obj, { operation: 'create', subresource: '' })), c.want));
  }
  test('the duplicate message names the other map', () => {
    const [cause] = validate(cm({ data: { k: 'x' }, binaryData: { k: 'eA==' } }), { operation: 'create', subresource: '' });
    assert.equal(cause.message, 'Invalid value: "k": duplicate of key present in binaryData');
  });
});

describe('ConfigMap validation on update', () => {
  const cases: { reason: string; old: KObject; next: KObject; want: string[] }[] = [
    { reason: 'mutable data may change', old: cm({ data: { a: '1' } }), next: cm({ data: { a: '2' } }), want: [] },
    {
      reason: 'immutable data may not change',
      old: cm({ immutable: true, data: { a: '1' } }),
      next: cm({ immutable: true, data: { a: '2' } }),
      want: ['data FieldValueForbidden'],
    },
    {
      reason: 'immutable binary data may not change',
      old: cm({ immutable: true, binaryData: { a: 'eA==' } }),
      next: cm({ immutable: true, binaryData: {} }),
      want: ['binaryData FieldValueForbidden'],
    },
    { reason: 'immutable may not be unset', old: cm({ immutable: true }), next: cm({ immutable: false }), want: ['immutable FieldValueForbidden'] },
    { reason: 'an empty map equals a missing one', old: cm({ immutable: true }), next: cm({ immutable: true, data: {} }), want: [] },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(summary(validate(c.next, { operation: 'update', old: c.old, subresource: '' })), c.want));
  }
});

describe('ConfigMap table', () => {
  test('DATA counts entries of both maps', () => {
    assert.deepEqual(
      rt.printerColumns.map((c) => c.name),
      ['Data'],
    );
    assert.equal(rt.printerColumns[0].cell!(cm({ data: { a: '1', b: '2' }, binaryData: { c: 'eA==' } })), 3);
    assert.equal(rt.printerColumns[0].cell!(cm({})), 0);
  });
});
