/**
 * The Store conformance suite: every behaviour of the contract (types.ts) that is not about
 * one backend's internals, registered as describe/test blocks against a backend factory.
 * Each backend runs it from its own `conformance.test.ts`.
 *
 * Revisions are relative: a store may start at any revision (etcd's start at 1 and several
 * tests share one cluster), so each test counts from the store's revision when it opened.
 * Nothing here waits for time to pass: deliveries are awaited by condition, and "nothing
 * more came" is checked after a later event was seen (events arrive in revision order).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { eventually } from '../../../test/support/eventually.js';
import { StoreError, type KeyValue, type Store, type StoreEvent, type StoreListResult, type StoreWatchHandlers, type ValueEncoder } from '../types.js';

/** A StoreUnderTest is one fresh, empty store (no key of another test is visible in it). */
export interface StoreUnderTest {
  store: Store;
  /** reopen closes the store (if open) and opens the same data again. */
  reopen(): Promise<Store>;
  /** The number of open watchers, when the backend can tell. */
  watcherCount(): number;
  /** cleanup closes the store and frees what it used. */
  cleanup(): Promise<void>;
}

export interface ConformanceBackend {
  /** Named in the describe blocks. */
  name: string;
  open(options?: { maxPausedWatchEvents?: number }): Promise<StoreUnderTest>;
  /**
   * True when writes issued in one turn of the event loop are applied in the order they were
   * issued (SQLite's group commit); false when they race (etcd: separate requests).
   */
  ordersConcurrentWrites: boolean;
  /** How many runs each property test makes (fewer for a backend behind the network). */
  propertyRuns: { list: number; watch: number };
}

// ---- helpers ----

/** json is a ValueEncoder storing `body` with the revision it was given, as the API server does. */
export function json(body: Record<string, unknown>): ValueEncoder {
  return (revision) => JSON.stringify({ ...body, rev: revision });
}

/** brief reduces a KeyValue to what tests usually compare. */
export function brief(kv: KeyValue | undefined): string {
  return kv ? `${kv.key}@${kv.createRevision}/${kv.modRevision}=${kv.value}` : '<none>';
}

/** describeEvent renders an event as one line for comparisons. */
export function describeEvent(event: StoreEvent): string {
  return `${event.type} ${brief(event.kv)} prev ${brief(event.prev)}`;
}

/** settle turns a promise into its value or its error's code, for table comparisons. */
export async function settle<T>(promise: Promise<T>): Promise<{ ok: T } | { error: string; current?: KeyValue }> {
  try {
    return { ok: await promise };
  } catch (err) {
    const e = err as { code?: string; current?: KeyValue; message: string };
    return e.current ? { error: e.code ?? e.message, current: e.current } : { error: e.code ?? e.message };
  }
}

/** waitFor waits until `done` holds (a guard against a hang, not a speed limit). */
export async function waitFor(done: () => boolean, what: string): Promise<void> {
  await eventually(() => done(), what, 30_000, 5);
}

/** A Recorder is a pair of watch handlers that keep what they receive. */
export interface Recorder extends StoreWatchHandlers {
  events: StoreEvent[];
  calls: number;
  errors: Error[];
}

