import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../errors.js';
import type { KObject, ManagedFieldsEntry } from '../object.js';
import { apply } from './apply.js';
import { trackUpdate } from './track-update.js';
import { configMap, configMapSchema, owners, t0, t1, t2, widget, widgetSchema, widgetVersion } from './test-fixtures.js';

/** Creates a ConfigMap through an ordinary write by `manager`. */
function created(data: Record<string, string>, manager = 'creator'): KObject {
  const obj = configMap(data, { uid: 'u1' });
  obj.metadata.managedFields = trackUpdate({ updated: obj, manager, schema: configMapSchema, apiVersion: 'v1', now: t0 });
  return obj;
}

/** Writes `data` (and optional managedFields) over `old` as `manager`; returns the new list. */
function write(old: KObject, data: Record<string, string> | undefined, manager: string, managedFields?: unknown, now = t1): ManagedFieldsEntry[] {
  const updated = configMap(data, { uid: 'u1' });
  if (managedFields !== undefined) (updated.metadata as Record<string, unknown>).managedFields = managedFields;
  return trackUpdate({ old, updated, manager, schema: configMapSchema, apiVersion: 'v1', now });
}

describe('trackUpdate: ownership', () => {
  test('a create makes the writer own everything it set, maps included', () => {
    const obj = configMap({ a: '1' }, { labels: { app: 'x' } });
    assert.deepEqual(trackUpdate({ updated: obj, manager: 'creator', schema: configMapSchema, apiVersion: 'v1', now: t0 }), [
      {
        manager: 'creator',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2024-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ]);
  });

  const cases: { reason: string; run: () => ManagedFieldsEntry[]; want: { manager: string; operation: string; fields: unknown }[] }[] = [
    {
      reason: 'changed fields move to the writer; the rest stay',
      run: () => write(created({ a: '1', b: '2' }), { a: '9', b: '2' }, 'editor'),
      want: [
        { manager: 'creator', operation: 'Update', fields: { 'f:data': { '.': {}, 'f:b': {} } } },
        { manager: 'editor', operation: 'Update', fields: { 'f:data': { 'f:a': {} } } },
      ],
    },
    {
      reason: 'added fields belong to the writer',
      run: () => write(created({ a: '1' }), { a: '1', c: '3' }, 'editor'),
      want: [
        { manager: 'creator', operation: 'Update', fields: { 'f:data': { '.': {}, 'f:a': {} } } },
        { manager: 'editor', operation: 'Update', fields: { 'f:data': { 'f:c': {} } } },
      ],
    },
    {
      reason: 'removed fields leave every entry; entries left empty go',
      run: () => write(created({ a: '1' }), undefined, 'editor'),
      want: [],
    },
    {
      reason: 'a writer that only removes fields gets no entry',
      run: () => write(created({ a: '1', b: '2' }), { a: '1' }, 'editor'),
      want: [{ manager: 'creator', operation: 'Update', fields: { 'f:data': { '.': {}, 'f:a': {} } } }],
    },
    {
      reason: 'the writer adds to its existing entry',
      run: () => write(created({ a: '1' }), { a: '2', b: '2' }, 'creator'),
      want: [{ manager: 'creator', operation: 'Update', fields: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } } }],
    },
    {
      reason: 'an Apply manager loses a field an update changes',
      run: () => {
        const live = apply({ applied: configMap({ a: '1', b: '2' }), manager: 'kubectl', schema: configMapSchema, apiVersion: 'v1', now: t0 }).object;
        return write(live, { a: '1', b: '3' }, 'editor');
      },
      want: [
        { manager: 'kubectl', operation: 'Apply', fields: { 'f:data': { 'f:a': {} } } },
        { manager: 'editor', operation: 'Update', fields: { 'f:data': { 'f:b': {} } } },
      ],
    },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(owners(c.run()), c.want));

  test('a write that changes nothing keeps the list as it was, times included', () => {
    const old = created({ a: '1' });
    assert.deepEqual(write(old, { a: '1' }, 'editor', undefined, t2), old.metadata.managedFields);
    assert.deepEqual(write(old, { a: '1' }, 'creator', undefined, t2), old.metadata.managedFields);
  });

  test('the writer entry gets the write time when it takes fields', () => {
    const got = write(created({ a: '1' }), { a: '2' }, 'creator', undefined, t2);
    assert.equal(got[0]?.time, '2024-01-01T00:02:00Z');
  });

  test('Update entries are per version', () => {
    const old = widget({ replicas: 1 }, { uid: 'u' });
    old.metadata.managedFields = trackUpdate({ updated: old, manager: 'm', schema: widgetSchema, apiVersion: 'example.com/v1', now: t0 });
    const updated = widget({ replicas: 1, image: 'i' }, { uid: 'u' });
    const got = trackUpdate({ old, updated, manager: 'm', schema: widgetSchema, apiVersion: 'example.com/v2', now: t1 });
    assert.deepEqual(
      got.map((e) => [e.manager, e.apiVersion, e.fieldsV1]),
      [
        ['m', 'example.com/v1', { 'f:spec': { '.': {}, 'f:replicas': {} } }],
        ['m', 'example.com/v2', { 'f:spec': { 'f:image': {} } }],
      ],
    );
  });

  test('ignored paths (status on the main resource) are not tracked', () => {
    const old = widget({ replicas: 1 }, { uid: 'u' });
    old.metadata.managedFields = trackUpdate({ updated: old, manager: 'm', schema: widgetSchema, apiVersion: widgetVersion, now: t0 });
    const updated = { ...widget({ replicas: 2 }, { uid: 'u' }), status: { phase: 'Ready' } };
    const got = trackUpdate({ old, updated, manager: 'n', schema: widgetSchema, apiVersion: widgetVersion, now: t1, ignore: [['status']] });
    assert.deepEqual(owners(got), [
      { manager: 'm', operation: 'Update', fields: { 'f:spec': {} } },
      { manager: 'n', operation: 'Update', fields: { 'f:spec': { 'f:replicas': {} } } },
    ]);
  });
});

