import {
  StoreError,
  type KeyValue,
  type Store,
  type StoreListOptions,
  type StoreListResult,
  type StoreWatchHandlers,
  type StoreWatcher,
  type ValueEncoder,
} from '../types.js';
import { CacheWatcher, type CacheWatchHost } from './cache-watcher.js';
import { EtcdClient, type MemberStatus } from './client.js';
import { FreshRevision } from './fresh-revision.js';
import { KeyCodec } from './keys.js';
import {
  cacheFreshnessWaitMs,
  defaultCallTimeoutMs,
  defaultCompactionIntervalMs,
  defaultMaxPausedWatchEvents,
  defaultRetention,
  defaultWatchHistoryBytes,
  defaultWatchHistoryEvents,
  followerRetryMs,
  reachableProbeTimeoutMs,
  silentLogger,
  type CommitObserver,
  type EtcdStoreOptions,
  type ReadObserver,
  type RetentionPolicy,
  type StoreLogger,
} from './options.js';
import {
  CompareResult,
  CompareTarget,
  type CompactionRequest,
  type CompactionResponse,
  type Compare,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
} from './rpc.js';
import { WatchCache } from './watch-cache.js';
import { EtcdWatcher, type WatchSource } from './watcher.js';

/** A RevisionSample is the head revision seen at a time, for retention by age. */
interface RevisionSample {
  at: number;
  revision: number;
}