export function recorder(onEvents?: (events: StoreEvent[]) => void): Recorder {
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

/** A Ctx is one test's store and its revision arithmetic. */
interface Ctx {
  t: StoreUnderTest;
  s: Store;
  /** The revision of the n-th write of this test. */
  r: (n: number) => number;
  /** The value `json(body)` stored at the n-th write (etcd's encoders get 0). */
  v: (body: Record<string, unknown>, n: number) => string;
  /** brief() of a key created at write c, last written at write m with `body` written at write w. */
  kv: (key: string, c: number, m: number, body: Record<string, unknown>, w?: number) => string;
}

/** The parts of the suite, each one describe block. */
export type ConformancePart = 'writes' | 'reads' | 'lifecycle' | 'watch' | 'backpressure' | 'compaction';
const allParts: readonly ConformancePart[] = ['writes', 'reads', 'lifecycle', 'watch', 'backpressure', 'compaction'];

/** storeConformance registers the suite (or the given parts of it) for `backend`. */
export function storeConformance(backend: ConformanceBackend, parts: readonly ConformancePart[] = allParts): void {
  const part = (name: ConformancePart, title: string, body: () => void) => {
    if (parts.includes(name)) describe(`${backend.name}: ${title}`, body);
  };

  async function withStore(fn: (c: Ctx) => Promise<void>, options?: { maxPausedWatchEvents?: number }): Promise<void> {
    const t = await backend.open(options);
    try {
      const base = t.store.currentRevision();
      const r = (n: number) => base + n;
      const v = (body: Record<string, unknown>, n: number) => JSON.stringify({ ...body, rev: t.store.embedsRevision ? r(n) : 0 });
      const ctx: Ctx = {
        t,
        get s() {
          return t.store;
        },
        r,
        v,
        kv: (key, c, m, body, w = m) => `${key}@${r(c)}/${r(m)}=${v(body, w)}`,
      };
      await fn(ctx);
    } finally {
      await t.cleanup();
    }
  }

  part('writes', 'compare-and-swap writes', () => {
    /** seed: /k created (write 1) and updated (2); /gone created (3) and deleted (4). */
    async function seed({ s, r }: Ctx): Promise<void> {
      await s.create('/k', json({ v: 'a' }));
      await s.update('/k', r(1), json({ v: 'b' }));
      await s.create('/gone', json({ v: 'g' }));
      await s.delete('/gone');
    }
    const cases: Array<{
      reason: string;
      op: (c: Ctx) => Promise<KeyValue>;
      want: (c: Ctx) => { ok: string } | { error: string; currentMod?: number };
    }> = [
      {
        reason: 'create of an existing key fails with exists and the current value',
        op: (c) => c.s.create('/k', json({ v: 'c' })),
        want: (c) => ({ error: 'exists', currentMod: c.r(2) }),
      },
      {
        reason: 'create of a new key gets the next revision as create and mod revision',
        op: (c) => c.s.create('/new', json({ v: 'n' })),
        want: (c) => ({ ok: c.kv('/new', 5, 5, { v: 'n' }) }),
      },
      {
        reason: 'create of a deleted key starts a new life with a new create revision',
        op: (c) => c.s.create('/gone', json({ v: 'again' })),
        want: (c) => ({ ok: c.kv('/gone', 5, 5, { v: 'again' }) }),
      },
      {
        reason: 'update at the current mod revision succeeds and keeps the create revision',
        op: (c) => c.s.update('/k', c.r(2), json({ v: 'c' })),
        want: (c) => ({ ok: c.kv('/k', 1, 5, { v: 'c' }) }),
      },
      {
        reason: 'update at a stale mod revision conflicts and reports the current value',
        op: (c) => c.s.update('/k', c.r(1), json({ v: 'c' })),
        want: (c) => ({ error: 'conflict', currentMod: c.r(2) }),
      },
      {
        reason: 'update of a missing key is not-found',
        op: (c) => c.s.update('/missing', c.r(1), json({ v: 'c' })),
        want: () => ({ error: 'not-found' }),
      },
      {
        reason: 'update of a deleted key is not-found',
        op: (c) => c.s.update('/gone', c.r(3), json({ v: 'c' })),
        want: () => ({ error: 'not-found' }),
      },
      {
        reason: 'delete at a stale mod revision conflicts',
        op: (c) => c.s.delete('/k', c.r(1)),
        want: (c) => ({ error: 'conflict', currentMod: c.r(2) }),
      },
      {
        reason: 'delete at the current mod revision returns the last value at the delete revision',
        op: (c) => c.s.delete('/k', c.r(2)),
        want: (c) => ({ ok: c.kv('/k', 1, 5, { v: 'b' }, 2) }),
      },
      {
        reason: 'delete without an expected revision always deletes a present key',
        op: (c) => c.s.delete('/k'),
        want: (c) => ({ ok: c.kv('/k', 1, 5, { v: 'b' }, 2) }),
      },
      {
        reason: 'delete of a missing key is not-found',
        op: (c) => c.s.delete('/missing'),
        want: () => ({ error: 'not-found' }),
      },
      {
        reason: 'delete of an already deleted key is not-found',
        op: (c) => c.s.delete('/gone', c.r(4)),
        want: () => ({ error: 'not-found' }),
      },
    ];

    for (const c of cases) {
      test(c.reason, () =>
        withStore(async (ctx) => {
          await seed(ctx);
          const result = await settle(c.op(ctx));
          const got =
            'ok' in result
              ? { ok: brief(result.ok) }
              : result.current
                ? { error: result.error, currentMod: result.current.modRevision }
                : { error: result.error };
          const want = c.want(ctx);
          assert.deepEqual(got, want);
          assert.equal(ctx.s.currentRevision(), ctx.r('ok' in want ? 5 : 4), 'a failed write must not use a revision');
        }),
      );
    }

    test('errors are StoreErrors whose messages name the key and the revisions', () =>
      withStore(async (ctx) => {
        await seed(ctx);
        await assert.rejects(ctx.s.update('/k', ctx.r(1), json({})), (err: unknown) => {
          assert.ok(err instanceof StoreError);
          assert.equal(err.message, `cannot update /k: expected modRevision ${ctx.r(1)}, found ${ctx.r(2)}`);
          return true;
        });
        await assert.rejects(ctx.s.create('', json({})), /expected a non-empty string/);
      }));

    test('an encoder that throws fails its write, which uses no revision', () =>
      withStore(async (ctx) => {
        const { s } = ctx;
        const results = [
          await settle(s.create('/a', json({}))),
          await settle(
            s.create('/b', () => {
              throw new Error('boom');
            }),
          ),
          await settle(s.create('/c', json({}))),
        ];
        assert.deepEqual(
          results.map((r) => ('ok' in r ? brief(r.ok) : r.error)),
          [ctx.kv('/a', 1, 1, {}), 'boom', ctx.kv('/c', 2, 2, {})],
        );
        assert.equal(await s.get('/b'), undefined);
      }));

    test('concurrent creates of overlapping keys: one winner per key, each at its own revision', () =>
      withStore(async ({ s, r }) => {
        const keys = Array.from({ length: 90 }, (_, i) => `/k/${i % 60}`);
        const results = await Promise.all(keys.map((k) => settle(s.create(k, json({ k })))));
        const ok = results.flatMap((x) => ('ok' in x ? [x.ok] : []));
        const failed = results.flatMap((x) => ('ok' in x ? [] : [x.error]));
        assert.equal(ok.length, 60);
        assert.deepEqual(new Set(failed), new Set(['exists']));
        assert.deepEqual(new Set(ok.map((kv) => kv.key)).size, 60);
        assert.deepEqual(
          ok.map((kv) => kv.modRevision).sort((a, b) => a - b),
          Array.from({ length: 60 }, (_, i) => r(i + 1)),
        );
        assert.equal(await s.count('/k/'), 60);
      }));
  });

  part('reads', 'reads', () => {
    /** fill creates /a/0../a/9 (writes 1..10), /ab/x (11), /b/y (12), then updates /a/3 (13) and deletes /a/5 (14). */
    async function fill({ s, r }: Ctx): Promise<void> {
      for (let i = 0; i < 10; i++) await s.create(`/a/${i}`, json({ i }));
      await s.create('/ab/x', json({}));
      await s.create('/b/y', json({}));
      await s.update('/a/3', r(4), json({ i: 33 }));
      await s.delete('/a/5');
    }
    const keysOf = (items: KeyValue[]) => items.map((kv) => kv.key);

    test('get returns the latest value or undefined', () =>
      withStore(async (ctx) => {
        await fill(ctx);
        assert.equal(brief(await ctx.s.get('/a/3')), ctx.kv('/a/3', 4, 13, { i: 33 }));
        assert.equal(await ctx.s.get('/a/5'), undefined);
        assert.equal(await ctx.s.get('/a'), undefined);
      }));

    test('list and count', () =>
      withStore(async (ctx) => {
        const { s, r } = ctx;
        await fill(ctx);
        const cases: Array<{
          reason: string;
          prefix: string;
          options: Parameters<Store['list']>[1];
          want: { keys: string[]; revision: number; more: boolean; remaining: number };
        }> = [
          {
            reason: 'a prefix ending in / excludes siblings sharing its text (/ab/)',
            prefix: '/a/',
            options: {},
            want: { keys: ['/a/0', '/a/1', '/a/2', '/a/3', '/a/4', '/a/6', '/a/7', '/a/8', '/a/9'], revision: r(14), more: false, remaining: 0 },
          },
          {
            reason: 'a prefix without / matches every key starting with its text',
            prefix: '/a',
            options: { limit: 100 },
            want: { keys: ['/a/0', '/a/1', '/a/2', '/a/3', '/a/4', '/a/6', '/a/7', '/a/8', '/a/9', '/ab/x'], revision: r(14), more: false, remaining: 0 },
          },
          {
            reason: 'the empty prefix lists everything',
            prefix: '',
            options: { limit: 2 },
            want: { keys: ['/a/0', '/a/1'], revision: r(14), more: true, remaining: 9 },
          },
          {
            reason: 'a limit reports how many keys follow',
            prefix: '/a/',
            options: { limit: 4 },
            want: { keys: ['/a/0', '/a/1', '/a/2', '/a/3'], revision: r(14), more: true, remaining: 5 },
          },
          {
            reason: 'startAfter continues strictly after the key',
            prefix: '/a/',
            options: { limit: 4, startAfter: '/a/3' },
            want: { keys: ['/a/4', '/a/6', '/a/7', '/a/8'], revision: r(14), more: true, remaining: 1 },
          },
          {
            reason: 'a page that ends exactly at the last key has no more',
            prefix: '/a/',
            options: { limit: 2, startAfter: '/a/7' },
            want: { keys: ['/a/8', '/a/9'], revision: r(14), more: false, remaining: 0 },
          },
          {
            reason: 'startAfter before the prefix is the same as none',
            prefix: '/b/',
            options: { startAfter: '/a/zzz' },
            want: { keys: ['/b/y'], revision: r(14), more: false, remaining: 0 },
          },
          {
            reason: 'startAfter past the prefix lists nothing',
            prefix: '/a/',
            options: { startAfter: '/b/' },
            want: { keys: [], revision: r(14), more: false, remaining: 0 },
          },
          {
            reason: 'a list at an old revision sees the keys and values of that time',
            prefix: '/a/',
            options: { revision: r(6) },
            want: { keys: ['/a/0', '/a/1', '/a/2', '/a/3', '/a/4', '/a/5'], revision: r(6), more: false, remaining: 0 },
          },
          {
            reason: 'a list at an old revision paginates too',
            prefix: '/a/',
            options: { revision: r(13), limit: 3, startAfter: '/a/4' },
            want: { keys: ['/a/5', '/a/6', '/a/7'], revision: r(13), more: true, remaining: 2 },
          },
          {
            reason: 'a list at the current revision equals a latest list',
            prefix: '/a/',
            options: { revision: r(14), limit: 1 },
            want: { keys: ['/a/0'], revision: r(14), more: true, remaining: 8 },
          },
        ];
        for (const c of cases) {
          const got = await s.list(c.prefix, c.options);
          assert.deepEqual({ keys: keysOf(got.items), revision: got.revision, more: got.more, remaining: got.remaining }, c.want, c.reason);
        }
        const old = await s.list('/a/', { revision: r(12) });
        assert.equal(brief(old.items.find((kv) => kv.key === '/a/3')), ctx.kv('/a/3', 4, 4, { i: 3 }), 'old values at an old revision');
        assert.deepEqual([await s.count('/a/'), await s.count('/a'), await s.count(''), await s.count('/c/')], [9, 10, 11, 0]);
      }));

    test('a list at any retained revision shows the state of that revision, page by page (property)', async () => {
      const op = fc.record({
        kind: fc.constantFrom('create', 'create', 'update', 'delete'),
        key: fc.constantFrom('/p/a', '/p/b', '/p/c/d', '/p/e', '/q/f'),
      });
      const groups = fc.array(fc.array(op, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 8 });
      await fc.assert(
        fc.asyncProperty(groups, fc.nat(), fc.integer({ min: 1, max: 3 }), async (writes, compactSeed, pageSize) => {
          await withStore(async ({ s }) => {
            const base = s.currentRevision();
            // Each group is issued at once; record what every successful write did.
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
            const compactTo = base + (compactSeed % (head - base + 1));
            await s.compact(compactTo);
            for (let revision = Math.max(compactTo, base + 1); revision <= head; revision++) {
              // The model: replay every write up to `revision`.
              const state = new Map<string, KeyValue>();
              for (const kv of done.filter((kv) => kv.modRevision <= revision).sort((a, b) => a.modRevision - b.modRevision)) {
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
          });
        }),
        { numRuns: backend.propertyRuns.list },
      );
    });

    test('a list at a future revision fails with future-revision', () =>
      withStore(async (ctx) => {
        await fill(ctx);
        await assert.rejects(ctx.s.list('/a/', { revision: ctx.r(15) }), { code: 'future-revision' });
      }));
  });

  part('lifecycle', 'lifecycle', () => {
    test('a reopened store keeps its keys, values, revision and compacted revision', () =>
      withStore(async (ctx) => {
        const { t, r } = ctx;
        await t.store.create('/a', json({ v: 1 }));
        await t.store.create('/b', json({ v: 2 }));
        await t.store.update('/a', r(1), json({ v: 3 }));
        await t.store.delete('/b');
        await t.store.compact(r(2));
        const before = await t.store.list('');
        const s = await t.reopen();
        assert.equal(s.currentRevision(), r(4));
        assert.equal(s.compactedRevision(), r(2));
        // Compared field by field: a store may hand out KeyValues of its own class (the etcd watch cache's).
        const shown = (list: StoreListResult) => ({ ...list, items: list.items.map(brief) });
        assert.deepEqual(shown(await s.list('')), shown(before));
        assert.equal(brief(await s.create('/c', json({}))), ctx.kv('/c', 5, 5, {}), 'revisions continue after a reopen');
        await assert.rejects(s.list('', { revision: r(1) }), { code: 'compacted' });
      }));

    test('close lets writes in flight finish and ends watches; afterwards every call fails with closed', () =>
      withStore(async (ctx) => {
        const { t } = ctx;
        const pending = t.store.create('/queued', json({}));
        const errors: string[] = [];
        t.store.watch('/', 0, { onEvents() {}, onError: (e) => errors.push((e as StoreError).code) });
        await t.store.close();
        assert.equal(brief(await pending), ctx.kv('/queued', 1, 1, {}));
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
        assert.equal(brief(await s.get('/queued')), ctx.kv('/queued', 1, 1, {}));
      }));
  });

  part('watch', 'watch', () => {
    test('a watcher from revision R sees exactly the events after R under its prefix, in order (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          groupsArb,
          groupsArb,
          fc.constantFrom('', '/w/', '/w', '/x/', '/w/a'),
          fc.nat(),
          fc.nat(),
          async (before, after, prefix, startSeed, compactSeed) => {
            await withStore(async ({ s }) => {
              const model = new Model(s.currentRevision());
              const base = model.head;
              for (const [g, group] of before.entries()) await issue(s, model, group, `b${g}`, backend.ordersConcurrentWrites);
              // Start anywhere in the history (0 = from now), possibly after a compaction.
              const head = s.currentRevision();
              const span = head - base;
              const start = startSeed % (span + 1) === 0 ? 0 : base + (startSeed % (span + 1));
              const compactTo = start === 0 ? base + (compactSeed % (span + 1)) : base + (compactSeed % (start - base + 1));
              if (compactTo > base) await s.compact(compactTo);
              const rec = recorder();
              const watcher = s.watch(prefix, start, rec);
              const from = start === 0 ? head : start;
              // Writes while the watcher is still replaying history, then one that ends the run.
              for (const [g, group] of after.entries()) await issue(s, model, group, `a${g}`, backend.ordersConcurrentWrites);
              const last = `${prefix}~end`;
              await issue(s, model, [{ kind: 'create', key: last, stale: false, conditional: false }], 'end', true);
              const want = model.events.filter((e) => e.kv.modRevision > from && e.kv.key.startsWith(prefix));
              await waitFor(() => rec.errors.length > 0 || rec.events.some((e) => e.kv.key === last), 'the watcher to reach the last write');
              assert.deepEqual(rec.errors, []);
              assert.deepEqual(rec.events.map(describeEvent), want.map(describeEvent));
              watcher.close();
            });
          },
        ),
        { numRuns: backend.propertyRuns.watch },
      );
    });

    test('where a watch starts', () =>
      withStore(async ({ s, r }) => {
        for (const k of ['/s/1', '/s/2', '/s/3']) await s.create(k, json({}));
        const cases = [
          { reason: 'revision 0 means from now: no history', after: 0, want: ['/s/4'] },
          { reason: 'the current revision: no history either', after: r(3), want: ['/s/4'] },
          { reason: 'an older revision replays the history after it', after: r(1), want: ['/s/2', '/s/3', '/s/4'] },
        ];
        const recorders = cases.map((c) => {
          const rec = recorder();
          s.watch('/s/', c.after, rec);
          return rec;
        });
        await s.create('/s/4', json({}));
        await waitFor(() => recorders.every((rec) => rec.events.some((e) => e.kv.key === '/s/4')), 'the last event');
        cases.forEach((c, i) =>
          assert.deepEqual(
            recorders[i]?.events.map((e) => e.kv.key),
            c.want,
            c.reason,
          ),
        );
      }));

    test('watches that cannot start throw', () =>
      withStore(async ({ s, r }) => {
        for (const k of ['/s/1', '/s/2', '/s/3']) await s.create(k, json({}));
        await s.compact(r(2));
        const none = { onEvents() {}, onError() {} };
        assert.throws(() => s.watch('/s/', r(1), none), { code: 'compacted' }, 'below the compacted revision');
        assert.throws(() => s.watch('/s/', r(4), none), { code: 'future-revision' }, 'after the current revision');
        assert.throws(() => s.watch('/s/', -1, none), RangeError, 'a negative revision');
        const rec = recorder();
        s.watch('/s/', r(2), rec); // at the compacted revision: the events after it are all there
        await waitFor(() => rec.events.length === 1, 'the one event after the compacted revision');
        assert.equal(rec.events[0]?.kv.key, '/s/3');
      }));

    test('a handler that throws closes its watcher with onError; others carry on', () =>
      withStore(async ({ s, t }) => {
        const bad = recorder(() => {
          throw new Error('handler broke');
        });
        const good = recorder();
        s.watch('/s/', 0, bad);
        s.watch('/s/', 0, good);
        await s.create('/s/1', json({}));
        await s.create('/s/2', json({}));
        await waitFor(() => good.events.length === 2 && bad.errors.length === 1, 'both events and the error');
        assert.equal(bad.calls, 1, 'no delivery after the handler threw');
        assert.match(bad.errors[0]?.message ?? '', /handler broke/);
        assert.deepEqual(
          good.events.map((e) => e.kv.key),
          ['/s/1', '/s/2'],
        );
        assert.equal(t.watcherCount(), 1);
      }));

    test('close stops delivery, even from inside a handler', () =>
      withStore(async ({ s, t }) => {
        const rec = recorder(() => watcher.close());
        const watcher = s.watch('/s/', 0, rec);
        const witness = recorder();
        s.watch('/s/', 0, witness);
        await Promise.all([s.create('/s/1', json({})), s.create('/s/2', json({}))]);
        await s.create('/s/3', json({}));
        // On etcd each watcher has a stream of its own: the closed one's first delivery may come after the witness's.
        await waitFor(() => witness.events.length === 3 && rec.calls >= 1, 'the witness to see every event and the closer its first');
        assert.equal(rec.calls, 1);
        assert.deepEqual(rec.errors, []);
        watcher.close();
        assert.equal(t.watcherCount(), 1);
      }));

    test('150 watchers on different prefixes each get only their own events', () =>
      withStore(async ({ s }) => {
        const recorders = Array.from({ length: 150 }, (_, i) => {
          const rec = recorder();
          s.watch(`/ns/${i}/`, 0, rec);
          return rec;
        });
        const all = recorder();
        s.watch('/ns/', 0, all);
        await Promise.all(Array.from({ length: 300 }, (_, i) => s.create(`/ns/${i % 150}/obj-${i}`, json({}))));
        await waitFor(() => all.events.length === 300 && recorders.every((rec) => rec.events.length >= 2), 'every event');
        recorders.forEach((rec, i) => assert.deepEqual(rec.events.map((e) => e.kv.key).sort(), [`/ns/${i}/obj-${i}`, `/ns/${i}/obj-${i + 150}`].sort()));
      }));
  });

  part('backpressure', 'watch backpressure', () => {
    test('a handler that takes only some events pauses the watcher; resume replays the rest, then live', () =>
      withStore(async ({ s }) => {
        let budget = 1;
        const taken: string[] = [];
        const errors: Error[] = [];
        const watcher = s.watch('/s/', 0, {
          onEvents(events) {
            const n = Math.min(budget, events.length);
            for (const e of events.slice(0, n)) taken.push(e.kv.key);
            budget -= n;
            return n;
          },
          onError: (err) => errors.push(err),
        });
        const witness = recorder();
        s.watch('/s/', 0, witness);
        await Promise.all([s.create('/s/1', json({})), s.create('/s/2', json({})), s.create('/s/3', json({}))]);
        await s.create('/s/4', json({}));
        await waitFor(() => witness.events.length === 4, 'the witness to see four events');
        assert.equal(taken.length, 1, 'a paused watcher delivers nothing more');
        budget = Infinity;
        watcher.resume();
        await waitFor(() => taken.length === 4, 'the missed events');
        await s.create('/s/5', json({}));
        await waitFor(() => taken.length === 5 && witness.events.length === 5, 'a live event after the catch-up');
        assert.deepEqual(
          taken,
          witness.events.map((e) => e.kv.key),
          'in revision order, no gap, no duplicate',
        );
        assert.deepEqual([...taken].sort(), ['/s/1', '/s/2', '/s/3', '/s/4', '/s/5']);
        assert.deepEqual(errors, []);
      }));

    test('a paused watcher that misses more events than the limit ends with too-far-behind and is released', () =>
      withStore(
        async ({ s, t }) => {
          const errors: Error[] = [];
          const other = recorder();
          s.watch('/s/', 0, { onEvents: () => 0, onError: (err) => errors.push(err) });
          s.watch('/s/', 0, other);
          assert.equal(t.watcherCount(), 2);
          // The paused watcher misses at least the three events after the one it refused
          // (a backend may count that one too).
          for (let i = 0; i < 3; i++) await s.create(`/s/${i}`, json({}));
          await waitFor(() => other.events.length === 3, 'the other watcher to see three events');
          assert.deepEqual(errors, [], 'three missed events are within the limit');
          await s.create('/s/3', json({}));
          await s.create('/s/4', json({}));
          await waitFor(() => errors.length === 1, 'the slow watcher to be dropped');
          const err: unknown = errors[0];
          assert.ok(err instanceof StoreError, String(err));
          assert.equal(err.code, 'too-far-behind');
          assert.equal(t.watcherCount(), 1, 'the dropped watcher is released');
          await waitFor(() => other.events.length === 5, 'the other watcher to see every event');
        },
        { maxPausedWatchEvents: 3 },
      ));
  });

  part('compaction', 'compaction', () => {
    /** history: /a created (1) and updated (2); /b created (3) and deleted (4); /c created (5) and updated (6); /b created again (7). */
    async function history({ s, r }: Ctx): Promise<void> {
      await s.create('/a', json({ v: 1 }));
      await s.update('/a', r(1), json({ v: 2 }));
      await s.create('/b', json({ v: 3 }));
      await s.delete('/b');
      await s.create('/c', json({ v: 5 }));
      await s.update('/c', r(5), json({ v: 6 }));
      await s.create('/b', json({ v: 7 }));
    }

    test('reads below the compacted revision fail; reads at or above it are unchanged', () =>
      withStore(async (ctx) => {
        const { s, r } = ctx;
        await history(ctx);
        const listAt = async (revision: number) => (await s.list('', { revision })).items.map(brief);
        const before = { at5: await listAt(r(5)), at6: await listAt(r(6)), latest: (await s.list('')).items.map(brief) };
        await s.compact(r(5));
        assert.equal(s.compactedRevision(), r(5));
        for (const n of [1, 4]) {
          await assert.rejects(s.list('', { revision: r(n) }), { code: 'compacted' }, `list at write ${n}`);
        }
        assert.deepEqual({ at5: await listAt(r(5)), at6: await listAt(r(6)), latest: (await s.list('')).items.map(brief) }, before);
        assert.deepEqual(before.at5, [ctx.kv('/a', 1, 2, { v: 2 }), ctx.kv('/c', 5, 5, { v: 5 })]);
      }));

    test('a watch from the compacted revision still gets previous values', () =>
      withStore(async (ctx) => {
        const { s, r } = ctx;
        await history(ctx);
        await s.delete('/c'); // 8
        await s.compact(r(6));
        const rec = recorder();
        s.watch('', r(6), rec);
        await waitFor(() => rec.events.length === 2 || rec.errors.length > 0, 'two events');
        assert.deepEqual(rec.errors, []);
        assert.deepEqual(rec.events.map(describeEvent), [
          `put ${ctx.kv('/b', 7, 7, { v: 7 })} prev <none>`,
          `delete /c@${r(5)}/${r(8)}=${ctx.v({ v: 6 }, 6)} prev ${ctx.kv('/c', 5, 6, { v: 6 })}`,
        ]);
      }));

    test('compact arguments', () =>
      withStore(async (ctx) => {
        const { s, r } = ctx;
        await history(ctx);
        await assert.rejects(s.compact(r(8)), { code: 'future-revision' });
        await assert.rejects(s.compact(-1), RangeError);
        await s.compact(r(4));
        await s.compact(r(2)); // lower than the compacted revision: nothing to do
        assert.equal(s.compactedRevision(), r(4));
      }));
  });
}

