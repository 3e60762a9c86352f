import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fdatasync, statSync } from 'node:fs';
import type { StoreEvent } from '../types.js';
import type { SqliteStore } from './sqlite-store.js';
import { json, nextTurn, tempStore } from './testing.js';

/** A HeldSync records WAL sync requests and completes them only when the test says so. */
function heldSync() {
  const pending: Array<{ fd: number; done: (err: Error | null) => void }> = [];
  return {
    pending,
    sync: (fd: number, done: (err: Error | null) => void) => {
      pending.push({ fd, done });
    },
    /** release really syncs the oldest request's file, then completes it. */
    async release(): Promise<void> {
      const next = pending.shift();
      assert.ok(next, 'a WAL sync was requested');
      await new Promise<void>((resolve, reject) => fdatasync(next.fd, (err) => (err ? reject(err) : resolve())));
      next.done(null);
    },
    fail(message: string): void {
      const next = pending.shift();
      assert.ok(next, 'a WAL sync was requested');
      next.done(new Error(message));
    },
  };
}

/** observe tracks whether a promise has settled yet. */
function observe<T>(promise: Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let settled = false;
  const result = promise.finally(() => {
    settled = true;
  });
  result.catch(() => {});
  return { settled: () => settled, result };
}

/**
 * writeUntilDatabaseSync writes ~64 KiB values one at a time, releasing each WAL sync, until a
 * sync of another file than the WAL is asked for — the database file's, after a checkpoint copied
 * the WAL into it — and returns that request, not yet done (undefined if none came in ~25 MB).
 */
async function writeUntilDatabaseSync(
  store: SqliteStore,
  held: ReturnType<typeof heldSync>,
): Promise<{ fd: number; done: (err: Error | null) => void } | undefined> {
  const big = 'x'.repeat(64 * 1024);
  let walFd: number | undefined;
  for (let i = 0; i < 400; i++) {
    const write = store.create(`/big/${i}`, json({ big }));
    await nextTurn();
    for (;;) {
      const next = held.pending[0];
      if (!next) break;
      walFd ??= next.fd;
      if (next.fd !== walFd) return held.pending.shift();
      await held.release();
    }
    await write;
  }
  return undefined;
}

