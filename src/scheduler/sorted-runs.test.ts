import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChunkedSortedMap } from './chunked-sorted-map.js';
import { ArrayRun, forEachInKeyOrder, type SortedRun } from './sorted-runs.js';
import { resource } from './testing/index.js';
import type { ResourceCandidate } from './types.js';

/** A resource named after its key, so visits can be read back as keys. */
function r(key: string): ResourceCandidate {
  return resource({ name: key });
}

function chunked(keys: readonly string[], chunkSize = 4): ChunkedSortedMap<ResourceCandidate> {
  const m = new ChunkedSortedMap<ResourceCandidate>(chunkSize);
  for (const k of keys) m.set(k, r(k));
  return m;
}

/** visit collects keys, stopping after `limit` (the visitor returns false on the last). */
function collect(runs: readonly SortedRun[], skip?: ReadonlySet<string>, limit = Infinity): { keys: string[]; complete: boolean } {
  const keys: string[] = [];
  const complete = forEachInKeyOrder(runs, skip, (c, k) => {
    assert.equal(c.name, k, 'the resource comes with its own key');
    keys.push(k);
    return keys.length < limit;
  });
  return { keys, complete };
}

describe('forEachInKeyOrder', () => {
  const cases: { reason: string; runs: () => SortedRun[]; skip?: string[]; limit?: number; want: { keys: string[]; complete: boolean } }[] = [
    { reason: 'no runs: nothing to visit, complete', runs: () => [], want: { keys: [], complete: true } },
    { reason: 'empty runs are ignored', runs: () => [chunked([]), new ArrayRun([], [])], want: { keys: [], complete: true } },
    { reason: 'one run is visited in its order', runs: () => [chunked(['c', 'a', 'b'])], want: { keys: ['a', 'b', 'c'], complete: true } },
    {
      reason: 'several runs are merged',
      runs: () => [chunked(['a', 'd', 'g']), chunked(['b', 'e']), new ArrayRun(['c', 'f'], [r('c'), r('f')])],
      want: { keys: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], complete: true },
    },
    { reason: 'skipped keys are left out, alone', runs: () => [chunked(['a', 'b', 'c'])], skip: ['b'], want: { keys: ['a', 'c'], complete: true } },
    {
      reason: 'skipped keys are left out, merged',
      runs: () => [chunked(['a', 'c']), chunked(['b', 'd'])],
      skip: ['a', 'd'],
      want: { keys: ['b', 'c'], complete: true },
    },
    {
      reason: 'a visitor returning false stops the merge',
      runs: () => [chunked(['a', 'c']), chunked(['b', 'd'])],
      limit: 3,
      want: { keys: ['a', 'b', 'c'], complete: false },
    },
    {
      reason: 'an unsorted run alone is visited as it is',
      runs: () => [new ArrayRun(['b', 'a'], [r('b'), r('a')], false)],
      want: { keys: ['b', 'a'], complete: true },
    },
    {
      reason: 'an unsorted empty run does not count',
      runs: () => [new ArrayRun([], [], false), chunked(['b', 'a'])],
      want: { keys: ['a', 'b'], complete: true },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(collect(c.runs(), c.skip === undefined ? undefined : new Set(c.skip), c.limit), c.want));
  }

  test('an unsorted run cannot be merged with others', () => {
    assert.throws(() => collect([new ArrayRun(['b', 'a'], [r('b'), r('a')], false), chunked(['c'])]), /an unsorted run can only be visited alone/);
  });

  test('an ArrayRun needs one key per resource', () => {
    assert.throws(() => new ArrayRun(['a'], []), /1 keys for 0 resources/);
  });

  test('merging random runs equals sorting their union, with skips and early stops', () => {
    const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-', '/'), minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(
        fc
          .uniqueArray(key, { maxLength: 60 })
          .chain((keys) =>
            fc.tuple(
              fc.constant(keys),
              fc.array(fc.nat({ max: 3 }), { minLength: keys.length, maxLength: keys.length }),
              fc.subarray(keys),
              fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
              fc.boolean(),
            ),
          ),
        ([keys, runOf, skipped, limit, asArrays]) => {
          const parts: string[][] = [[], [], [], []];
          keys.forEach((k, i) => parts[runOf[i]].push(k));
          const runs: SortedRun[] = parts.map((p) => {
            if (!asArrays) return chunked(p);
            const sorted = [...p].sort();
            return new ArrayRun(sorted, sorted.map(r));
          });
          const skip = new Set(skipped);
          const all = [...keys].sort().filter((k) => !skip.has(k));
          const wanted = limit === undefined || limit >= all.length ? all : all.slice(0, limit);
          const got = collect(runs, skip.size === 0 ? undefined : skip, limit);
          assert.deepEqual(got.keys, wanted);
          assert.equal(got.complete, limit === undefined || limit > all.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
