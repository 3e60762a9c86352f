import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreEvent, StoreWatchHandlers } from '../types.js';
import { revisionsPerStep } from './options.js';
import { json, nextTurn, tempStore } from './testing.js';

/** A Recorder is a pair of watch handlers that keep what they receive. */
interface Recorder extends StoreWatchHandlers {
  events: StoreEvent[];
  calls: number;
  errors: Error[];
}

function recorder(onEvents?: (events: StoreEvent[]) => void): Recorder {
  const r: Recorder = {
    events: [],
    calls: 0,
    errors: [],
    onEvents(events) {
      r.calls++;
      r.events.push(...events);
      onEvents?.(events);
    },
    onError(err) {
      r.errors.push(err);
    },
  };
  return r;
}

/** waitFor polls until `done` holds, failing after `ms`. */
async function waitFor(done: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await nextTurn();
  }
}

// The contract's watch cases (where a watch starts, the property test against a model,
// handlers that throw or close, backpressure) are in store/testing/conformance.ts, run on this
// backend by conformance.test.ts. What stays here is about how this backend replays history.

describe('watch', () => {
  test('a long history is replayed in steps, then live, with no gap and no duplicate', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      const writeMany = (from: number, n: number) => Promise.all(Array.from({ length: n }, (_, i) => s.create(`/many/${from + i}`, json({}))));
      await writeMany(0, 2 * revisionsPerStep + 500);
      const rec = recorder();
      s.watch('/many/', 100, rec);
      // Keep writing while it catches up.
      for (let i = 0; i < 10; i++) await writeMany(10_000 + i * 50, 50);
      await waitFor(() => rec.events.length === s.currentRevision() - 100, 'every event after 100');
      const revisions = rec.events.map((e) => e.kv.modRevision);
      assert.deepEqual(
        revisions,
        Array.from({ length: s.currentRevision() - 100 }, (_, i) => 101 + i),
      );
      assert.ok(rec.calls >= 3, `history comes in steps (got ${rec.calls} calls)`);
    } finally {
      await t.cleanup();
    }
  });

  test('a watcher a slow client pauses every few events gets each event once and reads each one from the log once', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      const n = 1000;
      await s.create('/other/0', json({})); // revision 1: the watch starts after it
      for (let i = 0; i < n; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => s.create(`/slow/${i + j}`, json({ i: i + j }))));
      await s.create('/other/1', json({}));
      const got: number[] = [];
      const errors: Error[] = [];
      const readBefore = s.stats().historyEventsRead;
      // Like a client whose socket takes three events per drain: take three, pause, resume on a later turn.
      const watcher = s.watch('/slow/', 1, {
        onEvents(events) {
          const taken = Math.min(3, events.length);
          for (const e of events.slice(0, taken)) got.push(e.kv.modRevision);
          setImmediate(() => watcher.resume());
          return taken;
        },
        onError(err) {
          errors.push(err);
        },
      });
      await waitFor(() => got.length === n, `all ${n} events`);
      watcher.close();
      assert.deepEqual(errors, []);
      assert.deepEqual(
        got,
        Array.from({ length: n }, (_, i) => i + 2),
      );
      const read = s.stats().historyEventsRead - readBefore;
      assert.ok(read <= n * 1.1, `each event read from the log about once (read ${read} for ${n})`);
    } finally {
      await t.cleanup();
    }
  });

  test('a watcher that is still replaying when compaction passes it ends with compacted', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      for (const k of ['/s/1', '/s/2', '/s/3']) await s.create(k, json({}));
      const rec = recorder();
      s.watch('/s/', 1, rec);
      const compaction = s.compact(3); // before the watcher's first replay step runs
      await compaction;
      await waitFor(() => rec.errors.length === 1, 'the error');
      assert.deepEqual(rec.events, []);
      assert.equal((rec.errors[0] as { code?: string }).code, 'compacted');
      assert.equal(s.stats().watchers, 0);
    } finally {
      await t.cleanup();
    }
  });
});
