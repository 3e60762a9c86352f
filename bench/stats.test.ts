import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { median, percentile, summarize } from './stats.js';

describe('percentile', () => {
  const cases: { reason: string; sample: number[]; p: number; want: number }[] = [
    { reason: 'a single value is every percentile', sample: [7], p: 1, want: 7 },
    { reason: 'p50 of 1..10 is the 5th value', sample: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p: 50, want: 5 },
    { reason: 'p99 of 1..100 is 99', sample: Array.from({ length: 100 }, (_, i) => i + 1), p: 99, want: 99 },
    { reason: 'p99 of 1..10 rounds up to the max', sample: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p: 99, want: 10 },
    { reason: 'p100 is the max', sample: [1, 5, 9], p: 100, want: 9 },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.equal(percentile(c.sample, c.p), c.want));
  }

  test('rejects an empty sample and p outside (0, 100]', () => {
    assert.throws(() => percentile([], 50), /empty sample/);
    assert.throws(() => percentile([1], 0), /percentile must be in/);
    assert.throws(() => percentile([1], 101), /percentile must be in/);
  });

  test('at least p% of the sample is <= the p-th percentile, and less than p% is below it', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 100 }), (xs, p) => {
        const s = Float64Array.from(xs).sort();
        const v = percentile(s, p);
        const atOrBelow = s.filter((x) => x <= v).length;
        const below = s.filter((x) => x < v).length;
        return atOrBelow >= (p / 100) * s.length && below < (p / 100) * s.length;
      }),
    );
  });
});

describe('median', () => {
  const cases: { reason: string; sample: number[]; want: number }[] = [
    { reason: 'odd count takes the middle', sample: [3, 1, 2], want: 2 },
    { reason: 'even count averages the two middle values', sample: [4, 1, 3, 2], want: 2.5 },
    { reason: 'does not depend on input order', sample: [10, 30, 20, 50, 40], want: 30 },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.equal(median(c.sample), c.want));
  }
  test('does not reorder its input', () => {
    const xs = [3, 1, 2];
    median(xs);
    assert.deepEqual(xs, [3, 1, 2]);
  });
});

describe('summarize', () => {
  test('an empty sample summarizes to zeros', () => {
    assert.deepEqual(summarize([]), { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 });
  });
  test('fields are ordered min <= p50 <= p90 <= p99 <= max and min <= mean <= max', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: 0, max: 1e4 }), { minLength: 1, maxLength: 300 }), (xs) => {
        const s = summarize(xs);
        const eps = 1e-9;
        return s.count === xs.length && s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.max && s.min - eps <= s.mean && s.mean <= s.max + eps;
      }),
    );
  });
});
