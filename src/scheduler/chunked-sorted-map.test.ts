import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChunkedSortedMap, DEFAULT_CHUNK_SIZE } from './chunked-sorted-map.js';

/** A model of the map: entries in a plain array kept sorted by key (as `<` orders strings). */
class SortedArrayModel {
  readonly entries: [string, number][] = [];

  private find(key: string): number {
    let i = 0;
    while (i < this.entries.length && this.entries[i][0] < key) i++;
    return i;
  }

  set(key: string, v: number): boolean {
    const i = this.find(key);
    if (this.entries[i]?.[0] === key) {
      this.entries[i][1] = v;
      return false;
    }
    this.entries.splice(i, 0, [key, v]);
    return true;
  }

  delete(key: string): boolean {
    const i = this.find(key);
    if (this.entries[i]?.[0] !== key) return false;
    this.entries.splice(i, 1);
    return true;
  }
}

function walk(m: ChunkedSortedMap<number>): [string, number][] {
  const out: [string, number][] = [];
  for (const c = m.cursor(); c.key !== undefined; c.next()) out.push([c.key, c.value!]);
  return out;
}

function visited(m: ChunkedSortedMap<number>): [string, number][] {
  const out: [string, number][] = [];
  assert.equal(
    m.forEach((v, k) => {
      out.push([k, v]);
      return true;
    }),
    true,
  );
  return out;
}

