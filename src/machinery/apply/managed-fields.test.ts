import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldElement as f } from './field-path.js';
import { FieldSet } from './field-set.js';
import type { FieldsEntry } from './managed-fields.js';
import { capUpdateManagers, decodeStoredManagedFields, describeManager, encodeManagedFields, isResetManagedFields } from './managed-fields.js';

describe('isResetManagedFields', () => {
  const cases: { reason: string; value: unknown; want: boolean }[] = [
    { reason: 'absent is not a reset', value: undefined, want: false },
    { reason: 'null is not a reset', value: null, want: false },
    { reason: 'an explicit empty list is a reset', value: [], want: true },
    { reason: 'one empty entry is a reset', value: [{}], want: true },
    { reason: 'one real entry is not', value: [{ manager: 'x' }], want: false },
    { reason: 'two empty entries are not', value: [{}, {}], want: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(isResetManagedFields(c.value), c.want));
});

describe('describeManager', () => {
  const cases: { reason: string; entry: Pick<FieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>; want: string }[] = [
    { reason: 'an Apply manager is its name', entry: { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' }, want: '"kubectl"' },
    { reason: 'an Update manager adds its version', entry: { manager: 'kcm', operation: 'Update', apiVersion: 'apps/v1' }, want: '"kcm" using apps/v1' },
    {
      reason: 'a subresource comes before the version',
      entry: { manager: 'kcm', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' },
      want: '"kcm" with subresource "status" using apps/v1',
    },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(describeManager(c.entry), c.want));
});

describe('decodeStoredManagedFields', () => {
  test('skips entries that do not decode and keeps the rest', () => {
    const got = decodeStoredManagedFields([
      { manager: 'ok', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:a': {} } },
      { manager: 'bad', operation: 'Nope', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} },
      'garbage',
    ]);
    assert.deepEqual(
      got.map((e) => e.manager),
      ['ok'],
    );
  });
  test('anything but a list is no entries', () => {
    assert.deepEqual(decodeStoredManagedFields({}), []);
  });
});

describe('encodeManagedFields', () => {
  test('writes fields in Kubernetes order and omits absent time and subresource', () => {
    const [e] = encodeManagedFields([{ manager: 'm', operation: 'Update', apiVersion: 'v1', set: FieldSet.of([f('a')]) }]);
    assert.deepEqual(Object.keys(e ?? {}), ['manager', 'operation', 'apiVersion', 'fieldsType', 'fieldsV1']);
    const [s] = encodeManagedFields([{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: 't', subresource: 'status', set: FieldSet.of([f('a')]) }]);
    assert.deepEqual(Object.keys(s ?? {}), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);
  });
});

describe('capUpdateManagers', () => {
  const update = (n: number, version = 'v1'): FieldsEntry => ({
    manager: `m${n}`,
    operation: 'Update',
    apiVersion: version,
    time: new Date(Date.UTC(2024, 0, 1, 0, n)).toISOString(),
    set: FieldSet.of([f(`field${n}`)]),
  });

  test('at the cap nothing changes', () => {
    const entries = [1, 2, 3].map((n) => update(n));
    assert.deepEqual(
      capUpdateManagers(entries, 3).map((e) => e.manager),
      ['m1', 'm2', 'm3'],
    );
  });

  test('over the cap the oldest entries of a version fold into ancient-changes', () => {
    const entries: FieldsEntry[] = [
      { manager: 'applier', operation: 'Apply', apiVersion: 'v1', set: FieldSet.of([f('x')]) },
      ...[1, 2, 3, 4].map((n) => update(n)),
    ];
    const got = capUpdateManagers(entries, 2);
    assert.deepEqual(
      got.map((e) => e.manager),
      ['applier', 'ancient-changes', 'm4'],
    );
    const bucket = got[1];
    assert.deepEqual(bucket?.set.toStrings(), ['.field1', '.field2', '.field3']);
    assert.equal(bucket?.time, '2024-01-01T00:03:00.000Z');
    assert.equal(entries[1]?.manager, 'm1', 'the input is not changed');
  });

  test('versions fold separately', () => {
    const entries = [update(1, 'v1'), update(2, 'v2'), update(3, 'v1'), update(4, 'v2'), update(5, 'v1')];
    const got = capUpdateManagers(entries, 3);
    assert.deepEqual(
      got.map((e) => `${e.manager}@${e.apiVersion}`),
      ['ancient-changes@v1', 'ancient-changes@v2', 'm5@v1'],
    );
  });
});
