import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../machinery/errors.js';
import { RateLimiter } from './rate-limit.js';

const alice = { name: 'alice', groups: ['system:authenticated'] };
const bob = { name: 'bob', groups: ['system:authenticated'] };

describe('RateLimiter', () => {
  test('a user gets the burst at once, then is refused with a Retry-After until tokens flow back', () => {
    let now = 0;
    const rl = new RateLimiter({ ratePerSecond: 2, burst: 3, now: () => now });
    assert.deepEqual(
      [1, 2, 3].map(() => rl.take(alice).allowed),
      [true, true, true],
    );
    assert.deepEqual(rl.take(alice), { allowed: false, retryAfterSeconds: 1 });
    assert.equal(rl.take(bob).allowed, true, 'users have separate buckets');
    now = 500;
    assert.equal(rl.take(alice).allowed, true, 'half a second at 2/s gives one token back');
    assert.equal(rl.take(alice).allowed, false);
  });

  const cases: { reason: string; opts: ConstructorParameters<typeof RateLimiter>[0]; user: { name: string; groups: string[] }; allowedOf: number }[] = [
    { reason: 'system:masters is exempt', opts: { ratePerSecond: 1, burst: 1 }, user: { name: 'admin', groups: ['system:masters'] }, allowedOf: 50 },
    { reason: 'rate 0 turns limiting off', opts: { ratePerSecond: 0, burst: 0 }, user: alice, allowedOf: 50 },
    {
      reason: 'other exempt groups can be named',
      opts: { ratePerSecond: 1, burst: 1, exemptGroups: ['ops'] },
      user: { name: 'o', groups: ['ops'] },
      allowedOf: 50,
    },
    { reason: 'an ordinary user gets only the burst', opts: { ratePerSecond: 1, burst: 5 }, user: alice, allowedOf: 5 },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const rl = new RateLimiter({ ...c.opts, now: () => 0 });
      let allowed = 0;
      for (let i = 0; i < 50; i++) if (rl.take(c.user).allowed) allowed++;
      assert.equal(allowed, c.allowedOf);
    });
  }

  test('check throws a 429 Status naming the user, the limit and the wait', () => {
    const rl = new RateLimiter({ ratePerSecond: 0.5, burst: 1, now: () => 0 });
    rl.check(alice);
    assert.throws(
      () => rl.check(alice),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 429 &&
        err.status.details?.retryAfterSeconds === 2 &&
        /alice/.test(err.message) &&
        /0.5 per second/.test(err.message),
    );
  });

  test('idle users are forgotten, and the number tracked stays bounded', () => {
    let now = 0;
    const rl = new RateLimiter({ ratePerSecond: 10, burst: 10, maxTracked: 100, now: () => now });
    for (let i = 0; i < 1000; i++) rl.take({ name: `u${i}`, groups: [] });
    assert.ok(rl.tracked <= 100, `tracked ${rl.tracked}`);
    now += 120_000;
    rl.take(alice);
    assert.equal(rl.tracked, 1);
  });

  test('property: over any schedule a user is never allowed more than burst + rate × elapsed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 300 }),
        (rate, burst, gaps) => {
          let now = 0;
          const rl = new RateLimiter({ ratePerSecond: rate, burst, now: () => now });
          let allowed = 0;
          for (const g of gaps) {
            now += g;
            if (rl.take(alice).allowed) allowed++;
          }
          assert.ok(allowed <= burst + (rate * now) / 1000 + 1e-9);
        },
      ),
      { numRuns: 200 },
    );
  });
});