// ---- a model of the store for the watch property ----

type ModelOp = { kind: 'create' | 'update' | 'delete'; key: string; stale: boolean; conditional: boolean };

/** A Model predicts every write's outcome and event from the writes before it. */
class Model {
  private readonly live = new Map<string, KeyValue>();
  readonly events: StoreEvent[] = [];

  constructor(public head: number) {}

  /** apply returns what the store must answer: the KeyValue or the error code. */
  apply(op: ModelOp, value: string): { ok: KeyValue } | { error: string } {
    const current = this.live.get(op.key);
    const rev = this.head + 1;
    const expected = this.expectedOf(op);
    switch (op.kind) {
      case 'create': {
        if (current) return { error: 'exists' };
        const kv = { key: op.key, value, createRevision: rev, modRevision: rev };
        this.commit(kv, { type: 'put', kv });
        return { ok: kv };
      }
      case 'update': {
        if (!current) return { error: 'not-found' };
        if (expected !== current.modRevision) return { error: 'conflict' };
        const kv = { key: op.key, value, createRevision: current.createRevision, modRevision: rev };
        this.commit(kv, { type: 'put', kv, prev: current });
        return { ok: kv };
      }
      case 'delete': {
        if (!current) return { error: 'not-found' };
        if (op.conditional && expected !== current.modRevision) return { error: 'conflict' };
        const kv = { ...current, modRevision: rev };
        this.live.delete(op.key);
        this.head = rev;
        this.events.push({ type: 'delete', kv, prev: current });
        return { ok: kv };
      }
    }
  }