describe('ChunkedSortedMap', () => {
  test('keeps entries in key order whatever order they are added in', () => {
    const m = new ChunkedSortedMap<number>(4);
    const keys = ['m', 'c', 'x', 'a', 'q', 'b', 'z', 'k', 'e', 'd'];
    keys.forEach((k, i) => assert.equal(m.set(k, i), true, `${k} is new`));
    assert.equal(m.size, keys.length);
    assert.deepEqual(m.keys(), [...keys].sort());
    assert.ok(m.chunkCount > 1, 'ten entries in chunks of four need several chunks');
  });

  const cases: { reason: string; ops: (m: ChunkedSortedMap<number>) => unknown; want: unknown }[] = [
    {
      reason: 'set on an existing key replaces the value and says it is not new',
      ops: (m) => [m.set('a', 1), m.set('a', 2), m.get('a'), m.size],
      want: [true, false, 2, 1],
    },
    { reason: 'delete of a missing key says so and changes nothing', ops: (m) => [m.set('a', 1), m.delete('b'), m.size], want: [true, false, 1] },
    { reason: 'delete on an empty map says so', ops: (m) => [m.delete('a'), m.size, m.chunkCount], want: [false, 0, 0] },
    {
      reason: 'get and has of a missing key',
      ops: (m) => [m.set('b', 1), m.get('a'), m.has('a'), m.get('c'), m.has('b')],
      want: [true, undefined, false, undefined, true],
    },
    {
      reason: 'deleting the last entry leaves no chunk behind',
      ops: (m) => [m.set('a', 1), m.delete('a'), m.size, m.chunkCount, m.keys()],
      want: [true, true, 0, 0, []],
    },
    {
      reason: 'clear empties the map',
      ops: (m) => [m.set('a', 1), m.set('b', 2), m.clear(), m.size, m.keys(), m.get('a')],
      want: [true, true, undefined, 0, [], undefined],
    },
    {
      reason: 'keys order by UTF-16 code units, as < does',
      ops: (m) => [m.set('b', 0), m.set('B', 0), m.set('a-b', 0), m.set('a/b', 0), m.set('é', 0), m.keys()],
      want: [true, true, true, true, true, ['B', 'a-b', 'a/b', 'b', 'é']],
    },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(c.ops(new ChunkedSortedMap<number>(4)), c.want));

  test('forEach stops when the visitor returns false, and says so', () => {
    const m = new ChunkedSortedMap<number>(4);
    for (let i = 0; i < 20; i++) m.set(`k${String(i).padStart(2, '0')}`, i);
    const seen: number[] = [];
    assert.equal(
      m.forEach((v) => {
        seen.push(v);
        return v < 6;
      }),
      false,
    );
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6]);
  });

  test('refuses a chunk size below 4 or not whole', () => {
    assert.throws(() => new ChunkedSortedMap(3), /chunk size is 3: expected a whole number ≥ 4/);
    assert.throws(() => new ChunkedSortedMap(10.5), /expected a whole number ≥ 4/);
    assert.equal(new ChunkedSortedMap().size, 0, `default chunk size ${DEFAULT_CHUNK_SIZE}`);
  });

  test('ten thousand entries taken out from the front one by one stay in order and balanced', () => {
    const m = new ChunkedSortedMap<number>();
    const n = 10_000;
    for (let i = 0; i < n; i++) m.set(`r-${String(i).padStart(5, '0')}`, i);
    for (let i = 0; i < n - 1; i++) {
      assert.equal(m.delete(`r-${String(i).padStart(5, '0')}`), true);
      if (i % 1000 === 0) {
        assert.equal(m.cursor().value, i + 1);
        assert.ok(m.chunkCount <= Math.max(1, Math.floor(m.size / (DEFAULT_CHUNK_SIZE >>> 2))), `${m.chunkCount} chunks for ${m.size} entries`);
      }
    }
    assert.deepEqual(m.keys(), [`r-${String(n - 1).padStart(5, '0')}`]);
  });

  test('thinning out every chunk merges thin chunks, so the chunk list shrinks with the entries', () => {
    const m = new ChunkedSortedMap<number>(16);
    const key = (i: number) => `k${String(i).padStart(4, '0')}`;
    for (let i = 0; i < 1000; i++) m.set(key(i), i);
    const before = m.chunkCount;
    for (let i = 0; i < 1000; i++) if (i % 10 !== 0) m.delete(key(i));
    assert.equal(m.size, 100);
    assert.ok(m.chunkCount <= 100 / 4, `${m.chunkCount} chunks (from ${before}) hold 100 entries, at least 4 each`);
    assert.deepEqual(
      m.keys(),
      Array.from({ length: 100 }, (_, i) => key(i * 10)),
    );
  });

  test('random sets, upserts and deletes match a sorted-array model, in every way of reading it', () => {
    // Keys from a small alphabet so that sets hit existing keys and deletes hit present ones.
    const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '/', '-', 'Z'), minLength: 0, maxLength: 4 });
    const op = fc.oneof(
      { weight: 3, arbitrary: fc.tuple(fc.constant('set' as const), key, fc.integer()) },
      { weight: 2, arbitrary: fc.tuple(fc.constant('delete' as const), key, fc.constant(0)) },
      // A run of ascending keys, as resources are often added in order.
      { weight: 1, arbitrary: fc.tuple(fc.constant('run' as const), key, fc.integer({ min: 1, max: 30 })) },
    );
    fc.assert(
      fc.property(fc.constantFrom(4, 5, 8, 16, DEFAULT_CHUNK_SIZE), fc.array(op, { maxLength: 300 }), (chunkSize, ops) => {
        const m = new ChunkedSortedMap<number>(chunkSize);
        const model = new SortedArrayModel();
        for (const [kind, k, v] of ops) {
          if (kind === 'set') assert.equal(m.set(k, v), model.set(k, v));
          else if (kind === 'delete') assert.equal(m.delete(k), model.delete(k));
          else for (let i = 0; i < v; i++) assert.equal(m.set(`${k}${String(i).padStart(2, '0')}`, i), model.set(`${k}${String(i).padStart(2, '0')}`, i));
          assert.equal(m.size, model.entries.length);
        }
        assert.deepEqual([...m.entries()], model.entries);
        assert.deepEqual(walk(m), model.entries);
        assert.deepEqual(visited(m), model.entries);
        assert.deepEqual(
          m.keys(),
          model.entries.map(([k]) => k),
        );
        for (const [k, v] of model.entries) assert.equal(m.get(k), v);
        // Every chunk but a lone one holds at least a quarter of the chunk size.
        const min = chunkSize >>> 2;
        assert.ok(
          m.chunkCount <= (m.size === 0 ? 0 : Math.max(1, Math.floor(m.size / min))),
          `${m.chunkCount} chunks for ${m.size} entries of at least ${min}`,
        );
      }),
      { numRuns: 300 },
    );
  });
});
