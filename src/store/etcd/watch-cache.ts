/**
 * The watch cache: every key under the store's prefix in memory, kept current by one etcd
 * watch, so that gets need no etcd Range of their own.
 *
 * It lists the prefix at one revision, then watches from that revision. The watch covers
 * etcd's whole keyspace, not only the prefix: every etcd revision is made by a write to some
 * key, so the cache sees every revision in order, and "the cache has seen revision R" means
 * every event up to R under the prefix is applied (writes outside the prefix only advance the
 * revision). This is what lets a get be consistent across several API servers without etcd's
 * progress notifications (etcd 3.4 before 3.4.25 can send a requested one ahead of events it
 * covers): the store reads etcd's current revision R (linearizable, shared by the gets that
 * arrive together: `FreshRevision`), waits until the cache has seen R, then answers from it.
 *
 * The same watch serves the store's watches (`CacheWatcher`): each event is decoded once,
 * given its previous value from memory, kept in a bounded history (`EventHistory`) and handed
 * to every watcher whose prefix it falls under, in revision order.
 *
 * The values are held as UTF-8 bytes off the V8 heap, side by side in slabs (`CachedKeyValue`
 * in `ValueSlabs`, decoded on each read of `value`), so the heap holds the keys and small
 * objects, not ~1.4 KB per stored object; a value replaced or deleted is released, and values
 * are copied out of slabs mostly released (after each watch answer, when enough was released).
 *
 * What it hands out cannot be changed: the values it holds, the events and their KeyValues
 * are frozen (a consumer that tries gets a TypeError instead of corrupting what every other
 * reader sees). An event's KeyValue is an object of its own, sharing only its key and bytes
 * with the value held: whatever a consumer keeps per event object (a parsed or serialized copy
 * in a WeakMap) goes when the event leaves the history, not when the key changes.
 *
 * Lists of the latest state come from the sorted keys of the prefixes listed recently
 * (`ListedPrefixes`), kept current as keys are created and deleted.
 *
 * When the watch ends (etcd unreachable for longer than its reconnects, or the history it
 * needs compacted) the cache is not ready — gets read etcd, its watchers go on as etcd
 * watches of their own from their last revision — and it lists again.
 */
import type { KeyValue, StoreEvent, StoreListOptions, StoreListResult } from '../types.js';
import { StoreError } from '../types.js';
import { CachedKeyValue, compactSlabs } from './cached-key-value.js';
import type { CacheWatcher } from './cache-watcher.js';
import { EventHistory, type HistoryLimits } from './event-history.js';
import { KeyCodec } from './keys.js';
import type { StoreLogger } from './options.js';
import { ListedPrefixes } from './sorted-keys.js';
import { ValueSlabs } from './value-slabs.js';
import { EtcdWatcher, type WatchSource } from './watcher.js';

/** What the cache needs of its store. */
export interface WatchCacheSource {
  /** The store's watch source: its client, and where revisions and compactions are noted. */
  readonly watchSource: WatchSource;
  /** The store's key prefix in etcd (keys in the cache are without it, as the store's). */
  readonly keyPrefix: string;
  /** One page of the store's keys (the store's `list('')`). */
  list(options: StoreListOptions): Promise<StoreListResult>;
  readonly logger: StoreLogger;
  /** The pause before listing again after the watch was lost. */
  readonly retryMs: number;
  /** How many recent events (and bytes of them) the cache keeps for watches that start in the past. */
  readonly history: HistoryLimits;
}

/** Keys per Range while the cache lists. */
const listPageSize = 5_000;
/** The prefixes whose sorted keys are kept for lists. */
const listedPrefixes = 32;

interface Waiter {
  promise: Promise<boolean>;
  resolve: (fresh: boolean) => void;
  timer: NodeJS.Timeout;
}

