import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteStore } from './sqlite-store.js';
import type { StoreError } from '../types.js';
import { brief, json, settle, tempStore } from './testing.js';

// The contract's cases (compare-and-swap, reads, lists at a revision, reopen, close) are in
// store/testing/conformance.ts, run on this backend by conformance.test.ts.

describe('group commit', () => {
  test('an encoder that throws inside a batch fails only its own write; the others keep consecutive revisions', async () => {
    const t = tempStore();
    try {
      const results = await Promise.all([
        settle(t.store.create('/a', json({}))),
        settle(
          t.store.create('/b', () => {
            throw new Error('boom');
          }),
        ),
        settle(t.store.create('/c', json({}))),
      ]);
      assert.deepEqual(
        results.map((r) => ('ok' in r ? brief(r.ok) : r.error)),
        ['/a@1/1={"rev":1}', 'boom', '/c@2/2={"rev":2}'],
      );
      assert.equal(await t.store.get('/b'), undefined);
    } finally {
      await t.cleanup();
    }
  });
  test('writes issued in one tick commit in one transaction, in order, with consecutive revisions', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      await s.create('/x', json({ v: 0 })); // revision 1
      const before = s.stats().batches;
      const ops = [
        settle(s.create('/a', json({ v: 1 }))), // 2
        settle(s.create('/a', json({ v: 2 }))), // exists: the first create is visible inside the batch
        settle(s.update('/x', 1, json({ v: 3 }))), // 3
        settle(s.update('/x', 1, json({ v: 4 }))), // conflict: the same expected revision again
        settle(s.update('/x', 3, json({ v: 5 }))), // 4: sees the earlier update of this batch
        settle(s.delete('/a', 2)), // 5
        settle(s.create('/a', json({ v: 6 }))), // 6: re-created after the delete in the same batch
        settle(s.delete('/nothing')), // not-found
      ];
      const got = (await Promise.all(ops)).map((r) => ('ok' in r ? brief(r.ok) : r.error));
      assert.deepEqual(got, [
        '/a@2/2={"v":1,"rev":2}',
        'exists',
        '/x@1/3={"v":3,"rev":3}',
        'conflict',
        '/x@1/4={"v":5,"rev":4}',
        '/a@2/5={"v":1,"rev":2}',
        '/a@6/6={"v":6,"rev":6}',
        'not-found',
      ]);
      assert.equal(s.stats().batches - before, 1, 'one transaction for the whole tick');
      assert.equal(s.currentRevision(), 6);
      assert.deepEqual((await s.list('/')).items.map(brief), ['/a@6/6={"v":6,"rev":6}', '/x@1/4={"v":5,"rev":4}']);
    } finally {
      await t.cleanup();
    }
  });

  test('many concurrent creates of overlapping keys: one winner per key, unique revisions, bounded batches', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      const keys = Array.from({ length: 600 }, (_, i) => `/k/${i % 400}`);
      const results = await Promise.all(keys.map((k) => settle(s.create(k, json({ k })))));
      const ok = results.flatMap((r) => ('ok' in r ? [r.ok] : []));
      const failed = results.flatMap((r) => ('ok' in r ? [] : [r.error]));
      assert.equal(ok.length, 400);
      assert.deepEqual(new Set(failed), new Set(['exists']));
      // Arrival order is revision order: the first 400 arrivals win, with revisions 1..400.
      assert.deepEqual(
        ok.map((kv) => kv.modRevision),
        Array.from({ length: 400 }, (_, i) => i + 1),
      );
      for (const kv of ok) assert.equal(JSON.parse(kv.value).rev, kv.modRevision, 'the encoder sees the real revision');
      assert.equal(await s.count('/k/'), 400);
      assert.ok(s.stats().batches >= 3, 'batches hold at most 256 writes');
    } finally {
      await t.cleanup();
    }
  });
});

describe('lifecycle', () => {
  test('close commits queued writes and publishes their events before it ends the watches', async () => {
    const t = tempStore();
    try {
      const pending = t.store.create('/queued', json({}));
      const events: string[] = [];
      const errors: string[] = [];
      t.store.watch('/', 0, { onEvents: (e) => events.push(...e.map((x) => x.kv.key)), onError: (e) => errors.push((e as StoreError).code) });
      await t.store.close();
      assert.equal(brief(await pending), '/queued@1/1={"rev":1}');
      assert.deepEqual(events, ['/queued']);
      assert.deepEqual(errors, ['closed']);
    } finally {
      await t.cleanup();
    }
  });

  test('a second store cannot open a file that is in use', async () => {
    const t = tempStore();
    try {
      assert.throws(() => openSqliteStore({ path: t.path, compactionIntervalMs: 0 }), /in use|locked/);
    } finally {
      await t.cleanup();
    }
  });

  test('an in-memory store works for tests of other layers', async () => {
    const s = openSqliteStore({ path: ':memory:', compactionIntervalMs: 0 });
    await s.create('/m', json({}));
    assert.equal(await s.count('/'), 1);
    await s.close();
  });
});

describe('commit observer', () => {
  test('hears of each group commit once durable: its writes and its duration; the WAL has a size', async () => {
    const commits: Array<{ writes: number; seconds: number }> = [];
    const t = tempStore({ observer: { committed: (writes, seconds) => commits.push({ writes, seconds }) } });
    try {
      assert.equal(t.store.walBytes() >= 0, true);
      // Three writes in one turn share one commit; one more in a later turn is a second.
      await Promise.all([t.store.create('/a', json({})), t.store.create('/b', json({})), t.store.create('/c', json({}))]);
      await t.store.create('/d', json({}));
      assert.deepEqual(
        commits.map((c) => c.writes),
        [3, 1],
      );
      assert.ok(commits.every((c) => c.seconds >= 0 && Number.isFinite(c.seconds)));
      assert.ok(t.store.walBytes() > 0, 'the WAL file has grown');
    } finally {
      await t.cleanup();
    }
  });
});