describe('pipelined durability: nobody hears of a write before the WAL sync', () => {
  test('a write, its watch event and a read of it all wait for the sync that covers it', async () => {
    const held = heldSync();
    const temp = tempStore({ sync: held.sync });
    try {
      const store = temp.store;
      const seen: StoreEvent[] = [];
      store.watch('/a/', 0, { onEvents: (evs) => seen.push(...evs), onError: () => {} });
      const created = observe(store.create('/a/x', json({ v: 1 })));
      await nextTurn();
      await nextTurn();
      assert.equal(held.pending.length, 1, 'the commit asked for one WAL sync');
      const read = observe(store.get('/a/x'));
      await nextTurn();
      assert.equal(created.settled(), false, 'the create is not acknowledged before the sync');
      assert.equal(read.settled(), false, 'a read that saw the write waits for the sync too');
      assert.equal(seen.length, 0, 'watchers hear nothing before the sync');
      assert.equal(store.stats().durableRevision, 0);

      await held.release();
      const kv = await created.result;
      assert.equal(kv.modRevision, 1);
      assert.equal((await read.result)?.modRevision, 1);
      assert.deepEqual(
        seen.map((e) => e.kv.key),
        ['/a/x'],
      );
      assert.equal(store.stats().durableRevision, 1);
    } finally {
      while (held.pending.length) await held.release();
      await temp.cleanup();
    }
  });

  test('batches committed while a sync runs are acknowledged by the next sync, in revision order', async () => {
    const held = heldSync();
    const temp = tempStore({ sync: held.sync });
    try {
      const store = temp.store;
      const order: number[] = [];
      const first = store.create('/k1', json({})).then((kv) => order.push(kv.modRevision));
      await nextTurn();
      await nextTurn();
      const second = store.create('/k2', json({})).then((kv) => order.push(kv.modRevision));
      const third = store.create('/k3', json({})).then((kv) => order.push(kv.modRevision));
      await nextTurn();
      await nextTurn();
      assert.equal(held.pending.length, 1, 'only one sync runs at a time');
      assert.equal(store.currentRevision(), 3, 'the later batch was committed while the first sync ran');
      await held.release();
      await first;
      assert.deepEqual(order, [1]);
      await nextTurn();
      assert.equal(held.pending.length, 1, 'the end of a sync starts the next one for what waits');
      await held.release();
      await Promise.all([second, third]);
      assert.deepEqual(order, [1, 2, 3]);
      assert.equal(store.stats().syncs, 2);
    } finally {
      while (held.pending.length) await held.release();
      await temp.cleanup();
    }
  });

  test('a failed sync fails the writes it covered and every later operation, with a message saying to restart', async () => {
    const held = heldSync();
    const temp = tempStore({ sync: held.sync });
    try {
      const store = temp.store;
      const errors: string[] = [];
      store.watch('/', 0, { onEvents: () => {}, onError: (e) => errors.push(e.message) });
      const write = store.create('/k', json({}));
      await nextTurn();
      await nextTurn();
      held.fail('EIO: i/o error');
      await assert.rejects(write, /WAL sync failed: EIO.*restart the server/);
      await assert.rejects(store.create('/other', json({})), /restart the server/);
      await assert.rejects(
        Promise.resolve().then(() => store.get('/k')),
        /restart the server/,
      );
      assert.equal(errors.length, 1, 'watchers are told');
    } finally {
      await temp.cleanup();
    }
  });

  test('a watch may start after a revision assigned to a write that is not yet durable: it sees only what follows', async () => {
    const held = heldSync();
    const temp = tempStore({ sync: held.sync });
    try {
      const store = temp.store;
      const first = observe(store.create('/a/x', json({ v: 1 })));
      await nextTurn();
      await nextTurn();
      const assigned = store.currentRevision();
      assert.equal(assigned, 1);
      assert.equal(store.stats().durableRevision, 0, 'revision 1 is assigned, not durable');
      const seen: StoreEvent[] = [];
      let failed: Error | undefined;
      store.watch('/a/', assigned, { onEvents: (evs) => seen.push(...evs), onError: (err) => (failed = err) });
      assert.throws(() => store.watch('/a/', assigned + 1, { onEvents() {}, onError() {} }), { code: 'future-revision' }, 'a revision nobody was given');
      await held.release();
      await first.result;
      await nextTurn();
      assert.equal(seen.length, 0, 'the write at the watched revision is not replayed');
      const second = observe(store.create('/a/y', json({ v: 2 })));
      await nextTurn();
      await nextTurn();
      await held.release();
      await second.result;
      await nextTurn();
      assert.deepEqual(
        seen.map((e) => `${e.kv.key}@${e.kv.modRevision}`),
        ['/a/y@2'],
      );
      assert.equal(failed, undefined);
    } finally {
      while (held.pending.length) await held.release();
      await temp.cleanup();
    }
  });

  test('close makes the last batches durable and acknowledges them; the data is there after reopening', async () => {
    const temp = tempStore();
    try {
      const writes = Array.from({ length: 50 }, (_, i) => temp.store.create(`/c/${i}`, json({ i })));
      await temp.reopen();
      assert.equal((await Promise.all(writes)).length, 50);
      const listed = await temp.store.list('/c/');
      assert.equal(listed.items.length, 50);
    } finally {
      await temp.cleanup();
    }
  });

  test('a checkpoint syncs the database file off the event loop, and no batch commits (starting the WAL over) until that sync is done', async () => {
    const held = heldSync();
    const temp = tempStore({ sync: held.sync });
    try {
      const store = temp.store;
      const databaseSync = await writeUntilDatabaseSync(store, held);
      assert.ok(databaseSync, 'a checkpoint asked for a sync of the database file');
      assert.ok(statSync(temp.path).size > 8 * 1024 * 1024, 'the checkpoint copied the WAL into the database file');
      const before = store.currentRevision();
      const held1 = observe(store.create('/after-checkpoint', json({ v: 1 })));
      await nextTurn();
      await nextTurn();
      assert.equal(store.currentRevision(), before, 'no batch commits while the database file syncs');
      assert.equal(held.pending.length, 0, 'so no WAL sync is asked for either');
      assert.equal(held1.settled(), false);
      // The sync really runs, then completes: the held write commits and is acknowledged.
      await new Promise<void>((resolve, reject) => fdatasync(databaseSync.fd, (err) => (err ? reject(err) : resolve())));
      databaseSync.done(null);
      await nextTurn();
      await nextTurn();
      assert.equal(store.currentRevision(), before + 1, 'the held write commits once the database file is synced');
      while (held.pending.length) await held.release();
      assert.equal((await held1.result).modRevision, before + 1);
      await temp.reopen();
      assert.equal((await temp.store.get('/after-checkpoint'))?.modRevision, before + 1);
      assert.equal((await temp.store.list('/big/')).items.length, before);
    } finally {
      while (held.pending.length) await held.release();
      await temp.cleanup();
    }
  });

  test('a failed database sync after a checkpoint fails what waits and every later write, with a message saying to restart', async () => {
    const held = heldSync();
    const temp = tempStore({ sync: held.sync });
    try {
      const store = temp.store;
      const databaseSync = await writeUntilDatabaseSync(store, held);
      assert.ok(databaseSync, 'a checkpoint asked for a sync of the database file');
      const waiting = store.create('/waiting', json({}));
      await nextTurn();
      databaseSync.done(new Error('EIO: i/o error'));
      await assert.rejects(waiting, /database file sync after a checkpoint failed: EIO.*restart the server/);
      await assert.rejects(store.create('/later', json({})), /restart the server/);
    } finally {
      while (held.pending.length) await held.release();
      await temp.cleanup();
    }
  });

  test('the WAL is copied into the database file once it is large, and stays bounded', async () => {
    const temp = tempStore();
    try {
      const big = 'x'.repeat(64 * 1024);
      // ~40 MB of values, written in small batches so the store syncs (and checks) often.
      for (let round = 0; round < 640; round++) await temp.store.create(`/big/${round}`, json({ big }));
      const wal = statSync(`${temp.path}-wal`).size;
      assert.ok(wal < 64 * 1024 * 1024 + 1024 * 1024, `the WAL is bounded (it is ${wal} bytes)`);
      assert.ok(statSync(temp.path).size > 16 * 1024 * 1024, 'checkpoints moved data into the database file');
    } finally {
      await temp.cleanup();
    }
  });
});