export class WatchCache {
  /** Every key under the prefix and its value (frozen; the value as bytes off the V8 heap). */
  private items = new Map<string, CachedKeyValue>();
  /** Where the values of `items` are written (each list starts new slabs). */
  private slabs = new ValueSlabs();
  private state: 'syncing' | 'ready' | 'stopped' = 'syncing';
  /** Every event up to this revision (the whole keyspace) is applied. */
  private seen = 0;
  private watcher: EtcdWatcher | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Gets waiting for the cache to see a revision, by that revision. */
  private readonly waiters = new Map<number, Waiter>();
  /** The watchers it serves, by prefix (events are matched once per prefix, not per watcher). */
  private readonly watchers = new Map<string, Set<CacheWatcher>>();
  /** `watchers` as an array, for dispatch; undefined when a prefix was added or removed since. */
  private groups: [string, Set<CacheWatcher>][] | undefined;
  private readonly history: EventHistory;
  private readonly listed = new ListedPrefixes(listedPrefixes);
  /** How many times the cache listed the store (1 + the times it lost its watch). */
  syncs = 0;

  constructor(private readonly source: WatchCacheSource) {
    this.history = new EventHistory(source.history);
  }

  /**
   * start lists and begins watching; it fails when the first list does (etcd lost). Later
   * losses list again in the background, gets reading etcd meanwhile.
   */
  async start(): Promise<void> {
    this.syncs++;
    this.install(await this.listAll());
  }

  get ready(): boolean {
    return this.state === 'ready';
  }

  /** The revision up to which every event is applied (0 until the first list). */
  get revision(): number {
    return this.seen;
  }

  /** The number of keys held. */
  get size(): number {
    return this.items.size;
  }

  /** freshAt is true when the cache is ready and has applied every event up to `revision`. */
  freshAt(revision: number): boolean {
    return this.state === 'ready' && this.seen >= revision;
  }

  /**
   * read answers a get at least as fresh as `revision`: `{ kv }` (undefined kv: no such key),
   * or undefined when the cache is not that fresh now. The value is the one held (frozen).
   */
  read(key: string, revision: number): { kv: KeyValue | undefined } | undefined {
    if (!this.freshAt(revision)) return undefined;
    return { kv: this.items.get(key) };
  }

  /**
   * list answers a list of the latest state at least as fresh as `revision` — the keys under
   * `prefix` after `startAfter`, in etcd's (byte) order, at most `limit` (0: all) — at the
   * revision the cache has seen; undefined when the cache is not that fresh now. Values are the
   * ones held (frozen).
   */
  list(prefix: string, startAfter: string | undefined, limit: number, revision: number): StoreListResult | undefined {
    if (!this.freshAt(revision)) return undefined;
    const { keys, remaining } = this.listed.sorted(prefix, () => this.items.keys()).page(startAfter, limit);
    const items: KeyValue[] = new Array<KeyValue>(keys.length);
    for (let i = 0; i < keys.length; i++) items[i] = this.items.get(keys[i])!;
    return { items, revision: this.seen, more: remaining > 0, remaining };
  }

