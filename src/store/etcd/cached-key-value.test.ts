import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedKeyValue, valueSize } from './cached-key-value.js';
import { ValueSearch } from '../types.js';
import { ValueSlabs } from './value-slabs.js';

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

test('its bytes are read without decoding: the head as Latin-1, a search, a prefix, copies of any range; never past the value', () => {
  const slabs = new ValueSlabs();
  const before = CachedKeyValue.of('/0', '{"needle":1,"other":2}', 1, 1, slabs);
  const long = `{"head":"${'h'.repeat(150)}"}`;
  const inSlabBefore = new ValueSearch(Buffer.from('"needle"'));
  const needle = new ValueSearch(Buffer.from('"note"'));
  for (const kv of [CachedKeyValue.of('/a', text, 3, 7, slabs), CachedKeyValue.of('/b', text, 3, 7), CachedKeyValue.of('/l', long, 1, 1, slabs)]) {
    const bytes = Buffer.from(kv.value, 'utf8');
    assert.equal(kv.valueHead(12), bytes.subarray(0, 12).toString('latin1'));
    assert.equal(kv.valueHead(10_000), bytes.toString('latin1'), 'the whole value when it is shorter');
    for (let i = 0; i < 2; i++) {
      // Asked twice: the second answer is the remembered one.
      assert.equal(kv.valueIncludes(needle), bytes.includes(needle.needle));
      assert.equal(kv.valueIncludes(inSlabBefore), false, 'not in this value, though in the slab before it');
    }
    for (const n of [0, 1, 20, 140, 152, bytes.length]) assert.equal(kv.valueStartsWith(bytes.subarray(0, n)), true, `its first ${n} bytes`);
    assert.equal(kv.valueStartsWith(Buffer.concat([bytes, Buffer.from('x')])), false, 'longer than the value');
    assert.equal(kv.valueStartsWith(Buffer.from('{"x')), false);
    const target = Buffer.alloc(bytes.length + 4, 0x2e);
    assert.equal(kv.copyValue(target, 2), bytes.length);
    assert.deepEqual(target.subarray(2, 2 + bytes.length), bytes);
    assert.equal(target[1], 0x2e);
    assert.equal(target[2 + bytes.length], 0x2e);
    const part = Buffer.alloc(5);
    assert.equal(kv.copyValue(part, 0, 3, 8), 5);
    assert.deepEqual(part, bytes.subarray(3, 8));
    assert.equal(kv.copyValue(part, 0, bytes.length - 2, bytes.length + 10), 2, 'not past the value');
  }
  assert.equal(before.valueIncludes(inSlabBefore), true);
  // More searches than a value remembers: each still answered.
  const kv = CachedKeyValue.of('/a', text, 3, 7, slabs);
  const searches = ['"data"', 'café', '🚀', 'absent', '東京', 'x', '{', '}', '"note":"naïve', 'naive', 'data'].map((n) => new ValueSearch(Buffer.from(n)));
  for (let i = 0; i < 2; i++) for (const s of searches) assert.equal(kv.valueIncludes(s), text.includes(s.needle.toString()), s.needle.toString());
});
