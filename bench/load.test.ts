import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { runClosedLoop } from './load.js';

describe('runClosedLoop', () => {
  test('runs every index once and never exceeds the concurrency', async () => {
    const seen: number[] = [];
    let inFlight = 0;
    let peak = 0;
    const r = await runClosedLoop(
      async (i) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        seen.push(i);
        await sleep(1);
        inFlight--;
        return undefined;
      },
      { total: 50, concurrency: 4 },
    );
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i),
    );
    assert.equal(peak, 4);
    assert.equal(r.ok, 50);
    assert.equal(r.errors, 0);
    assert.equal(r.latenciesMs.length, 50);
    assert.ok(r.ratePerSec > 0);
  });

  test('counts failures (returned or thrown) apart from successes and samples their messages', async () => {
    const r = await runClosedLoop(
      async (i) => {
        if (i % 5 === 0) return 'HTTP 500';
        if (i % 7 === 0) throw new Error('socket hang up');
        return undefined;
      },
      { total: 35, concurrency: 3 },
    );
    // multiples of 5 in 0..34: 7 (0,5,...,30); multiples of 7 not of 5: 7,14,21,28 → 4
    assert.equal(r.errors, 11);
    assert.equal(r.ok, 24);
    assert.equal(r.latenciesMs.length, 24);
    assert.deepEqual(
      new Map(r.errorSamples.map((e) => [e.message, e.count])),
      new Map([
        ['HTTP 500', 7],
        ['socket hang up', 4],
      ]),
    );
  });

  test('stops early when most operations fail', async () => {
    const r = await runClosedLoop(async () => 'HTTP 404', { total: 10_000, concurrency: 2, maxErrors: 20 });
    assert.ok(r.attempted < 10_000, `attempted ${r.attempted}`);
    assert.match(r.stoppedEarly ?? '', /operations failed/);
  });

  test('stops issuing operations after the deadline', async () => {
    const r = await runClosedLoop(
      async () => {
        await sleep(5);
        return undefined;
      },
      { total: 100_000, concurrency: 2, deadlineMs: 30 },
    );
    assert.ok(r.attempted < 100, `attempted ${r.attempted}`);
    assert.match(r.stoppedEarly ?? '', /deadline/);
  });
});
