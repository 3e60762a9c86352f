import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { SqliteStore } from './sqlite-store.js';
import { json, nextTurn, tempStore, type TempStore } from './testing.js';

/** logRows reads the revisions left in the log and rev_time tables (the store must be closed). */
function logRows(path: string): { log: number[]; revTime: number[] } {
  const db = new Database(path);
  try {
    return {
      log: db.prepare<[], number>('SELECT rev FROM log ORDER BY rev').pluck().all(),
      revTime: db.prepare<[], number>('SELECT rev FROM rev_time ORDER BY rev').pluck().all(),
    };
  } finally {
    db.close();
  }
}

/**
 * history writes: /a created (1) and updated (2); /b created (3) and deleted (4); /c
 * created (5) and updated (6); /b created again (7).
 */
async function history(s: SqliteStore): Promise<void> {
  await s.create('/a', json({ v: 1 }));
  await s.update('/a', 1, json({ v: 2 }));
  await s.create('/b', json({ v: 3 }));
  await s.delete('/b');
  await s.create('/c', json({ v: 5 }));
  await s.update('/c', 5, json({ v: 6 }));
  await s.create('/b', json({ v: 7 }));
}

async function withStore(fn: (t: TempStore) => Promise<void>, options = {}): Promise<void> {
  const t = tempStore(options);
  try {
    await fn(t);
  } finally {
    await t.cleanup();
  }
}

// The contract's compaction cases (reads below and at the compacted revision, a watch from it,
// compact's arguments) are in store/testing/conformance.ts, run on this backend by
// conformance.test.ts. What stays here is about this backend's tables, steps and retention.

describe('compaction', () => {
  test('compaction removes superseded values and tombstones, never a latest value', () =>
    withStore(async (t) => {
      await history(t.store);
      await t.store.compact(5);
      await t.store.close();
      // /a@1 was superseded by /a@2; /b@3 and its tombstone (4) are gone; /c@5 is the
      // latest at 5 and the previous value of 6, so it stays; 6 and 7 are above 5.
      assert.deepEqual(logRows(t.path).log, [2, 5, 6, 7]);
      const s = await t.reopen();
      await s.compact(7);
      await s.close();
      assert.deepEqual(logRows(t.path), { log: [2, 6, 7], revTime: [7] });
    }));

  test('a large compaction runs in steps and leaves one row per live key', () =>
    withStore(async (t) => {
      const s = t.store;
      const keys = Array.from({ length: 10 }, (_, i) => `/hot/${i}`);
      await Promise.all(keys.map((k) => s.create(k, json({ n: 0 }))));
      for (let n = 1; n <= 500; n++) {
        await Promise.all(keys.map((k) => s.get(k).then((kv) => s.update(k, kv?.modRevision ?? 0, json({ n })))));
      }
      const head = s.currentRevision();
      assert.equal(head, 5010);
      await s.compact(head);
      assert.deepEqual(
        (await s.list('/hot/')).items.map((kv) => JSON.parse(kv.value).n),
        keys.map(() => 500),
      );
      await s.close();
      assert.equal(logRows(t.path).log.length, 10);
    }));

  test('a compaction interrupted by a crash finishes when the store reopens', () =>
    withStore(async (t) => {
      await history(t.store);
      await t.store.close();
      // Simulate a crash right after the compacted revision was recorded.
      const db = new Database(t.path);
      db.prepare(`UPDATE meta SET value = 5 WHERE name = 'compacted'`).run();
      db.close();
      const s = await t.reopen();
      assert.equal(s.compactedRevision(), 5);
      await assert.rejects(s.list('', { revision: 4 }), { code: 'compacted' });
      await nextTurn();
      await s.close();
      assert.deepEqual(logRows(t.path).log, [2, 5, 6, 7]);
    }));
});

describe('retention', () => {
  /**
   * Writes 10 revisions at each of t = 0 s, 100 s and 200 s (revisions 1-10, 11-20,
   * 21-30), then applies the retention policy at `now`.
   */
  async function retained(retention: { minRevisions: number; minAgeMs: number }, now: number): Promise<number> {
    let clock = 0;
    const t = tempStore({ retention, now: () => clock });
    try {
      for (const at of [0, 100_000, 200_000]) {
        clock = at;
        for (let i = 0; i < 10; i++) await t.store.create(`/r/${at}/${i}`, json({}));
      }
      clock = now;
      const got = await t.store.applyRetention();
      assert.equal(t.store.compactedRevision(), got);
      if (got > 0) await assert.rejects(t.store.list('', { revision: got - 1 }), { code: 'compacted' });
      assert.equal(await t.store.count(''), 30, 'latest values survive');
      return got;
    } finally {
      await t.cleanup();
    }
  }

  const cases = [
    { reason: 'age is the tighter limit: keep everything younger than 150 s', retention: { minRevisions: 5, minAgeMs: 150_000 }, now: 260_000, want: 20 },
    { reason: 'count is the tighter limit: keep the last 15 revisions', retention: { minRevisions: 15, minAgeMs: 150_000 }, now: 260_000, want: 15 },
    { reason: 'nothing is old enough', retention: { minRevisions: 5, minAgeMs: 300_000 }, now: 260_000, want: 0 },
    { reason: 'fewer revisions than the minimum', retention: { minRevisions: 30, minAgeMs: 0 }, now: 260_000, want: 0 },
    { reason: 'a revision exactly minAgeMs old may go', retention: { minRevisions: 0, minAgeMs: 100_000 }, now: 200_000, want: 20 },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      assert.equal(await retained(c.retention, c.now), c.want);
    });
  }

  test('the timer applies retention on its own', () =>
    withStore(
      async (t) => {
        for (let i = 0; i < 5; i++) await t.store.create(`/r/${i}`, json({}));
        const deadline = Date.now() + 3000;
        while (t.store.compactedRevision() !== 3 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.equal(t.store.compactedRevision(), 3);
      },
      { retention: { minRevisions: 2, minAgeMs: 0 }, compactionIntervalMs: 20 },
    ));
});