/**
 * openEtcdStore connects to etcd, learns its current and compacted revisions, and returns
 * the store. It fails with StoreError('unavailable') when no endpoint answers.
 */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<EtcdStore> {
  const store = new EtcdStore(options);
  try {
    await store.connect();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/**
 * An EtcdStore implements the Store on an etcd v3 cluster. Revisions are etcd's own; every
 * write is one transaction that compares the key's create or mod revision, so
 * compare-and-swap is exact across every Conductor sharing the cluster. etcd acknowledges a
 * write once a majority of members has it on disk.
 *
 * `currentRevision()` is the newest revision this store has seen in any answer or event
 * from etcd; `compactedRevision()` the newest compaction it has made or been told of.
 * ValueEncoders get 0: etcd assigns the revision while it applies the write.
 */
export class EtcdStore implements Store {
  readonly embedsRevision = false;

  private readonly client: EtcdClient;
  private readonly keys: KeyCodec;
  private readonly logger: StoreLogger;
  private readonly retention: RetentionPolicy;
  private readonly now: () => number;
  private readonly maxPausedEvents: number;
  /** Every open watch: on an etcd watch of its own, or served by the watch cache. */
  private readonly watchers = new Set<EtcdWatcher | CacheWatcher>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly watchSource: WatchSource;
  private readonly followRevisions: boolean;
  /** The watch of the whole prefix that keeps `head` current with other clients' writes (followRevisions). */
  private follower: EtcdWatcher | undefined;
  private followerTimer: NodeJS.Timeout | undefined;
  /** Every key in memory, for gets (`watchCache`). */
  private readonly cache: WatchCache | undefined;
  /** etcd's current revision for consistent gets from the cache, one read shared by the gets that arrive together. */
  private readonly fresh: FreshRevision;
  private readonly observer: CommitObserver | undefined;
  private readonly readObserver: ReadObserver | undefined;
  /** Where gets were answered: the watch cache, or an etcd Range. */
  private readonly gets = { cache: 0, etcd: 0 };
  /** Where watches started: served by the watch cache, or on an etcd watch of their own. */
  private readonly watchStarts = { cache: 0, etcd: 0 };
  /** What the watchers the cache serves need of it and of this store. */
  private readonly cacheWatchHost: CacheWatchHost | undefined;
  private samples: RevisionSample[] = [];
  private state: 'open' | 'closed' = 'open';
  private head = 0;
  private compacted = 0;

  constructor(options: EtcdStoreOptions) {
    this.client = new EtcdClient(options.endpoints, options.tls, options.callTimeoutMs ?? defaultCallTimeoutMs);
    this.keys = new KeyCodec(options.keyPrefix ?? '');
    this.logger = options.logger ?? silentLogger;
    this.retention = {
      minRevisions: options.retention?.minRevisions ?? defaultRetention.minRevisions,
      minAgeMs: options.retention?.minAgeMs ?? defaultRetention.minAgeMs,
    };
    this.now = options.now ?? Date.now;
    this.maxPausedEvents = options.maxPausedWatchEvents ?? defaultMaxPausedWatchEvents;
    this.followRevisions = options.followRevisions ?? false;
    this.observer = options.observer;
    this.readObserver = options.readObserver;
    this.watchSource = {
      client: this.client,
      keys: this.keys,
      noteRevision: (revision) => this.noteRevision(revision),
      noteCompacted: (revision) => {
        if (revision > this.compacted) this.compacted = revision;
      },
      maxPausedEvents: () => this.maxPausedEvents,
      forget: (watcher) => {
        this.watchers.delete(watcher);
      },
    };
    // FreshRevision sends its read at the end of a turn (in setImmediate), when its callers
    // have gathered: the read goes out at once, not with the next turn's calls.
    this.fresh = new FreshRevision(() => {
      const read = this.readRevision();
      this.client.flush();
      return read;
    });
    if (options.watchCache) {
      this.cache = new WatchCache({
        watchSource: this.watchSource,
        keyPrefix: this.keys.keyPrefix,
        list: (o) => this.list('', o),
        logger: this.logger,
        retryMs: followerRetryMs,
        history: {
          maxEvents: options.watchHistoryEvents ?? defaultWatchHistoryEvents,
          maxBytes: options.watchHistoryBytes ?? defaultWatchHistoryBytes,
        },
      });
      const cache = this.cache;
      this.cacheWatchHost = {
        replay: (prefix, revision) => cache.replay(prefix, revision),
        register: (watcher) => cache.register(watcher),
        unregister: (watcher) => cache.unregister(watcher),
        openEtcdWatch: (prefix, afterRevision, handlers) => {
          this.watchStarts.etcd++;
          const watcher = new EtcdWatcher({ ...this.watchSource, forget: () => undefined }, prefix, afterRevision, handlers);
          watcher.start();
          return watcher;
        },
        maxPausedEvents: () => this.maxPausedEvents,
        forget: (watcher) => {
          this.watchers.delete(watcher);
        },
      };
    }
    const interval = options.compactionIntervalMs ?? defaultCompactionIntervalMs;
    if (interval > 0) {
      this.timer = setInterval(() => this.applyRetentionInBackground(), interval);
      this.timer.unref();
    }
  }

  /** connect reads the current revision, then finds the compacted one. */
  async connect(): Promise<void> {
    const all = this.keys.range('');
    const first = await this.range({ key: all.key, range_end: all.rangeEnd, count_only: true }, 'connect to etcd');
    this.noteRevision(first.header?.revision ?? 0);
    this.compacted = await this.findCompactedRevision();
    this.samples.push({ at: this.now(), revision: this.head });
    // The watch cache's watch follows every revision too; the follower is for a store without one.
    if (this.cache) await this.cache.start();
    else if (this.followRevisions) this.follow();
    this.logger.info({ endpoints: this.client.urls, revision: this.head, compacted: this.compacted }, 'store opened');
  }

  /**
   * findCompactedRevision finds the oldest readable revision by bisection (etcd does not
   * report it): a read at a revision below it fails as compacted, at or above it succeeds.
   * Returns 0 when nothing was compacted.
   */
  private async findCompactedRevision(): Promise<number> {
    const readable = async (revision: number) => {
      try {
        await this.range({ key: this.keys.range('').key, revision, count_only: true }, 'find the compacted revision');
        return true;
      } catch (err) {
        if (err instanceof StoreError && err.code === 'compacted') return false;
        throw err;
      }
    };
    if (this.head <= 1 || (await readable(1))) return 0;
    let low = 1; // not readable
    let high = this.head; // readable
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (await readable(mid)) high = mid;
      else low = mid;
    }
    return high;
  }

  /**
   * follow watches every key under the prefix from the head, only to note revisions: writes
   * by other clients (another API server) advance `currentRevision()` within a round trip. A
   * follower that ends (etcd lost for longer than a watch's reconnects) is opened again from
   * the head it reached, after a pause, for as long as the store is open.
   */
  private follow(): void {
    if (this.state !== 'open') return;
    const source: WatchSource = { ...this.watchSource, forget: () => undefined };
    const watcher = new EtcdWatcher(source, '', this.head, {
      onEvents: () => undefined,
      onError: (err) => {
        if (this.state !== 'open' || this.follower !== watcher) return;
        this.follower = undefined;
        this.logger.warn({ err, endpoints: this.client.urls }, 'lost the watch that follows the revision; opening it again');
        this.followerTimer = setTimeout(() => {
          this.followerTimer = undefined;
          // From the newest revision etcd reports: what happened meanwhile needs no replay.
          this.latestRevision().then(
            () => this.follow(),
            () => this.follow(),
          );
        }, followerRetryMs);
        this.followerTimer.unref();
      },
    });
    this.follower = watcher;
    watcher.start();
  }

  currentRevision(): number {
    return this.head;
  }

  /**
   * latestRevision asks etcd for its current revision (a count-only read) and advances
   * `currentRevision()` to it: a revision another client wrote is then known here. Fails with
   * StoreError('unavailable') when etcd cannot be reached.
   */
  async latestRevision(): Promise<number> {
    this.assertOpen('read the current revision of', this.client.urls);
    await this.readRevision();
    return this.head;
  }

  /** readRevision asks etcd for its current revision: a linearizable count-only Range of one key. */
  private async readRevision(): Promise<number> {
    const res = await this.track(this.range({ key: this.keys.range('').key, count_only: true }, 'read the current revision'));
    return res.header?.revision ?? this.head;
  }

  /**
   * checkReachable asks etcd for its revision once, waiting at most a couple of seconds, and
   * says why it failed (undefined when etcd answered). For readiness checks.
   */
  async checkReachable(): Promise<string | undefined> {
    if (this.state !== 'open') return 'the store is closed';
    try {
      const res = await this.track(
        this.client.call<RangeRequest, RangeResponse>(
          'Range',
          { key: this.keys.range('').key, count_only: true },
          'idempotent',
          'check that etcd answers',
          reachableProbeTimeoutMs,
        ),
      );
      if (res.header) this.noteRevision(res.header.revision);
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** endpoints lists the client URLs, for messages. */
  get endpoints(): string {
    return this.client.urls;
  }

  // ---- reads ----

  /**
   * get reads one key as of now: every write acknowledged before the call is reflected, by
   * whichever server it went through. With the watch cache ready, etcd is asked only for its
   * current revision (one read shared by the gets that arrive together) and the cache answers
   * once it has seen that revision; otherwise (cache listing, or lagging for seconds) one Range.
   */
  async get(key: string): Promise<KeyValue | undefined> {
    this.assertOpen('get', key);
    const cache = this.cache;
    if (cache?.ready) {
      const revision = await this.fresh.read();
      if (cache.freshAt(revision) || (await cache.waitFor(revision, cacheFreshnessWaitMs))) {
        const hit = cache.read(key, revision);
        if (hit) {
          this.gets.cache++;
          this.readObserver?.get('cache');
          return hit.kv;
        }
      }
    }
    this.gets.etcd++;
    this.readObserver?.get('etcd');
    const res = await this.track(this.range({ key: this.keys.encode(key) }, `get ${key}`));
    const raw = res.kvs[0];
    return raw ? this.keys.toKeyValue(raw) : undefined;
  }

  async list(prefix: string, options: StoreListOptions = {}): Promise<StoreListResult> {
    this.assertOpen('list', prefix);
    const limit = options.limit ?? 0;
    if (!Number.isInteger(limit) || limit < 0) {
      throw new RangeError(`cannot list ${JSON.stringify(prefix)}: limit ${limit} is not a non-negative integer`);
    }
    const what = `list ${JSON.stringify(prefix)}`;
    const requested = options.revision ?? 0;
    if (!Number.isInteger(requested) || requested < 0) {
      throw new RangeError(`cannot ${what} at revision ${requested}: expected a non-negative integer`);
    }
    if (requested > 0 && requested < this.compacted) {
      throw new StoreError('compacted', `cannot ${what} at revision ${requested}: history up to ${this.compacted} was compacted`);
    }
    const cache = this.cache;
    if (requested === 0 && cache?.ready) {
      // The latest state, as fresh as a Range would be: from the watch cache once it has seen etcd's current revision.
      const fresh = await this.fresh.read();
      if (cache.freshAt(fresh) || (await cache.waitFor(fresh, cacheFreshnessWaitMs))) {
        const page = cache.list(prefix, options.startAfter, limit, fresh);
        if (page) return page;
      }
    }
    const range = this.keys.listRange(prefix, options.startAfter);
    if (range.rangeEnd.length > 1 || range.rangeEnd[0] !== 0) {
      if (Buffer.compare(range.key, range.rangeEnd) >= 0) {
        // Continuing after the last possible key: nothing follows.
        const revision = requested || this.head;
        return { items: [], revision, more: false, remaining: 0 };
      }
    }
    const res = await this.track(
      this.range({ key: range.key, range_end: range.rangeEnd, limit, ...(requested > 0 ? { revision: requested } : {}) }, what, requested),
    );
    const items = res.kvs.map((raw) => this.keys.toKeyValue(raw));
    const remaining = res.more ? res.count - items.length : 0;
    return { items, revision: requested > 0 ? requested : (res.header?.revision ?? this.head), more: remaining > 0, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen('count', prefix);
    const range = this.keys.range(prefix);
    const res = await this.track(this.range({ key: range.key, range_end: range.rangeEnd, count_only: true }, `count ${JSON.stringify(prefix)}`));
    return res.count;
  }

  // ---- writes ----

  async create(key: string, encode: ValueEncoder): Promise<KeyValue> {
    this.assertWritable('create', key);
    const text = encodeValue(encode, key);
    const value = Buffer.from(text, 'utf8');
    const k = this.keys.encode(key);
    const res = await this.track(
      this.txn(
        {
          compare: [{ result: CompareResult.equal, target: CompareTarget.createRevision, key: k, create_revision: 0 }],
          // No read-back: a created key's create and mod revisions are the transaction's revision.
          success: [{ request_put: { key: k, value } }],
          failure: [{ request_range: { key: k } }],
        },
        `create ${key}`,
      ),
    );
    if (!res.succeeded) throw new StoreError('exists', `cannot create ${key}: the key already exists`, this.rangeResult(res, 0));
    const revision = this.writeRevision(key, res);
    return { key, value: text, createRevision: revision, modRevision: revision };
  }

  async update(key: string, expectedModRevision: number, encode: ValueEncoder): Promise<KeyValue> {
    this.assertWritable('update', key);
    const text = encodeValue(encode, key);
    const value = Buffer.from(text, 'utf8');
    const k = this.keys.encode(key);
    const res = await this.track(
      this.txn(
        {
          compare: [
            { result: CompareResult.greater, target: CompareTarget.version, key: k, version: 0 },
            { result: CompareResult.equal, target: CompareTarget.modRevision, key: k, mod_revision: expectedModRevision },
          ],
          // The create revision read back without the value (the caller has it).
          success: [{ request_put: { key: k, value } }, { request_range: { key: k, keys_only: true } }],
          failure: [{ request_range: { key: k } }],
        },
        `update ${key}`,
      ),
    );
    if (!res.succeeded) {
      const current = this.rangeResult(res, 0);
      if (!current) throw new StoreError('not-found', `cannot update ${key}: the key does not exist`);
      throw conflict('update', key, expectedModRevision, current);
    }
    const written = res.responses[1]?.response_range?.kvs[0];
    if (!written) throw new Error(`cannot update ${key}: etcd did not return the written key (revision ${res.header?.revision ?? '?'})`);
    return { key, value: text, createRevision: written.create_revision, modRevision: written.mod_revision };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.assertWritable('delete', key);
    const k = this.keys.encode(key);
    const compare: Compare[] = [{ result: CompareResult.greater, target: CompareTarget.version, key: k, version: 0 }];
    if (expectedModRevision !== undefined) {
      compare.push({ result: CompareResult.equal, target: CompareTarget.modRevision, key: k, mod_revision: expectedModRevision });
    }
    const res = await this.track(
      this.txn({ compare, success: [{ request_delete_range: { key: k, prev_kv: true } }], failure: [{ request_range: { key: k } }] }, `delete ${key}`),
    );
    if (!res.succeeded) {
      const current = this.rangeResult(res, 0);
      if (!current) throw new StoreError('not-found', `cannot delete ${key}: the key does not exist`);
      throw conflict('delete', key, expectedModRevision ?? 0, current);
    }
    const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
    if (!prev) throw new Error(`cannot delete ${key}: etcd reported the delete without the deleted value`);
    const revision = res.header?.revision ?? 0;
    return { ...this.keys.toKeyValue(prev), modRevision: revision };
  }

  /** rangeResult reads the KeyValue of the Range at `index` of a transaction's answers. */
  private rangeResult(res: TxnResponse, index: number): KeyValue | undefined {
    const raw = res.responses[index]?.response_range?.kvs[0];
    return raw ? this.keys.toKeyValue(raw) : undefined;
  }

  /** writeRevision is the revision of a write transaction's put: etcd's revision after it. */
  private writeRevision(key: string, res: TxnResponse): number {
    const revision = res.header?.revision ?? 0;
    if (revision <= 0) throw new Error(`cannot write ${key}: etcd acknowledged the write without its revision`);
    return revision;
  }

  // ---- watch ----

  watch(prefix: string, afterRevision: number, handlers: StoreWatchHandlers): StoreWatcher {
    this.assertOpen('watch', prefix);
    if (!Number.isInteger(afterRevision) || afterRevision < 0) {
      throw new RangeError(`cannot watch ${JSON.stringify(prefix)} after revision ${afterRevision}: expected a non-negative integer`);
    }
    const from = afterRevision === 0 ? this.head : afterRevision;
    if (from < this.compacted) {
      throw new StoreError('compacted', `cannot watch ${JSON.stringify(prefix)} after revision ${from}: history up to ${this.compacted} was compacted`);
    }
    if (from > this.head) {
      throw new StoreError('future-revision', `cannot watch ${JSON.stringify(prefix)} after revision ${from}: the current revision is ${this.head}`);
    }
    if (this.cache?.canServe(from) && this.cacheWatchHost) {
      // One etcd watch per store (the cache's): events decoded once, shared by every watcher.
      this.watchStarts.cache++;
      const watcher = new CacheWatcher(this.cacheWatchHost, prefix, from, handlers);
      this.watchers.add(watcher);
      watcher.start();
      return watcher;
    }
    this.watchStarts.etcd++;
    const watcher = new EtcdWatcher(this.watchSource, prefix, from, handlers);
    this.watchers.add(watcher);
    watcher.start();
    return watcher;
  }

  /**
   * readStats says where gets were answered (watch cache or etcd Range), how many revision
   * reads the cached gets shared, and the cache's state. For tests and diagnostics.
   */
  readStats(): {
    cacheGets: number;
    etcdGets: number;
    revisionReads: number;
    /** Watches started on the cache, and etcd watches opened for watches (their own, or taken over from the cache). */
    watchStarts: { cache: number; etcd: number };
    cache?: {
      ready: boolean;
      keys: number;
      revision: number;
      syncs: number;
      watchers: number;
      historyFloor: number;
      history: { events: number; bytes: number };
    };
  } {
    const c = this.cache;
    return {
      cacheGets: this.gets.cache,
      etcdGets: this.gets.etcd,
      revisionReads: this.fresh.reads,
      watchStarts: { ...this.watchStarts },
      ...(c
        ? {
            cache: {
              ready: c.ready,
              keys: c.size,
              revision: c.revision,
              syncs: c.syncs,
              watchers: c.watcherCount,
              historyFloor: c.historyFloor,
              history: c.historySize,
            },
          }
        : {}),
    };
  }

  /**
   * memberStatuses asks every member for its Status (database size, in use, version), each
   * bounded at a couple of seconds; a member that does not answer says why. For /metrics.
   */
  async memberStatuses(): Promise<MemberStatus[]> {
    this.assertOpen('read the status of', this.client.urls);
    return this.track(this.client.statuses(reachableProbeTimeoutMs));
  }

  /** The number of open watchers, for tests and diagnostics. */
  watcherCount(): number {
    return this.watchers.size;
  }

  // ---- compaction ----

  /**
   * compact makes `revision` the oldest readable revision: etcd discards the older history
   * (`physical`: the call returns once it is gone). A revision at or below the compacted one
   * is nothing to do.
   */
  async compact(revision: number): Promise<void> {
    if (this.state !== 'open') throw new StoreError('closed', `cannot compact to revision ${revision}: the store is closed`);
    if (!Number.isInteger(revision) || revision < 0) throw new RangeError(`cannot compact to revision ${revision}: expected a non-negative integer`);
    if (revision > this.head) {
      throw new StoreError('future-revision', `cannot compact to revision ${revision}: the current revision is ${this.head}`);
    }
    if (revision <= this.compacted) return;
    try {
      const res = await this.track(
        this.client.call<CompactionRequest, CompactionResponse>('Compact', { revision, physical: true }, 'idempotent', `compact to revision ${revision}`),
      );
      if (res.header) this.noteRevision(res.header.revision);
    } catch (err) {
      // Another server compacted further already: the history is gone either way.
      if (!(err instanceof StoreError && err.code === 'compacted')) throw err;
    }
    if (revision > this.compacted) this.compacted = revision;
    this.logger.debug({ revision }, 'store compacted');
  }

  /**
   * applyRetention compacts what the retention policy lets go: revisions more than
   * `minRevisions` behind the head and older than `minAgeMs`. etcd keeps no commit times, so
   * the age comes from the head revisions this store sampled (at open and on each call).
   * Returns the revision compacted to (unchanged when nothing qualified). The timer calls it.
   */
  async applyRetention(): Promise<number> {
    this.assertOpen('apply retention to', this.client.urls);
    const res = await this.track(this.range({ key: this.keys.range('').key, count_only: true }, 'read the current revision'));
    this.noteRevision(res.header?.revision ?? 0);
    const now = this.now();
    this.samples.push({ at: now, revision: this.head });
    const oldEnough = this.samples.filter((s) => s.at <= now - this.retention.minAgeMs);
    const byAge = oldEnough.length > 0 ? oldEnough[oldEnough.length - 1].revision : 0;
    // Samples older than the newest old-enough one will never be needed again.
    if (oldEnough.length > 1) this.samples = this.samples.slice(oldEnough.length - 1);
    const target = Math.min(this.head - this.retention.minRevisions, byAge);
    if (target <= this.compacted) return this.compacted;
    await this.compact(target);
    return target;
  }

  private applyRetentionInBackground(): void {
    if (this.state !== 'open') return;
    this.applyRetention().catch((err: unknown) => {
      if (this.state === 'open') this.logger.warn({ err, endpoints: this.client.urls }, 'store compaction failed');
    });
  }

  // ---- lifecycle ----

  /**
   * close lets the calls in flight finish, ends every watch with StoreError('closed') and
   * closes the connections. Later calls return at once; other methods then fail with
   * StoreError('closed').
   */
  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closed';
    if (this.timer) clearInterval(this.timer);
    if (this.followerTimer) clearTimeout(this.followerTimer);
    this.follower?.close();
    this.follower = undefined;
    this.cache?.stop();
    await Promise.allSettled([...this.pending]);
    for (const watcher of [...this.watchers]) {
      watcher.fail(new StoreError('closed', `watch of ${JSON.stringify(watcher.prefix)} ended: the store is closed`));
    }
    this.client.close();
    this.logger.info({ endpoints: this.client.urls, revision: this.head }, 'store closed');
  }

  // ---- helpers ----

  private noteRevision(revision: number): void {
    if (revision > this.head) this.head = revision;
  }

  private async range(request: RangeRequest, what: string, atRevision = 0): Promise<RangeResponse> {
    try {
      const res = await this.client.call<RangeRequest, RangeResponse>('Range', request, 'idempotent', what);
      if (res.header) this.noteRevision(res.header.revision);
      return res;
    } catch (err) {
      if (err instanceof StoreError && err.code === 'future-revision') {
        throw new StoreError('future-revision', `cannot ${what} at revision ${atRevision}: the current revision is ${this.head}`);
      }
      if (err instanceof StoreError && err.code === 'compacted' && atRevision > 0) {
        throw new StoreError('compacted', `cannot ${what} at revision ${atRevision}: etcd compacted that history`);
      }
      throw err;
    }
  }

  private async txn(request: TxnRequest, what: string): Promise<TxnResponse> {
    const started = this.observer ? process.hrtime.bigint() : 0n;
    const res = await this.client.call<TxnRequest, TxnResponse>('Txn', request, 'write', what);
    if (res.header) this.noteRevision(res.header.revision);
    if (this.observer && res.succeeded) {
      try {
        this.observer.committed(1, Number(process.hrtime.bigint() - started) / 1e9);
      } catch (err) {
        this.logger.warn({ err }, 'the commit observer failed');
      }
    }
    return res;
  }

  /** track keeps `promise` among the calls close() waits for. */
  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    const forget = () => this.pending.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  private assertOpen(what: string, subject: string): void {
    if (this.state !== 'open') throw new StoreError('closed', `cannot ${what} ${subject}: the store is closed`);
  }

  private assertWritable(what: string, key: string): void {
    this.assertOpen(what, key);
    if (typeof key !== 'string' || key.length === 0) {
      throw new TypeError(`cannot ${what} a key of ${JSON.stringify(key)}: expected a non-empty string`);
    }
  }
}

function conflict(what: 'update' | 'delete', key: string, expected: number, current: KeyValue): StoreError {
  return new StoreError('conflict', `cannot ${what} ${key}: expected modRevision ${expected}, found ${current.modRevision}`, current);
}

/** encodeValue calls the caller's encoder with 0 (etcd assigns the revision); its failure fails only that write. */
function encodeValue(encode: ValueEncoder, key: string): string {
  let value: unknown;
  try {
    value = encode(0);
  } catch (err) {
    throw err instanceof Error ? err : new Error(`cannot encode the value of ${key}: ${String(err)}`);
  }
  if (typeof value !== 'string') {
    throw new TypeError(`cannot store the value of ${key}: the encoder returned ${typeof value}, expected a string`);
  }
  return value;
}
