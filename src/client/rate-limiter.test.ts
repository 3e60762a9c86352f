import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ItemExponentialBackoff, MaxOfRateLimiter, TokenBucket, controllerRateLimiter } from './rate-limiter.js';

describe('ItemExponentialBackoff', () => {
  test('doubles per retry from the base, per key, up to the cap', () => {
    const b = new ItemExponentialBackoff(5, 100);
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map(() => b.when('a')),
      [5, 10, 20, 40, 80, 100],
    );
    assert.equal(b.when('b'), 5, 'other keys start at the base');
    assert.equal(b.numRequeues('a'), 6);
  });

  test('forget starts the key over', () => {
    const b = new ItemExponentialBackoff(5, 1000);
    b.when('a');
    b.when('a');
    b.forget('a');
    assert.equal(b.numRequeues('a'), 0);
    assert.equal(b.when('a'), 5);
  });

  test('never exceeds the cap nor goes below the base, however many retries (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 2_000_000 }), fc.integer({ min: 1, max: 200 }), (base, max, n) => {
        const b = new ItemExponentialBackoff(base, max);
        let prev = 0;
        for (let i = 0; i < n; i++) {
          const d = b.when('k');
          if (!(d <= max && d >= Math.min(base, max) && d >= prev && Number.isFinite(d))) return false;
          prev = d;
        }
        return true;
      }),
    );
  });
});

describe('TokenBucket', () => {
  test('allows the burst at once, then spaces retries at qps, refilling with time', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 3, () => now);
    assert.deepEqual([bucket.when(), bucket.when(), bucket.when()], [0, 0, 0]);
    assert.equal(bucket.when(), 100, 'the fourth waits one token (100 ms at 10 qps)');
    assert.equal(bucket.when(), 200, 'reservations queue behind each other');
    now = 1000;
    // 10 tokens earned, capped at the burst of 3, minus the 2 reserved earlier
    assert.equal(bucket.when(), 0);
  });

  test('rejects a non-positive qps', () => {
    assert.throws(() => new TokenBucket(0, 1), /qps must be positive/);
  });
});

describe('controllerRateLimiter', () => {
  test('is the larger of the per-key backoff and the bucket', () => {
    const now = 0;
    const limiter = controllerRateLimiter({ baseDelayMs: 5, maxDelayMs: 10_000, qps: 1, burst: 2, now: () => now });
    assert.equal(limiter.when('a'), 5, 'bucket has tokens: the backoff decides');
    assert.equal(limiter.when('a'), 10);
    assert.equal(limiter.when('b'), 1000, 'bucket empty: it decides');
    limiter.forget('a');
    assert.equal(limiter.numRequeues('a'), 0);
  });

  test('MaxOfRateLimiter forwards forget to all', () => {
    const a = new ItemExponentialBackoff(1, 100);
    const b = new ItemExponentialBackoff(2, 100);
    const max = new MaxOfRateLimiter(a, b);
    max.when('k');
    max.when('k');
    max.forget('k');
    assert.equal(a.numRequeues('k') + b.numRequeues('k'), 0);
  });
});
