import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ItemExponentialBackoff } from './rate-limiter.js';
import { WorkQueue } from './work-queue.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (polling every millisecond) until `condition` holds; the runner's per-test timeout bounds it. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(1);
}

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

  test('urgent keys are handed out before ordinary ones; a waiting key moves to the urgent lane once, counted once', async () => {
    const q = new WorkQueue();
    for (const k of ['a', 'b', 'c']) q.add(k);
    q.addUrgent('x');
    q.addUrgent('c');
    q.addUrgent('c');
    assert.equal(q.len(), 4);
    assert.deepEqual([await q.get(), await q.get(), await q.get(), await q.get()], ['x', 'c', 'a', 'b']);
    assert.equal(q.len(), 0, "c's ordinary entry is stale, not waiting");
    for (const k of ['x', 'c', 'a', 'b']) q.done(k);
    q.add('c');
    assert.equal(await q.get(), 'c', 'added again after done: handed out once more');
    q.done('c');
    q.add('d');
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'd', 'stale entries are skipped');
    q.shutDown();
  });

  test('an urgent add of a key being processed queues it again after done, like add', async () => {
    const q = new WorkQueue();
    q.add('a');
    assert.equal(await q.get(), 'a');
    q.addUrgent('a');
    assert.equal(q.len(), 0);
    q.done('a');
    assert.equal(await q.get(), 'a');
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

  test('runWorkers never processes one key in two workers at once; re-adds while it is busy make one more run', async () => {
    const q = new WorkQueue({ baseDelayMs: 1 });
    const active = new Set<string>();
    let overlaps = 0;
    const runs: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const workers = q.runWorkers(4, async (key) => {
      if (active.has(key)) overlaps++;
      active.add(key);
      runs.push(key);
      if (key === 'a' && runs.filter((k) => k === 'a').length === 1) await gate;
      active.delete(key);
    });
    q.add('a');
    await until(() => q.isProcessing('a'));
    // Three workers are idle while 'a' is stuck in the fourth: none of them may take it.
    for (let i = 0; i < 10; i++) q.add('a');
    q.add('b');
    await until(() => runs.includes('b') && !q.isProcessing('b'));
    assert.deepEqual(runs, ['a', 'b'], 'a was not handed out again while busy');
    release();
    await until(() => runs.length === 3 && !q.isProcessing('a'));
    assert.deepEqual(runs, ['a', 'b', 'a'], 'the ten re-adds made exactly one more run');
    assert.equal(q.len(), 0);
    q.shutDown();
    await workers;
    assert.equal(overlaps, 0);
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
    await until(() => times.length === 4 && !q.isProcessing('k'));
    assert.equal(q.numRequeues('k'), 0, 'success forgot the backoff');
    q.shutDown();
    await workers;
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    assert.equal(errors.length, 3);
    assert.ok(gaps[0] >= 9 && gaps[1] >= 19 && gaps[2] >= 39, `gaps ${gaps.join(',')} follow 10, 20, 40 ms`);
  });

  test('a handler can ask for the key again later', async () => {
    const q = new WorkQueue();
    const seen: number[] = [];
    const workers = q.runWorkers(1, () => {
      seen.push(Date.now());
      return seen.length < 2 ? { requeueAfterMs: 30 } : undefined;
    });
    q.add('poll');
    await until(() => seen.length === 2);
    q.shutDown();
    await workers;
    assert.ok(seen[1] - seen[0] >= 29);
  });

  test('addAfter delays a key and keeps the earliest of two times', async () => {
    const q = new WorkQueue();
    const start = Date.now();
    q.addAfter('a', 400);
    q.addAfter('a', 20);
    q.addAfter('a', 200);
    // A marker due between the earliest time (20) and the others (200, 400): 'a' comes first
    // only when its earliest time was kept, however slow the machine is.
    q.addAfter('marker', 100);
    assert.equal(q.len(), 0);
    assert.equal(await q.get(), 'a');
    assert.ok(Date.now() - start >= 19, 'not before its delay');
    q.done('a');
    assert.equal(await q.get(), 'marker');
    q.done('marker');
    // Something that must NOT happen: the dropped later times (200 and 400 ms after the start)
    // adding 'a' again. Waiting until past the latest of them is the only way to see that.
    assert.equal(await nextWithin(q, Math.max(0, start + 450 - Date.now())), 'timeout', 'the later times did not add it again');
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
    await until(() => q.isProcessing('slow'));
    q.shutDown();
    await workers;
    assert.ok(finished);
  });
});

describe('WorkQueue metrics', () => {
  test('reports adds (not duplicates), retries, each reconcile by result with its time, depth, and its close', async () => {
    const calls: string[] = [];
    let depth: (() => number) | undefined;
    const q = new WorkQueue({
      name: 'things',
      baseDelayMs: 1,
      maxDelayMs: 1,
      metrics: {
        forQueue(name, d) {
          depth = d;
          calls.push(`queue ${name}`);
          return {
            added: () => calls.push('added'),
            retried: () => calls.push('retried'),
            reconciled: (result, seconds) => calls.push(`reconciled ${result} ${seconds >= 0 ? 'timed' : 'untimed'}`),
            closed: () => calls.push('closed'),
          };
        },
      },
    });
    q.add('a');
    q.add('a');
    q.add('b');
    assert.equal(depth?.(), 2);
    let failedOnce = false;
    const running = q.runWorkers(1, (key) => {
      if (key === 'a' && !failedOnce) {
        failedOnce = true;
        throw new Error('first try fails');
      }
      if (key === 'b') return { requeueAfterMs: 60_000 };
      return undefined;
    });
    await until(() => calls.filter((c) => c.startsWith('reconciled')).length >= 3);
    q.shutDown();
    await running;
    assert.deepEqual(calls, [
      'queue things',
      'added',
      'added',
      'reconciled error timed',
      'retried',
      'reconciled requeue_after timed',
      'added',
      'reconciled success timed',
      'closed',
    ]);
  });
});
