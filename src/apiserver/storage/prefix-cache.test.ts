import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tempStore } from '../../store/sqlite/testing.js';
import { PrefixCache } from './prefix-cache.js';

const prefix = '/registry/example/widgets/';
const value = (size: number) => () => JSON.stringify({ size });
const sizeOf = (kv: { value: string }) => (JSON.parse(kv.value) as { size: number }).size;

describe('PrefixCache', () => {
  test('holds what was stored before it started, and nothing outside its prefix', async () => {
    const temp = tempStore();
    try {
      await temp.store.create(`${prefix}ns1/a`, value(1));
      await temp.store.create('/registry/example/gadgets/ns1/a', value(9));
      const cache = new PrefixCache(temp.store, prefix, { project: sizeOf });
      assert.equal(cache.ready, false);
      assert.equal(cache.get('ns1/a'), undefined, 'not ready: no answer');
      assert.equal(cache.countIn('ns1'), undefined);
      await cache.start();
      assert.equal(cache.ready, true);
      assert.equal(cache.get('ns1/a'), 1);
      assert.equal(cache.countIn('ns1'), 1);
      assert.equal(cache.countIn('ns2'), 0);
      cache.stop();
    } finally {
      await temp.cleanup();
    }
  });

  test('tells onChange of every change (before and after) and onReset before each list, and moves its version', async () => {
    const temp = tempStore();
    try {
      await temp.store.create(`${prefix}ns1/a`, value(1));
      const seen: string[] = [];
      const cache = new PrefixCache(temp.store, prefix, {
        project: sizeOf,
        onChange: (before, after) => seen.push(`${before ?? '-'}→${after ?? '-'}`),
        onReset: () => seen.push('reset'),
      });
      await cache.start();
      const v0 = cache.version;
      const b = await temp.store.create(`${prefix}ns1/b`, value(2));
      await temp.store.update(`${prefix}ns1/b`, b.modRevision, value(3));
      await temp.store.delete(`${prefix}ns1/a`);
      assert.deepEqual(seen, ['reset', '-→1', '-→2', '2→3', '1→-']);
      assert.ok(cache.version > v0);
      assert.deepEqual(
        [...cache.entries()].map(([k, v]) => [k, v]),
        [[`${prefix}ns1/b`, 3]],
      );
      cache.stop();
      assert.deepEqual([...cache.entries()], [], 'stopped: nothing');
    } finally {
      await temp.cleanup();
    }
  });

  test('a write is in the cache by the time its writer hears it succeeded', async () => {
    const temp = tempStore();
    try {
      const cache = new PrefixCache(temp.store, prefix, { project: sizeOf });
      await cache.start();
      const created = await temp.store.create(`${prefix}ns1/a`, value(1));
      assert.equal(cache.get('ns1/a'), 1);
      await temp.store.update(`${prefix}ns1/a`, created.modRevision, value(2));
      assert.equal(cache.get('ns1/a'), 2);
      await temp.store.create(`${prefix}ns1/b`, value(3));
      await temp.store.create(`${prefix}ns2/c`, value(4));
      assert.deepEqual([cache.countIn('ns1'), cache.countIn('ns2')], [2, 1]);
      await temp.store.delete(`${prefix}ns1/a`);
      assert.equal(cache.get('ns1/a'), undefined);
      assert.deepEqual([cache.countIn('ns1'), cache.countIn('ns2')], [1, 1]);
      await temp.store.delete(`${prefix}ns1/b`);
      assert.equal(cache.countIn('ns1'), 0);
      cache.stop();
    } finally {
      await temp.cleanup();
    }
  });

  test('cluster-scoped keys are counted in the directory ""', async () => {
    const temp = tempStore();
    try {
      const cache = new PrefixCache(temp.store, '/registry/core/namespaces/', { project: () => true });
      await cache.start();
      await temp.store.create('/registry/core/namespaces/team-a', value(0));
      assert.equal(cache.get('team-a'), true);
      assert.equal(cache.countIn(''), 1);
      cache.stop();
    } finally {
      await temp.cleanup();
    }
  });

  test('after stop it no longer answers (callers read the store instead)', async () => {
    const temp = tempStore();
    try {
      await temp.store.create(`${prefix}ns1/a`, value(1));
      const cache = new PrefixCache(temp.store, prefix, { project: sizeOf });
      await cache.start();
      cache.stop();
      assert.equal(cache.ready, false);
      assert.equal(cache.get('ns1/a'), undefined);
      assert.equal(cache.countIn('ns1'), undefined);
    } finally {
      await temp.cleanup();
    }
  });

  test('when its history is compacted away it lists again and stays current', async () => {
    const temp = tempStore();
    try {
      const cache = new PrefixCache(temp.store, prefix, { project: sizeOf });
      await cache.start();
      // A watcher that falls behind a compaction is told so; the cache must recover by relisting.
      (cache as unknown as { restart(err: Error): void }).restart(
        Object.assign(new (await import('../../store/types.js')).StoreError('compacted', 'test'), {}),
      );
      assert.equal(cache.ready, false);
      await temp.store.create(`${prefix}ns1/a`, value(5));
      const deadline = Date.now() + 2000;
      while (!cache.ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.equal(cache.ready, true);
      assert.equal(cache.get('ns1/a'), 5);
      await temp.store.create(`${prefix}ns1/b`, value(6));
      assert.equal(cache.get('ns1/b'), 6);
      cache.stop();
    } finally {
      await temp.cleanup();
    }
  });
});
