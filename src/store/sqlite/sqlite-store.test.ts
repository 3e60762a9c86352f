import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openSqliteStore, type SqliteStore } from './sqlite-store.js';
import { StoreError, type KeyValue } from '../types.js';
import { brief, json, settle, tempStore } from './testing.js';

/** seed writes the state every CAS case starts from: /k at create 1, mod 2; /gone created at 3 and deleted at 4. */
async function seed(store: SqliteStore): Promise<void> {
  await store.create('/k', json({ v: 'a' }));
  await store.update('/k', 1, json({ v: 'b' }));
  await store.create('/gone', json({ v: 'g' }));
  await store.delete('/gone');
}

describe('compare-and-swap writes', () => {
  const cases: Array<{
    reason: string;
    op: (s: SqliteStore) => Promise<KeyValue>;
    want: { ok: string } | { error: string; currentMod?: number };
  }> = [
    {
      reason: 'create of an existing key fails with exists and the current value',
      op: (s) => s.create('/k', json({ v: 'c' })),
      want: { error: 'exists', currentMod: 2 },
    },
    {
      reason: 'create of a new key gets the next revision as create and mod revision',
      op: (s) => s.create('/new', json({ v: 'n' })),
      want: { ok: '/new@5/5={"v":"n","rev":5}' },
    },
    {
      reason: 'create of a deleted key starts a new life with a new create revision',
      op: (s) => s.create('/gone', json({ v: 'again' })),
      want: { ok: '/gone@5/5={"v":"again","rev":5}' },
    },
    {
      reason: 'update at the current mod revision succeeds and keeps the create revision',
      op: (s) => s.update('/k', 2, json({ v: 'c' })),
      want: { ok: '/k@1/5={"v":"c","rev":5}' },
    },
    {
      reason: 'update at a stale mod revision conflicts and reports the current value',
      op: (s) => s.update('/k', 1, json({ v: 'c' })),
      want: { error: 'conflict', currentMod: 2 },
    },
    {
      reason: 'update of a missing key is not-found',
      op: (s) => s.update('/missing', 1, json({ v: 'c' })),
      want: { error: 'not-found' },
    },
    {
      reason: 'update of a deleted key is not-found',
      op: (s) => s.update('/gone', 3, json({ v: 'c' })),
      want: { error: 'not-found' },
    },
    {
      reason: 'delete at a stale mod revision conflicts',
      op: (s) => s.delete('/k', 1),
      want: { error: 'conflict', currentMod: 2 },
    },
    {
      reason: 'delete at the current mod revision returns the last value at the delete revision',
      op: (s) => s.delete('/k', 2),
      want: { ok: '/k@1/5={"v":"b","rev":2}' },
    },
    {
      reason: 'delete without an expected revision always deletes a present key',
      op: (s) => s.delete('/k'),
      want: { ok: '/k@1/5={"v":"b","rev":2}' },
    },
    {
      reason: 'delete of a missing key is not-found',
      op: (s) => s.delete('/missing'),
      want: { error: 'not-found' },
    },
    {
      reason: 'delete of an already deleted key is not-found',
      op: (s) => s.delete('/gone', 4),
      want: { error: 'not-found' },
    },
  ];

  for (const c of cases) {
    test(c.reason, async () => {
      const t = tempStore();
      try {
        await seed(t.store);
        const result = await settle(c.op(t.store));
        const got =
          'ok' in result
            ? { ok: brief(result.ok) }
            : result.current
              ? { error: result.error, currentMod: result.current.modRevision }
              : { error: result.error };
        assert.deepEqual(got, c.want);
        const wantRevision = 'ok' in c.want ? 5 : 4;
        assert.equal(t.store.currentRevision(), wantRevision, 'a failed write must not use a revision');
      } finally {
        await t.cleanup();
      }
    });
  }

  test('errors are StoreErrors whose messages name the key and the revisions', async () => {
    const t = tempStore();
    try {
      await seed(t.store);
      await assert.rejects(t.store.update('/k', 1, json({})), (err: unknown) => {
        assert.ok(err instanceof StoreError);
        assert.equal(err.message, 'cannot update /k: expected modRevision 1, found 2');
        return true;
      });
      await assert.rejects(t.store.create('', json({})), /expected a non-empty string/);
    } finally {
      await t.cleanup();
    }
  });

  test('an encoder that throws fails only its own write and uses no revision', async () => {
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
});

describe('group commit', () => {
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

describe('reads', () => {
  /** fill creates /a/0../a/9 (revisions 1..10), /ab/x (11), /b/y (12), then updates /a/3 (13) and deletes /a/5 (14). */
  async function fill(s: SqliteStore): Promise<void> {
    for (let i = 0; i < 10; i++) await s.create(`/a/${i}`, json({ i }));
    await s.create('/ab/x', json({}));
    await s.create('/b/y', json({}));
    await s.update('/a/3', 4, json({ i: 33 }));
    await s.delete('/a/5');
  }
  const keysOf = (items: KeyValue[]) => items.map((kv) => kv.key);

  test('get returns the latest value or undefined', async () => {
    const t = tempStore();
    try {
      await fill(t.store);
      assert.equal(brief(await t.store.get('/a/3')), '/a/3@4/13={"i":33,"rev":13}');
      assert.equal(await t.store.get('/a/5'), undefined);
      assert.equal(await t.store.get('/a'), undefined);
    } finally {
      await t.cleanup();
    }
  });

  test('list and count', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      await fill(s);
      const cases: Array<{
        reason: string;
        prefix: string;
        options: Parameters<SqliteStore['list']>[1];
        want: { keys: string[]; revision: number; more: boolean; remaining: number };
      }> = [
        {
          reason: 'a prefix ending in / excludes siblings sharing its text (/ab/)',
          prefix: '/a/',
          options: {},
          want: { keys: ['/a/0', '/a/1', '/a/2', '/a/3', '/a/4', '/a/6', '/a/7', '/a/8', '/a/9'], revision: 14, more: false, remaining: 0 },
        },
        {
          reason: 'a prefix without / matches every key starting with its text',
          prefix: '/a',
          options: { limit: 100 },
          want: { keys: ['/a/0', '/a/1', '/a/2', '/a/3', '/a/4', '/a/6', '/a/7', '/a/8', '/a/9', '/ab/x'], revision: 14, more: false, remaining: 0 },
        },
        {
          reason: 'the empty prefix lists everything',
          prefix: '',
          options: { limit: 2 },
          want: { keys: ['/a/0', '/a/1'], revision: 14, more: true, remaining: 9 },
        },
        {
          reason: 'a limit reports how many keys follow',
          prefix: '/a/',
          options: { limit: 4 },
          want: { keys: ['/a/0', '/a/1', '/a/2', '/a/3'], revision: 14, more: true, remaining: 5 },
        },
        {
          reason: 'startAfter continues strictly after the key',
          prefix: '/a/',
          options: { limit: 4, startAfter: '/a/3' },
          want: { keys: ['/a/4', '/a/6', '/a/7', '/a/8'], revision: 14, more: true, remaining: 1 },
        },
        {
          reason: 'a page that ends exactly at the last key has no more',
          prefix: '/a/',
          options: { limit: 2, startAfter: '/a/7' },
          want: { keys: ['/a/8', '/a/9'], revision: 14, more: false, remaining: 0 },
        },
        {
          reason: 'startAfter before the prefix is the same as none',
          prefix: '/b/',
          options: { startAfter: '/a/zzz' },
          want: { keys: ['/b/y'], revision: 14, more: false, remaining: 0 },
        },
        {
          reason: 'a list at an old revision sees the keys and values of that time',
          prefix: '/a/',
          options: { revision: 6 },
          want: { keys: ['/a/0', '/a/1', '/a/2', '/a/3', '/a/4', '/a/5'], revision: 6, more: false, remaining: 0 },
        },
        {
          reason: 'a list at an old revision paginates too',
          prefix: '/a/',
          options: { revision: 13, limit: 3, startAfter: '/a/4' },
          want: { keys: ['/a/5', '/a/6', '/a/7'], revision: 13, more: true, remaining: 2 },
        },
        {
          reason: 'a list at the current revision equals a latest list',
          prefix: '/a/',
          options: { revision: 14, limit: 1 },
          want: { keys: ['/a/0'], revision: 14, more: true, remaining: 8 },
        },
      ];
      for (const c of cases) {
        const got = await s.list(c.prefix, c.options);
        assert.deepEqual({ keys: keysOf(got.items), revision: got.revision, more: got.more, remaining: got.remaining }, c.want, c.reason);
      }
      const old = await s.list('/a/', { revision: 12 });
      assert.equal(brief(old.items.find((kv) => kv.key === '/a/3')), '/a/3@4/4={"i":3,"rev":4}', 'old values at an old revision');
      assert.deepEqual([await s.count('/a/'), await s.count('/a'), await s.count(''), await s.count('/c/')], [9, 10, 11, 0]);
    } finally {
      await t.cleanup();
    }
  });

  test('a list at any retained revision shows the state of that revision, page by page (property)', async () => {
    const op = fc.record({
      kind: fc.constantFrom('create', 'create', 'update', 'delete'),
      key: fc.constantFrom('/p/a', '/p/b', '/p/c/d', '/p/e', '/q/f'),
    });
    const groups = fc.array(fc.array(op, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(groups, fc.nat(), fc.integer({ min: 1, max: 3 }), async (writes, compactSeed, pageSize) => {
        const t = tempStore();
        try {
          const s = t.store;
          // Issue each group in one tick; record what every successful write did.
          const done: KeyValue[] = [];
          const deleted = new Set<number>();
          for (const group of writes) {
            const results = await Promise.all(
              group.map(async (w) => {
                const current = await s.get(w.key);
                if (w.kind === 'create') return settle(s.create(w.key, json({})));
                if (w.kind === 'update') return settle(s.update(w.key, current?.modRevision ?? 1, json({})));
                return settle(s.delete(w.key));
              }),
            );
            group.forEach((w, i) => {
              const r = results[i];
              if (r && 'ok' in r) {
                done.push(r.ok);
                if (w.kind === 'delete') deleted.add(r.ok.modRevision);
              }
            });
          }
          const head = s.currentRevision();
          const compactTo = compactSeed % (head + 1);
          await s.compact(compactTo);
          for (let revision = Math.max(compactTo, 1); revision <= head; revision++) {
            // The model: replay every write up to `revision`.
            const state = new Map<string, KeyValue>();
            for (const kv of done.filter((kv) => kv.modRevision <= revision)) {
              if (deleted.has(kv.modRevision)) state.delete(kv.key);
              else state.set(kv.key, kv);
            }
            const want = [...state.values()].filter((kv) => kv.key.startsWith('/p/')).sort((a, b) => (a.key < b.key ? -1 : 1));
            const pages: KeyValue[] = [];
            let startAfter: string | undefined;
            for (;;) {
              const page = await s.list('/p/', { revision, limit: pageSize, ...(startAfter ? { startAfter } : {}) });
              pages.push(...page.items);
              assert.equal(page.remaining, want.length - pages.length, 'remaining counts the keys after the page');
              if (!page.more) break;
              startAfter = page.items[page.items.length - 1]?.key;
            }
            assert.deepEqual(pages.map(brief), want.map(brief), `list at ${revision}`);
          }
        } finally {
          await t.cleanup();
        }
      }),
      { numRuns: 30 },
    );
  });

  test('a list at a future revision fails with future-revision', async () => {
    const t = tempStore();
    try {
      await fill(t.store);
      await assert.rejects(t.store.list('/a/', { revision: 15 }), { code: 'future-revision' });
    } finally {
      await t.cleanup();
    }
  });
});

describe('lifecycle', () => {
  test('a reopened store keeps its keys, values, revision and compacted revision', async () => {
    const t = tempStore();
    try {
      await t.store.create('/a', json({ v: 1 }));
      await t.store.create('/b', json({ v: 2 }));
      await t.store.update('/a', 1, json({ v: 3 }));
      await t.store.delete('/b');
      await t.store.compact(2);
      const before = await t.store.list('');
      const s = await t.reopen();
      assert.equal(s.currentRevision(), 4);
      assert.equal(s.compactedRevision(), 2);
      assert.deepEqual(await s.list(''), before);
      assert.equal(brief(await s.create('/c', json({}))), '/c@5/5={"rev":5}', 'revisions continue after a restart');
      await assert.rejects(s.list('', { revision: 1 }), { code: 'compacted' });
    } finally {
      await t.cleanup();
    }
  });

  test('close commits queued writes; afterwards every call fails with closed', async () => {
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
      await t.store.close(); // a second close is harmless
      const closed = { code: 'closed' };
      await assert.rejects(t.store.get('/queued'), closed);
      await assert.rejects(t.store.list('/'), closed);
      await assert.rejects(t.store.count('/'), closed);
      await assert.rejects(t.store.create('/x', json({})), closed);
      await assert.rejects(t.store.update('/x', 1, json({})), closed);
      await assert.rejects(t.store.delete('/x'), closed);
      await assert.rejects(t.store.compact(1), closed);
      assert.throws(() => t.store.watch('/', 0, { onEvents() {}, onError() {} }), closed);
      const s = await t.reopen();
      assert.equal(brief(await s.get('/queued')), '/queued@1/1={"rev":1}');
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
