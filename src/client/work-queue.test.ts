import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ItemExponentialBackoff } from './rate-limiter.js';
import { WorkQueue } from './work-queue.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the next key, or 'timeout' when none comes within `ms`. */
async function nextWithin(q: WorkQueue, ms: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([q.get(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('WorkQueue', () => {
  test('de-duplicates keys waiting in the queue and keeps first-in order', async () => {
    const q = new WorkQueue();
    for (const k of ['a', 'b', 'a', 'c', 'b']) q.add(k);
    assert.equal(q.len(), 3);
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ['a', 'b', 'c']);
    q.shutDown();
  });

  test('a key added while processing is handed out again only after done', async () => {
    const q = new WorkQueue();
    q.add('a');
    const first = await q.get();
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 0, 'not queued while it is being processed');
    assert.ok(q.isProcessing('a'));
    q.done(first as string);
    assert.equal(q.len(), 1, 're-queued once by done');
    assert.equal(await q.get(), 'a');
    q.done('a');
    assert.equal(q.len(), 0);
    q.shutDown();
  });

  test('a waiting get receives a key added later', async () => {
    const q = new WorkQueue();
    const pending = q.get();
    q.add('x');
    assert.equal(await pending, 'x');
    assert.ok(q.isProcessing('x'));
    q.shutDown();
  });

  test('runWorkers never processes one key in two workers at once', async () => {
    const q = new WorkQueue({ baseDelayMs: 1 });
    const active = new Set<string>();
    let overlaps = 0;
    let runs = 0;
    const workers = q.runWorkers(4, async (key) => {
      if (active.has(key)) overlaps++;
      active.add(key);
      runs++;
      await sleep(2);
      active.delete(key);
    });
    for (let round = 0; round < 20; round++) {
      for (const k of ['a', 'b', 'c']) q.add(k);
      await sleep(1);
    }
    await sleep(20);
    q.shutDown();
    await workers;
    assert.equal(overlaps, 0);
    assert.ok(runs >= 3 && runs < 60, `re-adds while busy were coalesced (runs=${runs})`);
  });

  test('runWorkers retries a failing key with growing backoff and forgets it on success', async () => {
    const q = new WorkQueue({ rateLimiter: new ItemExponentialBackoff(10, 1000) });
    const times: number[] = [];
    let failuresLeft = 3;
    const errors: string[] = [];
    const workers = q.runWorkers(
      1,
      (key) => {
        times.push(Date.now());
        if (failuresLeft-- > 0) throw new Error(`fail ${key}`);
      },
      { onError: (_key, err) => errors.push((err as Error).message) },
    );
    q.add('k');
    while (times.length < 4) await sleep(5);
    await sleep(5);
    assert.equal(q.numRequeues('k'), 0, 'success forgot the backoff');
    q.shutDown();
    await workers;
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    assert.equal(errors.length, 3);
    assert.ok(gaps[0]! >= 9 && gaps[1]! >= 19 && gaps[2]! >= 39, `gaps ${gaps.join(',')} follow 10, 20, 40 ms`);
  });

  test('a handler can ask for the key again later', async () => {
    const q = new WorkQueue();
    const seen: number[] = [];
    const workers = q.runWorkers(1, () => {
      seen.push(Date.now());
      return seen.length < 2 ? { requeueAfterMs: 30 } : undefined;
    });
    q.add('poll');
    while (seen.length < 2) await sleep(5);
    q.shutDown();
    await workers;
    assert.ok(seen[1]! - seen[0]! >= 29);
  });

  test('addAfter delays a key and keeps the earliest of two times', async () => {
    const q = new WorkQueue();
    const start = Date.now();
    q.addAfter('a', 400);
    q.addAfter('a', 20);
    q.addAfter('a', 200);
    assert.equal(q.len(), 0);
    assert.equal(await q.get(), 'a');
    const waited = Date.now() - start;
    assert.ok(waited >= 19 && waited < 350, `waited ${waited} ms, want about 20`);
    q.done('a');
    assert.equal(await nextWithin(q, 450), 'timeout', 'the later times did not add it again');
    q.shutDown();
  });

  test('addAfter with no delay adds at once', async () => {
    const q = new WorkQueue();
    q.addAfter('a', 0);
    assert.equal(q.len(), 1);
    q.shutDown();
  });

  test('addRateLimited is limited by the global bucket too', async () => {
    const q = new WorkQueue({ baseDelayMs: 1, qps: 20, burst: 1 });
    const start = Date.now();
    q.addRateLimited('a');
    q.addRateLimited('b');
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    const waited = Date.now() - start;
    assert.ok(waited >= 45, `the second key waited for a token (${waited} ms, want ≥ 50)`);
    q.shutDown();
  });

  test('shutDown wakes waiting gets, drops queued and delayed keys, and ignores new ones', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutDown();
    assert.equal(await waiting, undefined);
    const q2 = new WorkQueue();
    q2.add('a');
    q2.addAfter('b', 10_000);
    q2.shutDown();
    q2.add('c');
    assert.equal(q2.len(), 0);
    assert.equal(await q2.get(), undefined);
    assert.ok(q2.shuttingDown);
  });

  test('runWorkers resolves after shutDown once in-flight work finishes', async () => {
    const q = new WorkQueue();
    let finished = false;
    const workers = q.runWorkers(2, async () => {
      await sleep(30);
      finished = true;
    });
    q.add('slow');
    await sleep(5);
    q.shutDown();
    await workers;
    assert.ok(finished);
  });
});
