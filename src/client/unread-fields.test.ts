import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject, ManagedFieldsEntry } from '../machinery/object.js';
import { dropUnreadFields, LAST_APPLIED_ANNOTATION } from './unread-fields.js';

const managedFields: ManagedFieldsEntry[] = [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }];
const base = (metadata: KObject['metadata']): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns', ...metadata },
  data: { k: 'v' },
});

describe('dropUnreadFields', () => {
  const cases: { reason: string; in: KObject; want: KObject }[] = [
    { reason: 'managedFields are dropped', in: base({ managedFields }), want: base({}) },
    {
      reason: 'the last-applied annotation is dropped, other annotations are kept',
      in: base({ annotations: { [LAST_APPLIED_ANNOTATION]: '{"big":"copy"}', keep: 'me' } }),
      want: base({ annotations: { keep: 'me' } }),
    },
    { reason: 'annotations left empty go altogether', in: base({ annotations: { [LAST_APPLIED_ANNOTATION]: '{}' }, managedFields }), want: base({}) },
    {
      reason: 'an object with neither is unchanged',
      in: base({ labels: { a: 'b' }, annotations: { keep: 'me' } }),
      want: base({ labels: { a: 'b' }, annotations: { keep: 'me' } }),
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = structuredClone(c.in);
      const got = dropUnreadFields(c.in);
      assert.deepEqual(got, c.want);
      assert.deepEqual(c.in, before, 'the argument must not change: it may be shared with other watchers');
    });
  }

  test('returns the object itself when there is nothing to drop, and shares the unchanged parts otherwise', () => {
    const plain = base({});
    assert.equal(dropUnreadFields(plain), plain);
    const withFields = base({ managedFields });
    assert.equal(dropUnreadFields(withFields).data, withFields.data);
  });

  test('works on frozen objects', () => {
    const frozen = Object.freeze(base({ managedFields: Object.freeze(managedFields) as ManagedFieldsEntry[] }));
    Object.freeze(frozen.metadata);
    assert.equal(dropUnreadFields(frozen).metadata.managedFields, undefined);
  });
});