describe('trackUpdate: managedFields sent by the client', () => {
  test('an explicit empty list resets tracking', () => {
    assert.deepEqual(write(created({ a: '1' }), { a: '2' }, 'editor', []), []);
  });

  test('a list holding one empty entry resets tracking', () => {
    assert.deepEqual(write(created({ a: '1' }), { a: '2' }, 'editor', [{}]), []);
  });

  test('an object whose tracking was reset stays untracked by updates', () => {
    const untracked = configMap({ a: '1' }, { uid: 'u1' });
    assert.deepEqual(write(untracked, { a: '2' }, 'editor'), []);
  });

  test('a reset on create still tracks the create', () => {
    const obj = configMap({ a: '1' }, { managedFields: [] });
    assert.deepEqual(owners(trackUpdate({ updated: obj, manager: 'c', schema: configMapSchema, apiVersion: 'v1', now: t0 })), [
      { manager: 'c', operation: 'Update', fields: { 'f:data': { '.': {}, 'f:a': {} } } },
    ]);
  });

  test('valid managedFields replace the stored ones (clients may edit ownership)', () => {
    const old = created({ a: '1' });
    const edited = [{ manager: 'someone', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    assert.deepEqual(write(old, { a: '1' }, 'editor', edited), edited);
  });

  test('a subresource write ignores the managedFields it carries', () => {
    const old = created({ a: '1' });
    const got = write(old, { a: '1' }, 'editor', [
      { manager: 'x', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);
    assert.equal(got[0]?.manager, 'x', 'the main resource honours them');
    const updated = configMap(
      { a: '2' },
      { uid: 'u1', managedFields: [{ manager: 'x', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }] },
    );
    const sub = trackUpdate({ old, updated, manager: 'editor', schema: configMapSchema, apiVersion: 'v1', now: t1, subresource: 'status' });
    assert.deepEqual(
      sub.map((e) => [e.manager, e.subresource ?? '', e.fieldsV1]),
      [
        ['creator', '', { 'f:data': {} }],
        ['editor', 'status', { 'f:data': { 'f:a': {} } }],
      ],
    );
  });

  const bad: { reason: string; managedFields: unknown; field: string; message: RegExp }[] = [
    { reason: 'not a list', managedFields: { manager: 'x' }, field: 'metadata.managedFields', message: /must be a list/ },
    { reason: 'an entry that is not an object', managedFields: ['x'], field: 'metadata.managedFields[0]', message: /must be an object/ },
    {
      reason: 'an unknown operation',
      managedFields: [{ manager: 'x', operation: 'Patch', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }],
      field: 'metadata.managedFields[0].operation',
      message: /Unsupported value: "Patch": supported values: "Apply", "Update"/,
    },
    {
      reason: 'an unknown fieldsType',
      managedFields: [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV2', fieldsV1: {} }],
      field: 'metadata.managedFields[0].fieldsType',
      message: /Unsupported value: "FieldsV2"/,
    },
    {
      reason: 'undecodable fieldsV1',
      managedFields: [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { bad: {} } }],
      field: 'metadata.managedFields[0].fieldsV1',
      message: /field path element "bad" must start with/,
    },
    {
      reason: 'a time that is not a timestamp',
      managedFields: [{ manager: 'x', operation: 'Update', apiVersion: 'v1', time: 'yesterday', fieldsType: 'FieldsV1', fieldsV1: {} }],
      field: 'metadata.managedFields[0].time',
      message: /must be an RFC 3339 timestamp/,
    },
    {
      reason: 'two entries with one identity',
      managedFields: [
        { manager: 'x', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} },
        { manager: 'x', operation: 'Apply', apiVersion: 'v2', fieldsType: 'FieldsV1', fieldsV1: {} },
      ],
      field: 'metadata.managedFields[1]',
      message: /Duplicate value/,
    },
  ];
  for (const c of bad) {
    test(`rejects managedFields with ${c.reason} (422 naming the field)`, () => {
      assert.throws(
        () => write(created({ a: '1' }), { a: '1' }, 'editor', c.managedFields),
        (err: unknown) => {
          assert.ok(isApiError(err));
          assert.equal(err.code, 422);
          assert.equal(err.reason, 'Invalid');
          assert.match(err.message, /^ConfigMap "cm" is invalid: /);
          const cause = err.status.details?.causes?.[0];
          assert.equal(cause?.field, c.field);
          assert.match(cause?.message ?? '', c.message);
          return true;
        },
      );
    });
  }
});