  /**
   * waitFor resolves true once the cache has seen `revision`, false when it stops being
   * ready first or `timeoutMs` passes (the caller then reads etcd).
   */
  waitFor(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.freshAt(revision)) return Promise.resolve(true);
    if (this.state !== 'ready') return Promise.resolve(false);
    const existing = this.waiters.get(revision);
    if (existing) return existing.promise;
    let resolve!: (fresh: boolean) => void;
    const promise = new Promise<boolean>((r) => (resolve = r));
    const timer = setTimeout(() => this.settle(revision, false), timeoutMs);
    timer.unref();
    this.waiters.set(revision, { promise, resolve, timer });
    return promise;
  }

  /** The oldest revision a watch can start from (see EventHistory.floor); meaningful when ready. */
  get historyFloor(): number {
    return this.history.floor;
  }

  /** The events the history holds, and the bytes they count for. */
  get historySize(): { events: number; bytes: number } {
    return { events: this.history.size, bytes: this.history.bytes };
  }

  /** The number of watchers served now (those on an etcd watch of their own are not). */
  get watcherCount(): number {
    let n = 0;
    for (const group of this.watchers.values()) n += group.size;
    return n;
  }

  /** canServe is true when a watch from `revision` can be served from memory now. */
  canServe(revision: number): boolean {
    return this.state === 'ready' && revision >= this.history.floor;
  }

  /**
   * replay lists the applied events under `prefix` after `revision` (shared objects: not to be
   * changed), or undefined when the cache cannot serve a watch from there.
   */
  replay(prefix: string, revision: number): StoreEvent[] | undefined {
    if (this.state !== 'ready') return undefined;
    return this.history.since(revision, prefix);
  }

  register(watcher: CacheWatcher): void {
    let group = this.watchers.get(watcher.prefix);
    if (!group) {
      this.watchers.set(watcher.prefix, (group = new Set()));
      this.groups = undefined;
    }
    group.add(watcher);
  }

  unregister(watcher: CacheWatcher): void {
    const group = this.watchers.get(watcher.prefix);
    if (!group?.delete(watcher)) return;
    if (group.size === 0) {
      this.watchers.delete(watcher.prefix);
      this.groups = undefined;
    }
  }

  /** stop ends the watch; waiting gets read etcd. The store ends the watchers. */
  stop(): void {
    this.state = 'stopped';
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.watcher?.close();
    this.watcher = undefined;
    this.items = new Map();
    this.slabs = new ValueSlabs();
    this.listed.clear();
    this.watchers.clear();
    this.groups = undefined;
    this.history.reset(0);
    this.settleAll(false);
  }

  // ---- keeping current ----

  /** sync lists the store at one revision, then watches every revision after it. */
  private sync(): void {
    if (this.state === 'stopped') return;
    this.state = 'syncing';
    this.syncs++;
    this.listAll().then(
      (listed) => this.install(listed),
      (err: unknown) => this.lost(err),
    );
  }

  /** install takes a list's keys and watches every revision after it. */
  private install({ items, slabs, revision }: Listed): void {
    if (this.state === 'stopped') return;
    this.items = items;
    this.slabs = slabs;
    this.listed.clear();
    this.seen = revision;
    this.history.reset(revision);
    this.watch(revision);
    this.state = 'ready';
    this.source.logger.debug({ keys: items.size, revision }, 'watch cache ready');
  }

  private async listAll(): Promise<Listed> {
    const items = new Map<string, CachedKeyValue>();
    const slabs = new ValueSlabs();
    let revision = 0;
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.source.list({ limit: listPageSize, startAfter, revision });
      revision = page.revision;
      for (const kv of page.items) items.set(kv.key, CachedKeyValue.of(kv.key, kv.value, kv.createRevision, kv.modRevision, slabs));
      const last = page.items[page.items.length - 1];
      if (!page.more || !last) return { items, slabs, revision };
      startAfter = last.key;
    }
  }

  private watch(from: number): void {
    // Keys as etcd has them (no prefix removed): events outside the prefix only advance the revision.
    const source: WatchSource = { ...this.source.watchSource, keys: new KeyCodec(''), forget: () => undefined };
    const watcher = new EtcdWatcher(
      source,
      '',
      from,
      {
        onEvents: (events) => {
          if (this.watcher === watcher) this.apply(events);
        },
        onError: (err) => {
          if (this.watcher === watcher) this.lost(err);
        },
      },
      false,
    );
    this.watcher = watcher;
    watcher.start();
  }

  /**
   * apply takes one answer of etcd's watch: the keys change, each event under the prefix (with
   * its previous value from memory) joins the history and goes to the watchers of its prefix,
   * and the gets waiting for these revisions are answered.
   */
  private apply(raw: StoreEvent[]): void {
    const prefix = this.source.keyPrefix;
    const events: StoreEvent[] = [];
    for (const event of raw) {
      const { key: etcdKey, modRevision } = event.kv;
      if (!etcdKey.startsWith(prefix)) continue;
      const sliced = etcdKey.slice(prefix.length);
      const prev = this.items.get(sliced);
      // The key held is the previous value's, or a copy of its own: a slice would keep etcd's whole key alive with it.
      const key = prev ? prev.key : prefix === '' ? etcdKey : ownCopy(sliced);
      let applied: StoreEvent;
      if (event.type === 'delete') {
        if (this.items.delete(key)) this.listed.removed(key);
        // etcd sends a delete without the value (the cache's watch asks for no previous values): memory has it.
        const kv: KeyValue = prev ? prev.at(key, prev.createRevision, modRevision) : Object.freeze({ key, value: '', createRevision: 0, modRevision });
        prev?.release();
        applied = Object.freeze(prev ? { type: 'delete', kv, prev } : { type: 'delete', kv });
      } else {
        const { value, createRevision } = event.kv;
        const item = CachedKeyValue.of(key, value, createRevision, modRevision, this.slabs);
        this.items.set(key, item);
        prev?.release();
        if (!prev) this.listed.added(key);
        // The event's own KeyValue (the key and the value's bytes are shared): see the class comment.
        const kv: KeyValue = item.at(key, createRevision, modRevision);
        applied = Object.freeze(prev ? { type: 'put', kv, prev } : { type: 'put', kv });
      }
      this.history.push(applied);
      events.push(applied);
    }
    compactSlabs(this.slabs, this.items.values());
    const last = raw[raw.length - 1];
    if (last && last.kv.modRevision > this.seen) this.seen = last.kv.modRevision;
    if (events.length > 0 && this.watchers.size > 0) this.dispatch(Object.freeze(events) as StoreEvent[]);
    for (const revision of this.waiters.keys()) if (revision <= this.seen) this.settle(revision, true);
  }

  /** dispatch hands `events` to every watcher, each only those under its prefix. */
  private dispatch(events: StoreEvent[]): void {
    // The groups as they were when dispatch began (a handler may open or close watchers); kept
    // between dispatches until a prefix is added or removed.
    const groups = (this.groups ??= [...this.watchers]);
    for (let g = 0; g < groups.length; g++) {
      const [prefix, group] = groups[g];
      const matching = prefix === '' ? events : underPrefix(events, prefix);
      if (!matching) continue;
      // A copy: a handler may close watchers or open new ones (those catch up from the history).
      for (const watcher of [...group]) watcher.offer(matching);
    }
  }

  /** lost handles the end of the watch (or a failed list): not ready, list again. */
  private lost(err: unknown): void {
    if (this.state === 'stopped') return;
    this.watcher?.close();
    this.watcher = undefined;
    this.state = 'syncing';
    this.settleAll(false);
    // Its watchers go on as etcd watches of their own from their last revision (etcd replays what they missed).
    const served = [...this.watchers.values()].flatMap((group) => [...group]);
    this.watchers.clear();
    this.groups = undefined;
    for (const watcher of served) watcher.leaveCache();
    const compacted = err instanceof StoreError && err.code === 'compacted';
    this.source.logger.warn({ err }, compacted ? 'the watch cache fell behind compaction; listing again' : 'the watch cache lost its watch; listing again');
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = undefined;
        this.sync();
      },
      compacted ? 0 : this.source.retryMs,
    );
    this.retryTimer.unref();
  }

  private settle(revision: number, fresh: boolean): void {
    const waiter = this.waiters.get(revision);
    if (!waiter) return;
    this.waiters.delete(revision);
    clearTimeout(waiter.timer);
    waiter.resolve(fresh);
  }

  private settleAll(fresh: boolean): void {
    for (const revision of [...this.waiters.keys()]) this.settle(revision, fresh);
  }
}

/** What a list of the store gives the cache: every key's value (in `slabs`) at `revision`. */
interface Listed {
  items: Map<string, CachedKeyValue>;
  slabs: ValueSlabs;
  revision: number;
}

/** ownCopy is `key` as a string of its own (not a slice of a longer one, which it would keep alive). */
function ownCopy(key: string): string {
  return Buffer.from(key, 'utf8').toString('utf8');
}

/** underPrefix returns the events whose key starts with `prefix` (frozen), or undefined when none does. */
function underPrefix(events: StoreEvent[], prefix: string): StoreEvent[] | undefined {
  let matching: StoreEvent[] | undefined;
  for (let i = 0; i < events.length; i++) {
    if (events[i].kv.key.startsWith(prefix)) (matching ??= []).push(events[i]);
  }
  if (!matching) return undefined;
  // Every event matched: the batch itself (already frozen) is shared.
  return matching.length === events.length ? events : (Object.freeze(matching) as StoreEvent[]);
}
