import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { StoreError, type KeyValue, type StoreEvent, type StoreWatchHandlers } from '../types.js';
import { revisionsPerStep } from './options.js';
import type { SqliteStore } from './sqlite-store.js';
import { describeEvent, json, nextTurn, settle, tempStore } from './testing.js';

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

// ---- a model of the store for the property test ----

type ModelOp = { kind: 'create' | 'update' | 'delete'; key: string; stale: boolean; conditional: boolean };

/** A Model predicts every write's outcome and event from the writes before it. */
class Model {
  head = 0;
  private readonly live = new Map<string, KeyValue>();
  readonly events: StoreEvent[] = [];

  /** apply returns what the store must answer: the KeyValue or the error code. */
  apply(op: ModelOp, value: (rev: number) => string): { ok: KeyValue } | { error: string } {
    const current = this.live.get(op.key);
    const rev = this.head + 1;
    const expected = current ? (op.stale ? current.modRevision - 1 : current.modRevision) : 1;
    switch (op.kind) {
      case 'create': {
        if (current) return { error: 'exists' };
        const kv = { key: op.key, value: value(rev), createRevision: rev, modRevision: rev };
        this.commit(kv, { type: 'put', kv });
        return { ok: kv };
      }
      case 'update': {
        if (!current) return { error: 'not-found' };
        if (expected !== current.modRevision) return { error: 'conflict' };
        const kv = { key: op.key, value: value(rev), createRevision: current.createRevision, modRevision: rev };
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

const keys = ['/w/a', '/w/b', '/w/c/d', '/wz', '/x/e'];
const opArb: fc.Arbitrary<ModelOp> = fc.record({
  kind: fc.constantFrom('create', 'create', 'update', 'update', 'delete'),
  key: fc.constantFrom(...keys),
  stale: fc.boolean(),
  conditional: fc.boolean(),
});
/** Writes come in groups; each group is issued in one tick and so shares a commit. */
const groupsArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 });

/** issue sends one group of writes in one tick and checks each result against the model. */
async function issue(store: SqliteStore, model: Model, group: ModelOp[], tag: string): Promise<void> {
  const pending = group.map((op, i) => {
    const value = (rev: number) => JSON.stringify({ tag, i, rev });
    const expected = model.expectedOf(op);
    const want = model.apply(op, value);
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
  });
  await Promise.all(pending);
}

describe('watch', () => {
  test('a watcher from revision R sees exactly the events after R under its prefix, in order (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        groupsArb,
        groupsArb,
        fc.constantFrom('', '/w/', '/w', '/x/', '/w/a'),
        fc.nat(),
        fc.nat(),
        async (before, after, prefix, startSeed, compactSeed) => {
          const t = tempStore();
          try {
            const model = new Model();
            for (const [g, group] of before.entries()) await issue(t.store, model, group, `b${g}`);
            // Start anywhere in the history (0 = from now), possibly after a compaction.
            const head = t.store.currentRevision();
            const start = startSeed % (head + 1);
            const compactTo = start === 0 ? compactSeed % (head + 1) : compactSeed % (start + 1);
            if (compactTo > 0) await t.store.compact(compactTo);
            const rec = recorder();
            const watcher = t.store.watch(prefix, start, rec);
            const from = start === 0 ? head : start;
            // Writes while the watcher is still replaying history.
            for (const [g, group] of after.entries()) await issue(t.store, model, group, `a${g}`);
            const want = model.events.filter((e) => e.kv.modRevision > from && e.kv.key.startsWith(prefix));
            await waitFor(() => rec.events.length >= want.length && t.store.stats().watchers === 1, 'the watcher to catch up');
            await nextTurn();
            assert.deepEqual(rec.errors, []);
            assert.deepEqual(rec.events.map(describeEvent), want.map(describeEvent));
            watcher.close();
          } finally {
            await t.cleanup();
          }
        },
      ),
      { numRuns: 40 },
    );
  });

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

