import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareUtf8, ListedPrefixes, SortedKeys } from './sorted-keys.js';

/** A small deterministic random generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The order etcd gives: UTF-8 bytes. */
const etcdOrder = (keys: Iterable<string>) => [...keys].sort(compareUtf8);

test('sorted keys stay in etcd byte order through thousands of adds and removes, pages included', () => {
  for (const seed of [1, 2, 3]) {
    const next = random(seed);
    // Characters whose UTF-16 order differs from their UTF-8 order come in late (seed 3: never).
    const alphabet = seed === 3 ? ['a', 'b', 'c', '/', 'é'] : ['a', 'b', 'c', '/', 'é', '\uffff', '😀'];
    const name = (bmp: boolean) =>
      Array.from({ length: 1 + Math.floor(next() * 6) }, () => alphabet[Math.floor(next() * (bmp ? 5 : alphabet.length))]).join('');
    const held = new Set<string>();
    for (let i = 0; i < 300; i++) held.add(name(true));
    const sorted = new SortedKeys([...held]);
    for (let step = 0; step < 4_000; step++) {
      const key = name(step < 2_000);
      if (held.has(key)) {
        held.delete(key);
        sorted.remove(key);
      } else {
        held.add(key);
        sorted.add(key);
      }
      if (step % 500 !== 0) continue;
      const want = etcdOrder(held);
      assert.equal(sorted.size, want.length, `seed ${seed} step ${step}`);
      assert.deepEqual(sorted.all(), want, `seed ${seed} step ${step}`);
      for (const limit of [0, 1, 7]) {
        const after = want[Math.floor(next() * want.length)];
        const page = sorted.page(after, limit);
        const rest = want.slice(want.indexOf(after) + 1);
        const expected = limit > 0 ? rest.slice(0, limit) : rest;
        assert.deepEqual(page.keys, expected, `after ${after} limit ${limit}`);
        assert.equal(page.remaining, rest.length - expected.length);
      }
    }
    // A start after a key that is not held, before the first and after the last.
    const want = etcdOrder(held);
    assert.deepEqual(sorted.page('', 0).keys, want);
    assert.deepEqual(sorted.page('\u{10ffff}', 0), { keys: [], remaining: 0 });
    assert.deepEqual(sorted.page(undefined, 2), { keys: want.slice(0, 2), remaining: want.length - 2 });
    sorted.remove('not held');
    assert.equal(sorted.size, want.length);
  }
  const empty = new SortedKeys([]);
  assert.deepEqual(empty.page(undefined, 0), { keys: [], remaining: 0 });
  empty.add('x');
  assert.deepEqual(empty.page('a', 0), { keys: ['x'], remaining: 0 });
});

test('listed prefixes: sorted on first use, kept current after, the one used longest ago goes first', () => {
  const all = new Set(['/a/2', '/a/1', '/b/1', '/c/1']);
  let passes = 0;
  const keys = () => {
    passes++;
    return all;
  };
  const listed = new ListedPrefixes(2);
  assert.deepEqual(listed.sorted('/a/', keys).all(), ['/a/1', '/a/2']);
  assert.deepEqual(listed.sorted('/b/', keys).all(), ['/b/1']);
  assert.equal(passes, 2);
  all.add('/a/0');
  listed.added('/a/0');
  all.delete('/b/1');
  listed.removed('/b/1');
  assert.deepEqual(listed.sorted('/a/', keys).all(), ['/a/0', '/a/1', '/a/2'], 'kept current, not sorted again');
  assert.deepEqual(listed.sorted('/b/', keys).all(), []);
  assert.equal(passes, 2);
  // A third prefix: '/a/' was used longest ago and goes.
  listed.sorted('/c/', keys);
  assert.equal(listed.size, 2);
  listed.sorted('/b/', keys);
  assert.equal(passes, 3, '/b/ was still held');
  listed.sorted('/a/', keys);
  assert.equal(passes, 4, '/a/ was sorted again');
  listed.clear();
  assert.equal(listed.size, 0);
});
