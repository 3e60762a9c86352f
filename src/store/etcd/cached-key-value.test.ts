import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedKeyValue, valueSize } from './cached-key-value.js';

// Two-, three- and four-byte UTF-8 characters (the last a surrogate pair in a JS string).
const text = '{"data":{"note":"naïve café – 東京 🚀"}}';

test('a kept value comes back as the text it was given, ASCII or not, and counts its UTF-8 bytes', () => {
  const kv = CachedKeyValue.of('/a', text, 3, 7);
  const other = CachedKeyValue.of('/b', 'plain', 4, 8);
  assert.equal(kv.value, text);
  assert.equal(kv.value, text, 'every read decodes the same text');
  assert.equal(other.value, 'plain', 'values side by side');
  assert.equal(kv.byteLength, Buffer.byteLength(text, 'utf8'));
  assert.equal(valueSize(kv), Buffer.byteLength(text, 'utf8'));
  assert.equal(valueSize({ key: '/b', value: 'abc', createRevision: 1, modRevision: 1 }), 3);
  assert.deepEqual([kv.key, kv.createRevision, kv.modRevision], ['/a', 3, 7]);
  const empty = CachedKeyValue.of('/e', '', 1, 1);
  assert.equal(empty.value, '');
  assert.equal(empty.byteLength, 0);
  const large = 'x'.repeat(200_000) + text;
  assert.equal(CachedKeyValue.of('/l', large, 1, 1).value, large, 'a large value');
});

test('a cached KeyValue cannot be changed, and a copy made by spreading carries only the value it is given', () => {
  const kv = CachedKeyValue.of('/a', text, 3, 7);
  assert.ok(kv instanceof CachedKeyValue);
  assert.ok(Object.isFrozen(kv));
  assert.throws(() => {
    (kv as { value: string }).value = 'changed';
  }, TypeError);
  assert.throws(() => {
    (kv as { modRevision: number }).modRevision = 8;
  }, TypeError);
  assert.equal(kv.value, text);
  // What the encrypting store does with a sealed value: its copy holds the opened text.
  const copy = { ...kv, value: 'opened' };
  assert.deepEqual(copy, { key: '/a', value: 'opened', createRevision: 3, modRevision: 7 });
  assert.deepEqual(JSON.parse(JSON.stringify(kv)), { key: '/a', value: text, createRevision: 3, modRevision: 7 });
});

test('at gives the same value under other revisions (a delete event carrying the last value)', () => {
  const kv = CachedKeyValue.of('/a', text, 3, 7);
  const deleted = kv.at('/a', 3, 9);
  assert.notEqual(deleted, kv);
  assert.ok(Object.isFrozen(deleted));
  assert.equal(deleted.value, text);
  assert.deepEqual([deleted.key, deleted.createRevision, deleted.modRevision], ['/a', 3, 9]);
  assert.equal(kv.modRevision, 7, 'the original is unchanged');
});