  test('where a watch starts', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      for (const k of ['/s/1', '/s/2', '/s/3']) await s.create(k, json({}));
      const cases = [
        { reason: 'revision 0 means from now: no history', after: 0, want: ['/s/4'] },
        { reason: 'the current revision: no history either', after: 3, want: ['/s/4'] },
        { reason: 'an older revision replays the history after it', after: 1, want: ['/s/2', '/s/3', '/s/4'] },
      ];
      const recorders = cases.map((c) => {
        const rec = recorder();
        s.watch('/s/', c.after, rec);
        return rec;
      });
      await s.create('/s/4', json({}));
      await waitFor(() => recorders.every((r, i) => r.events.length >= (cases[i]?.want.length ?? 0)), 'the events');
      await nextTurn();
      cases.forEach((c, i) =>
        assert.deepEqual(
          recorders[i]?.events.map((e) => e.kv.key),
          c.want,
          c.reason,
        ),
      );
    } finally {
      await t.cleanup();
    }
  });

  test('watches that cannot start throw', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      for (const k of ['/s/1', '/s/2', '/s/3']) await s.create(k, json({}));
      await s.compact(2);
      const none = { onEvents() {}, onError() {} };
      assert.throws(() => s.watch('/s/', 1, none), { code: 'compacted' }, 'below the compacted revision');
      assert.throws(() => s.watch('/s/', 4, none), { code: 'future-revision' }, 'after the current revision');
      assert.throws(() => s.watch('/s/', -1, none), RangeError, 'a negative revision');
      const rec = recorder();
      s.watch('/s/', 2, rec); // at the compacted revision: the events after it are all there
      await waitFor(() => rec.events.length === 1, 'the one event after 2');
      assert.equal(rec.events[0]?.kv.key, '/s/3');
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

  test('a handler that throws closes its watcher with onError; others carry on', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      const bad = recorder(() => {
        throw new Error('handler broke');
      });
      const good = recorder();
      s.watch('/s/', 0, bad);
      s.watch('/s/', 0, good);
      await s.create('/s/1', json({}));
      await s.create('/s/2', json({}));
      await nextTurn();
      assert.equal(bad.events.length, 1);
      assert.equal(bad.errors.length, 1);
      assert.match(bad.errors[0]?.message ?? '', /handler broke/);
      assert.deepEqual(
        good.events.map((e) => e.kv.key),
        ['/s/1', '/s/2'],
      );
      assert.equal(s.stats().watchers, 1);
    } finally {
      await t.cleanup();
    }
  });

  test('close stops delivery, even from inside a handler', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      const rec = recorder(() => watcher.close());
      const watcher = s.watch('/s/', 0, rec);
      await Promise.all([s.create('/s/1', json({})), s.create('/s/2', json({}))]);
      await s.create('/s/3', json({}));
      await nextTurn();
      assert.equal(rec.calls, 1);
      assert.deepEqual(rec.errors, []);
      watcher.close();
      assert.equal(s.stats().watchers, 0);
    } finally {
      await t.cleanup();
    }
  });

  test('150 watchers on different prefixes each get only their own events', async () => {
    const t = tempStore();
    try {
      const s = t.store;
      const recorders = Array.from({ length: 150 }, (_, i) => {
        const rec = recorder();
        s.watch(`/ns/${i}/`, 0, rec);
        return rec;
      });
      const all = recorder();
      s.watch('/ns/', 0, all);
      await Promise.all(Array.from({ length: 300 }, (_, i) => s.create(`/ns/${i % 150}/obj-${i}`, json({}))));
      await nextTurn();
      recorders.forEach((rec, i) =>
        assert.deepEqual(
          rec.events.map((e) => e.kv.key),
          [`/ns/${i}/obj-${i}`, `/ns/${i}/obj-${i + 150}`],
        ),
      );
      assert.equal(all.events.length, 300);
    } finally {
      await t.cleanup();
    }
  });
});

describe('watch backpressure', () => {
  test('a handler that takes only some events pauses the watcher; resume replays the rest from the log, then live', async () => {
    const t = tempStore();
    try {
      const s = t.store;
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
      await Promise.all([s.create('/s/1', json({})), s.create('/s/2', json({})), s.create('/s/3', json({}))]);
      await nextTurn();
      assert.deepEqual(taken, ['/s/1']);
      await s.create('/s/4', json({}));
      await nextTurn();
      assert.deepEqual(taken, ['/s/1'], 'a paused watcher delivers nothing');
      budget = Infinity;
      watcher.resume();
      await waitFor(() => taken.length === 4, 'the missed events');
      assert.deepEqual(taken, ['/s/1', '/s/2', '/s/3', '/s/4']);
      await s.create('/s/5', json({}));
      await waitFor(() => taken.length === 5, 'a live event after the catch-up');
      assert.deepEqual(taken, ['/s/1', '/s/2', '/s/3', '/s/4', '/s/5']);
      assert.deepEqual(errors, []);
    } finally {
      await t.cleanup();
    }
  });

  test('a paused watcher that misses more events than the limit ends with too-far-behind and is released', async () => {
    const t = tempStore({ maxPausedWatchEvents: 3 });
    try {
      const s = t.store;
      const errors: Error[] = [];
      const other = recorder();
      s.watch('/s/', 0, { onEvents: () => 0, onError: (err) => errors.push(err) });
      s.watch('/s/', 0, other);
      assert.equal(s.stats().watchers, 2);
      for (let i = 0; i < 4; i++) await s.create(`/s/${i}`, json({}));
      await nextTurn();
      assert.deepEqual(errors, [], 'three missed events are within the limit');
      await s.create('/s/4', json({}));
      await waitFor(() => errors.length === 1, 'the slow watcher to be dropped');
      const err: unknown = errors[0];
      assert.ok(err instanceof StoreError, String(err));
      assert.equal(err.code, 'too-far-behind');
      assert.equal(s.stats().watchers, 1, 'the dropped watcher is released');
      assert.equal(other.events.length, 5, 'the other watcher got every event');
    } finally {
      await t.cleanup();
    }
  });
});