  expectedOf(op: ModelOp): number {
    const current = this.live.get(op.key);
    return current ? (op.stale ? current.modRevision - 1 : current.modRevision) : 1;
  }

  private commit(kv: KeyValue, event: StoreEvent): void {
    this.live.set(kv.key, kv);
    this.head = kv.modRevision;
    this.events.push(event);
  }
}

const watchKeys = ['/w/a', '/w/b', '/w/c/d', '/wz', '/x/e'];
const opArb: fc.Arbitrary<ModelOp> = fc.record({
  kind: fc.constantFrom('create', 'create', 'update', 'update', 'delete'),
  key: fc.constantFrom(...watchKeys),
  stale: fc.boolean(),
  conditional: fc.boolean(),
});
/** Writes come in groups; a backend that orders concurrent writes gets each group in one tick. */
const groupsArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 });

/**
 * issue sends one group of writes — at once when the backend orders concurrent writes, else
 * one after another — and checks each result against the model.
 */
async function issue(store: Store, model: Model, group: ModelOp[], tag: string, atOnce: boolean): Promise<void> {
  const send = (op: ModelOp, i: number) => {
    const value = json({ tag, i });
    const expected = model.expectedOf(op);
    const want = model.apply(op, value(store.embedsRevision ? model.head + 1 : 0));
    const promise =
      op.kind === 'create'
        ? store.create(op.key, value)
        : op.kind === 'update'
          ? store.update(op.key, expected, value)
          : store.delete(op.key, op.conditional ? expected : undefined);
    return settle(promise).then((got) => {
      const actual = 'ok' in got ? { ok: got.ok } : { error: got.error };
      assert.deepEqual(actual, want, `${op.kind} ${op.key}`);
    });
  };
  if (atOnce) {
    await Promise.all(group.map(send));
    return;
  }
  for (const [i, op] of group.entries()) await send(op, i);
}
