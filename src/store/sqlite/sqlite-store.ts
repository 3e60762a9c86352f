import type { Transaction } from 'better-sqlite3';
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  StoreError,
  type KeyValue,
  type Store,
  type StoreEvent,
  type StoreListOptions,
  type StoreListResult,
  type StoreWatchHandlers,
  type StoreWatcher,
  type ValueEncoder,
} from '../types.js';
import { compareKeys, prefixRange, type KeyRange } from './key-range.js';
import {
  checkpointBytes,
  defaultCompactionIntervalMs,
  defaultMaxPausedWatchEvents,
  defaultRetention,
  maxBatchSize,
  revisionsPerCompactionStep,
  silentLogger,
  type CommitObserver,
  type RetentionPolicy,
  type SqliteStoreOptions,
  type StoreLogger,
} from './options.js';
import { isSqliteFull, StorageFullError } from './errors.js';
import { openDatabase, type Db } from './schema.js';
import { Statements, type CurrentRow } from './statements.js';
import { WatchHub } from './watch-hub.js';
import { LogWatcher, type WatchSource } from './watcher.js';

interface Settle {
  resolve(kv: KeyValue): void;
  reject(err: Error): void;
}

/** A WriteOp is one queued write waiting for the next group commit. */
type WriteOp = Settle &
  (
    | { kind: 'create'; key: string; encode: ValueEncoder }
    | { kind: 'update'; key: string; expected: number; encode: ValueEncoder }
    | { kind: 'delete'; key: string; expected: number | undefined }
  );

type Outcome = { op: WriteOp; kv: KeyValue } | { op: WriteOp; error: Error };

/** A CommittedBatch is in the WAL but not yet known to be on disk: nobody has heard of it. */
interface CommittedBatch {
  head: number;
  outcomes: Outcome[];
  events: StoreEvent[];
  /** performance.now() when its transaction started (commit latency). */
  started: number;
}

/** What one write adds to the WAL besides its value: about a page (log row, key index, kv row). */
const PAGE_ESTIMATE = 4096;

/** A DurableWaiter is a read that answers once everything it may have seen is on disk. */
interface DurableWaiter {
  revision: number;
  resolve(): void;
  reject(err: Error): void;
}

/**
 * A FileSync makes the written part of a file durable and calls back (fs.fdatasync by
 * default; tests pass their own to control when a sync completes).
 */
export type FileSync = (fd: number, done: (err: Error | null) => void) => void;

interface CompactionWaiter {
  revision: number;
  resolve(): void;
  reject(err: Error): void;
}

/** SqliteStoreStats are counters for diagnostics and benchmarks. */
export interface SqliteStoreStats {
  revision: number;
  compactedRevision: number;
  /** Transactions committed by group commit. */
  batches: number;
  /** Writes that succeeded. */
  writes: number;
  /** Writes queued for the next commit. */
  queued: number;
  /** Open watchers (live or catching up). */
  watchers: number;
  /** WAL syncs (each makes every batch committed before it durable). */
  syncs: number;
  /** The newest revision known to be on disk. */
  durableRevision: number;
  /** Events watchers have read back from the log (replays and catch-ups after a pause). */
  historyEventsRead: number;
}

/**
 * openSqliteStore opens (or creates) the store file at `options.path` and returns the
 * store, ready to use. It throws when the file cannot be opened, is not a Conductor store,
 * or is held by another process.
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}

/**
 * A SqliteStore implements the Store on one SQLite file. Every write is durable before
 * its promise resolves. Writes that arrive in the same turn of the event loop are committed
 * together in one transaction — group commit — each checked and applied in arrival order
 * with its own revision, so compare-and-swap stays exact inside a batch.
 *
 * Durability is pipelined: a transaction is written to the WAL without waiting for the disk,
 * and one `fdatasync` of the WAL on libuv's thread pool makes every batch committed before it
 * durable, while the event loop goes on serving requests and committing the next batches.
 * Nobody hears of a batch before its sync: its promises settle and its watch events go out
 * (in revision order) only then, and reads that may have seen it wait for it too. So no write
 * is acknowledged, watched or read before it is on disk, exactly as with `synchronous=FULL`,
 * without blocking the event loop on the disk. Checkpoints (WAL → database file) do not block
 * it either: once the WAL is large, new batches wait until every batch in it is synced, the
 * WAL's pages are copied into the database file (no sync on the loop), and one `fdatasync` of
 * the database file on the thread pool makes them durable; only then do batches commit again
 * (the first one starts the WAL over), so the WAL is never written over before the database
 * file holds what it held.
 *
 * A watch from revision 0 starts at the current revision (live events only); the API layer
 * lists first and then watches from the list's revision.
 */
export class SqliteStore implements Store {
  readonly embedsRevision = true;
  readonly path: string;

  private readonly db: Db;
  private readonly sql: Statements;
  private readonly logger: StoreLogger;
  private readonly retention: RetentionPolicy;
  private readonly now: () => number;
  private readonly applyBatch: Transaction<(ops: WriteOp[], outcomes: Outcome[], events: StoreEvent[]) => number>;
  private readonly compactRange: Transaction<(after: number, upTo: number) => void>;
  private readonly hub = new WatchHub();
  private readonly watchers = new Set<LogWatcher>();
  private readonly timer: NodeJS.Timeout | undefined;

  private state: 'open' | 'closed' = 'open';
  private head: number;
  private compacted: number;
  /** Rows at or below this revision have been physically compacted. */
  private compactedThrough: number;
  private compacting = false;
  private compactionWaiters: CompactionWaiter[] = [];
  private queue: WriteOp[] = [];
  private flushScheduled = false;
  private batches = 0;
  private writes = 0;
  /** The newest revision on disk; `head` may be ahead while syncs are in flight. */
  private durableHead: number;
  private unsynced: CommittedBatch[] = [];
  private durableWaiters: DurableWaiter[] = [];
  private syncing = false;
  private syncs = 0;
  private walBytesSinceCheckpoint = 0;
  /** The WAL is large: new batches wait until it is checkpointed. */
  private checkpointDue = false;
  /** The database file is being synced after a checkpoint: no batch may commit (and start the WAL over) until it is. */
  private databaseSyncing = false;
  private walFd: number | undefined;
  private databaseFd: number | undefined;
  private failure: Error | undefined;
  private readonly syncFile: FileSync;
  private readonly inMemory: boolean;
  private readonly maxPausedEvents: number;
  private historyEventsRead = 0;
  private readonly observer: CommitObserver | undefined;

  constructor(options: SqliteStoreOptions) {
    this.path = options.path;
    this.logger = options.logger ?? silentLogger;
    this.retention = {
      minRevisions: options.retention?.minRevisions ?? defaultRetention.minRevisions,
      minAgeMs: options.retention?.minAgeMs ?? defaultRetention.minAgeMs,
    };
    this.now = options.now ?? Date.now;
    this.maxPausedEvents = options.maxPausedWatchEvents ?? defaultMaxPausedWatchEvents;
    this.syncFile = options.sync ?? fdatasync;
    this.observer = options.observer;
    this.inMemory = options.path === ':memory:' || options.path === '';
    this.db = openDatabase(options.path, { deferredSync: true });
    try {
      this.sql = new Statements(this.db);
      this.head = this.sql.getMeta.get('revision') ?? 0;
      this.durableHead = this.head;
      this.compacted = this.sql.getMeta.get('compacted') ?? 0;
      this.compactedThrough = this.sql.getMeta.get('compact_progress') ?? 0;
      this.applyBatch = this.db.transaction((ops, outcomes, events) => this.apply(ops, outcomes, events));
      this.compactRange = this.db.transaction((after, upTo) => this.removeHistory(after, upTo));
    } catch (err) {
      this.db.close();
      throw new Error(`cannot prepare store database ${options.path}: ${(err as Error).message}`, { cause: err });
    }
    const interval = options.compactionIntervalMs ?? defaultCompactionIntervalMs;
    if (interval > 0) {
      this.timer = setInterval(() => this.applyRetentionInBackground(), interval);
      this.timer.unref();
    }
    // Finish a compaction that a crash interrupted.
    if (this.compactedThrough < this.compacted) this.startCompaction();
    this.logger.info({ path: this.path, revision: this.head, compacted: this.compacted }, 'store opened');
  }

  currentRevision(): number {
    return this.head;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** walBytes is the size of the write-ahead log file now (0 for an in-memory store or before the first write). */
  walBytes(): number {
    if (this.inMemory) return 0;
    try {
      return statSync(`${this.path}-wal`).size;
    } catch {
      return 0;
    }
  }

  stats(): SqliteStoreStats {
    return {
      revision: this.head,
      compactedRevision: this.compacted,
      batches: this.batches,
      writes: this.writes,
      queued: this.queue.length,
      watchers: this.watchers.size,
      syncs: this.syncs,
      durableRevision: this.durableHead,
      historyEventsRead: this.historyEventsRead,
    };
  }

  // ---- reads ----

  async get(key: string): Promise<KeyValue | undefined> {
    this.assertOpen('get', key);
    const row = this.sql.current.get(key);
    const kv = row ? toKeyValue(key, row) : undefined;
    await this.durable(this.head);
    return kv;
  }

  async list(prefix: string, options: StoreListOptions = {}): Promise<StoreListResult> {
    this.assertOpen('list', prefix);
    const limit = options.limit ?? 0;
    if (!Number.isInteger(limit) || limit < 0) {
      throw new RangeError(`cannot list ${JSON.stringify(prefix)}: limit ${limit} is not a non-negative integer`);
    }
    const revision = this.readableRevision(`list ${JSON.stringify(prefix)}`, options.revision ?? 0);
    const range = prefixRange(prefix);
    const after = options.startAfter !== undefined && compareKeys(options.startAfter, prefix) >= 0 ? options.startAfter : undefined;
    const sqlLimit = limit === 0 ? -1 : limit;
    let items: KeyValue[];
    if (revision === this.head) {
      items =
        after === undefined ? this.sql.listLatestFrom.all(range.lower, range.upper, sqlLimit) : this.sql.listLatestAfter.all(after, range.upper, sqlLimit);
    } else {
      items =
        after === undefined
          ? this.sql.listAtFrom.all(range.lower, range.upper, revision, sqlLimit)
          : this.sql.listAtAfter.all(after, range.upper, revision, sqlLimit);
    }
    let remaining = 0;
    const last = items[items.length - 1];
    if (limit > 0 && items.length === limit && last) {
      remaining =
        revision === this.head
          ? (this.sql.countLatestAfter.get(last.key, range.upper) ?? 0)
          : (this.sql.countAtAfter.get(last.key, range.upper, revision) ?? 0);
    }
    await this.durable(revision);
    return { items, revision, more: remaining > 0, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen('count', prefix);
    const range = prefixRange(prefix);
    const n = this.sql.countLatestFrom.get(range.lower, range.upper) ?? 0;
    await this.durable(this.head);
    return n;
  }

  // ---- writes ----

  create(key: string, encode: ValueEncoder): Promise<KeyValue> {
    return this.enqueue(key, (settle) => ({ kind: 'create', key, encode, ...settle }));
  }

  update(key: string, expectedModRevision: number, encode: ValueEncoder): Promise<KeyValue> {
    return this.enqueue(key, (settle) => ({ kind: 'update', key, expected: expectedModRevision, encode, ...settle }));
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.enqueue(key, (settle) => ({ kind: 'delete', key, expected: expectedModRevision, ...settle }));
  }

  private enqueue(key: string, make: (settle: Settle) => WriteOp): Promise<KeyValue> {
    return new Promise<KeyValue>((resolve, reject) => {
      const op = make({ resolve, reject });
      if (this.state !== 'open') {
        reject(new StoreError('closed', `cannot ${op.kind} ${key}: the store is closed`));
        return;
      }
      if (this.failure) {
        reject(this.failure);
        return;
      }
      if (typeof key !== 'string' || key.length === 0) {
        reject(new TypeError(`cannot ${op.kind} a key of ${JSON.stringify(key)}: expected a non-empty string`));
        return;
      }
      this.queue.push(op);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** flush commits one batch from the queue and schedules the next if more wait. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.state !== 'open' || this.queue.length === 0) return;
    // Held while a checkpoint waits or its database sync runs: its end flushes again.
    if (this.checkpointDue || this.databaseSyncing) return;
    this.commit(this.takeBatch());
    if (this.queue.length > 0) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private takeBatch(): WriteOp[] {
    if (this.queue.length <= maxBatchSize) {
      const batch = this.queue;
      this.queue = [];
      return batch;
    }
    return this.queue.splice(0, maxBatchSize);
  }

  /**
   * commit applies `batch` in one transaction (in the WAL, not yet synced) and queues it for
   * the next sync, which settles its promises and fans out its events.
   */
  private commit(batch: WriteOp[]): void {
    const started = performance.now();
    const outcomes: Outcome[] = [];
    const events: StoreEvent[] = [];
    let head: number;
    try {
      head = this.applyBatch.immediate(batch, outcomes, events);
    } catch (err) {
      // The transaction was rolled back: nothing of the batch is stored, and the next batch
      // tries again (a full disk heals by itself when space is freed).
      const full = isSqliteFull(err);
      const message = `cannot commit a batch of ${batch.length} store writes: ${(err as Error).message}`;
      const error = full
        ? new StorageFullError(`${message}: the disk holding ${this.path} is full`, this.path, { cause: err })
        : new Error(message, { cause: err });
      this.logger.error(
        { err, path: this.path, batch: batch.length, diskFull: full },
        full ? 'store commit failed: the disk holding the data directory is full' : 'store commit failed',
      );
      for (const op of batch) op.reject(error);
      return;
    }
    this.head = head;
    this.batches++;
    this.writes += events.length;
    // About a page of log, index and table per write, plus the value itself.
    for (const e of events) this.walBytesSinceCheckpoint += PAGE_ESTIMATE + (e.type === 'put' ? e.kv.value.length : 0);
    this.unsynced.push({ head, outcomes, events, started });
    this.requestSync();
  }

  /** requestSync starts a WAL sync unless one is running (that one's end starts the next). */
  private requestSync(): void {
    if (this.syncing || this.unsynced.length === 0 || this.failure) return;
    this.syncing = true;
    const upTo = this.unsynced.length;
    if (this.inMemory) {
      setImmediate(() => this.synced(upTo, null));
      return;
    }
    let fd: number;
    try {
      fd = this.wal();
    } catch (err) {
      this.synced(upTo, err as Error);
      return;
    }
    this.syncFile(fd, (err) => this.synced(upTo, err));
  }

  /** synced makes the first `count` unsynced batches known: settles them in order, publishes their events. */
  private synced(count: number, err: Error | null): void {
    this.syncing = false;
    if (err) {
      this.failDurability(err);
      return;
    }
    this.syncs++;
    const done = this.unsynced.splice(0, count);
    for (const batch of done) {
      this.durableHead = batch.head;
      for (const outcome of batch.outcomes) {
        if ('error' in outcome) outcome.op.reject(outcome.error);
        else outcome.op.resolve(outcome.kv);
      }
      this.hub.publish(batch.events);
    }
    if (this.observer) {
      const now = performance.now();
      for (const batch of done) this.observer.committed(batch.outcomes.length, (now - batch.started) / 1000);
    }
    this.releaseDurableWaiters();
    if (this.state !== 'open') return;
    this.checkpointWhenLarge();
    this.requestSync();
  }

  /** scheduleFlush flushes the queue on the next turn, unless a flush is scheduled already. */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.queue.length === 0) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /**
   * durable resolves once `revision` is on disk: a read that saw it answers only then, so
   * nobody reads a write that a crash could still take back.
   */
  private durable(revision: number): Promise<void> | void {
    if (revision <= this.durableHead) return;
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => this.durableWaiters.push({ revision, resolve, reject }));
  }

  private releaseDurableWaiters(): void {
    if (this.durableWaiters.length === 0) return;
    const ready = this.durableWaiters.filter((w) => w.revision <= this.durableHead);
    if (ready.length === 0) return;
    this.durableWaiters = this.durableWaiters.filter((w) => w.revision > this.durableHead);
    for (const w of ready) w.resolve();
  }

  /**
   * failDurability handles a failed WAL sync. What reached the disk is unknown, so nothing
   * committed since the last good sync may be acknowledged: those writes, and every read and
   * write after them, fail; a restart recovers what the file holds.
   */
  private failDurability(err: Error, what = 'WAL sync'): void {
    const error = new StoreError('closed', `the store can no longer make writes durable (${what} failed: ${err.message}); restart the server`);
    this.failure = error;
    this.logger.error({ err, path: this.path, unacknowledged: this.unsynced.reduce((n, b) => n + b.outcomes.length, 0) }, `store ${what} failed`);
    const lost = this.unsynced;
    this.unsynced = [];
    for (const batch of lost) for (const outcome of batch.outcomes) outcome.op.reject(error);
    const waiters = this.durableWaiters;
    this.durableWaiters = [];
    for (const w of waiters) w.reject(error);
    for (const op of this.queue.splice(0)) op.reject(error);
    for (const watcher of [...this.watchers]) watcher.fail(error);
  }

  /** wal opens the WAL file once (it keeps its inode while the database is open) and syncs its directory entry. */
  private wal(): number {
    if (this.walFd !== undefined) return this.walFd;
    const fd = openSync(`${this.path}-wal`, 'r+');
    const dir = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    this.walFd = fd;
    return fd;
  }

  /** database opens the database file once, for the syncs that follow checkpoints. */
  private database(): number {
    this.databaseFd ??= openSync(this.path, 'r+');
    return this.databaseFd;
  }

  /**
   * checkpointWhenLarge copies the WAL into the database file once about `checkpointBytes`
   * were written to it since the last checkpoint, without holding the event loop on the disk:
   * it waits (new batches held) until every committed batch is synced, copies the WAL's pages
   * with no sync (`synchronous=OFF`), then syncs the database file on the thread pool. Batches
   * commit again only after that sync, so the WAL is never written over before the database
   * file durably holds what the WAL did.
   */
  private checkpointWhenLarge(): void {
    // The WAL file keeps its size when it is reused from the start, so what was written since
    // the last checkpoint is estimated from the writes rather than read from the file.
    if (this.inMemory || this.walFd === undefined) return;
    if (!this.checkpointDue && this.walBytesSinceCheckpoint < checkpointBytes) return;
    this.checkpointDue = true;
    if (this.unsynced.length > 0 || this.syncing || this.databaseSyncing || this.failure) return; // the sync under way comes back here
    this.checkpointDue = false;
    this.walBytesSinceCheckpoint = 0;
    let fd: number;
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
      fd = this.database();
    } catch (err) {
      this.logger.warn({ err, path: this.path }, 'store checkpoint failed; the WAL keeps growing until one succeeds');
      this.scheduleFlush();
      return;
    }
    this.databaseSyncing = true;
    this.syncFile(fd, (err) => {
      this.databaseSyncing = false;
      if (err) {
        // The checkpoint's pages may not be on disk while the WAL still holds them: it must not
        // be written over. Nothing more can be made durable safely.
        this.failDurability(err, 'database file sync after a checkpoint');
        return;
      }
      this.scheduleFlush();
    });
  }

  /** apply runs inside the batch transaction; it returns the new head revision. */
  private apply(ops: WriteOp[], outcomes: Outcome[], events: StoreEvent[]): number {
    const sql = this.sql;
    let rev = this.head;
    for (const op of ops) {
      const key = op.key;
      const row = sql.current.get(key);
      const current = row ? toKeyValue(key, row) : undefined;
      const next = rev + 1;
      switch (op.kind) {
        case 'create': {
          if (current) {
            outcomes.push({ op, error: new StoreError('exists', `cannot create ${key}: the key already exists`, current) });
            continue;
          }
          const value = encodeValue(op.encode, next, key);
          if (value instanceof Error) {
            outcomes.push({ op, error: value });
            continue;
          }
          sql.insertLog.run(next, key, 0, next, 0, value);
          sql.insertKv.run(key, next, next);
          const kv: KeyValue = { key, value, createRevision: next, modRevision: next };
          outcomes.push({ op, kv: { ...kv } });
          events.push({ type: 'put', kv });
          break;
        }
        case 'update': {
          if (!current) {
            outcomes.push({ op, error: new StoreError('not-found', `cannot update ${key}: the key does not exist`) });
            continue;
          }
          if (current.modRevision !== op.expected) {
            outcomes.push({ op, error: conflict('update', key, op.expected, current) });
            continue;
          }
          const value = encodeValue(op.encode, next, key);
          if (value instanceof Error) {
            outcomes.push({ op, error: value });
            continue;
          }
          sql.insertLog.run(next, key, 0, current.createRevision, current.modRevision, value);
          sql.updateKv.run(next, key);
          const kv: KeyValue = { key, value, createRevision: current.createRevision, modRevision: next };
          outcomes.push({ op, kv: { ...kv } });
          events.push({ type: 'put', kv, prev: current });
          break;
        }
        case 'delete': {
          if (!current) {
            outcomes.push({ op, error: new StoreError('not-found', `cannot delete ${key}: the key does not exist`) });
            continue;
          }
          if (op.expected !== undefined && current.modRevision !== op.expected) {
            outcomes.push({ op, error: conflict('delete', key, op.expected, current) });
            continue;
          }
          sql.insertLog.run(next, key, 1, current.createRevision, current.modRevision, null);
          sql.deleteKv.run(key);
          const kv: KeyValue = { key, value: current.value, createRevision: current.createRevision, modRevision: next };
          outcomes.push({ op, kv: { ...kv } });
          events.push({ type: 'delete', kv, prev: current });
          break;
        }
        default: {
          const never: never = op;
          throw new Error(`unknown store write ${JSON.stringify(never)}`);
        }
      }
      rev = next;
    }
    if (rev !== this.head) {
      sql.setMeta.run(rev, 'revision');
      sql.insertRevTime.run(rev, this.now());
    }
    return rev;
  }

  // ---- watch ----

  watch(prefix: string, afterRevision: number, handlers: StoreWatchHandlers): StoreWatcher {
    this.assertOpen('watch', prefix);
    if (!Number.isInteger(afterRevision) || afterRevision < 0) {
      throw new RangeError(`cannot watch ${JSON.stringify(prefix)} after revision ${afterRevision}: expected a non-negative integer`);
    }
    if (this.failure) throw this.failure;
    const from = afterRevision === 0 ? this.durableHead : afterRevision;
    if (from < this.compacted) {
      throw new StoreError('compacted', `cannot watch ${JSON.stringify(prefix)} after revision ${from}: history up to ${this.compacted} was compacted`);
    }
    // A revision already assigned to a write that is not yet durable is fine: the watcher
    // goes live and skips the events up to it when they arrive.
    if (from > this.head) {
      throw new StoreError('future-revision', `cannot watch ${JSON.stringify(prefix)} after revision ${from}: the current revision is ${this.head}`);
    }
    const watcher = new LogWatcher(this.watchSource, prefix, from, handlers);
    this.watchers.add(watcher);
    watcher.start();
    return watcher;
  }

  private readonly watchSource: WatchSource = {
    hub: this.hub,
    currentRevision: () => this.durableHead,
    compactedRevision: () => this.compacted,
    readHistory: (range, after, upTo, limit) => this.readHistory(range, after, upTo, limit),
    forget: (watcher) => {
      this.watchers.delete(watcher);
    },
    maxPausedEvents: () => this.maxPausedEvents,
  };

  private readHistory(range: KeyRange, after: number, upTo: number, limit: number): StoreEvent[] {
    if (this.state !== 'open') throw new StoreError('closed', 'cannot read history: the store is closed');
    const events: StoreEvent[] = [];
    for (const row of this.sql.history.iterate(after, upTo, range.lower, range.upper, limit)) {
      const prev: KeyValue | undefined =
        row.prevRev > 0 && row.prevValue !== null
          ? { key: row.key, value: row.prevValue, createRevision: row.prevCreateRev ?? 0, modRevision: row.prevRev }
          : undefined;
      if (row.deleted) {
        // A tombstone holds no value: the event carries the value it removed.
        const kv: KeyValue = { key: row.key, value: prev?.value ?? '', createRevision: row.createRev, modRevision: row.rev };
        events.push(prev ? { type: 'delete', kv, prev } : { type: 'delete', kv });
      } else {
        const kv: KeyValue = { key: row.key, value: row.value ?? '', createRevision: row.createRev, modRevision: row.rev };
        events.push(prev ? { type: 'put', kv, prev } : { type: 'put', kv });
      }
    }
    this.historyEventsRead += events.length;
    return events;
  }

  // ---- compaction ----

  /**
   * compact makes `revision` the oldest readable revision and removes the history below
   * it: superseded values and tombstones at or below `revision`. The latest value of every
   * live key stays. It resolves once the rows are gone; reads below `revision` fail at once.
   */
  compact(revision: number): Promise<void> {
    if (this.state !== 'open') {
      return Promise.reject(new StoreError('closed', `cannot compact to revision ${revision}: the store is closed`));
    }
    if (!Number.isInteger(revision) || revision < 0) {
      return Promise.reject(new RangeError(`cannot compact to revision ${revision}: expected a non-negative integer`));
    }
    if (revision > this.head) {
      return Promise.reject(new StoreError('future-revision', `cannot compact to revision ${revision}: the current revision is ${this.head}`));
    }
    if (revision > this.compacted) {
      try {
        this.sql.setMeta.run(revision, 'compacted');
      } catch (err) {
        return Promise.reject(new Error(`cannot compact to revision ${revision}: ${(err as Error).message}`, { cause: err }));
      }
      this.compacted = revision;
      this.logger.debug({ path: this.path, revision }, 'store compaction started');
    }
    if (this.compactedThrough >= revision) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.compactionWaiters.push({ revision, resolve, reject });
      this.startCompaction();
    });
  }

  /**
   * applyRetention compacts everything the retention policy lets go: revisions both older
   * than `minAgeMs` and more than `minRevisions` behind the head. It returns the revision
   * compacted to (unchanged when nothing qualified). The store's timer calls it.
   */
  async applyRetention(): Promise<number> {
    this.assertOpen('apply retention to', this.path);
    const byCount = this.head - this.retention.minRevisions;
    if (byCount <= this.compacted) return this.compacted;
    const byAge = this.sql.revisionAtOrBefore.get(this.now() - this.retention.minAgeMs) ?? 0;
    const target = Math.min(byCount, byAge);
    if (target <= this.compacted) return this.compacted;
    await this.compact(target);
    return target;
  }

  private applyRetentionInBackground(): void {
    if (this.state !== 'open') return;
    this.applyRetention().catch((err: unknown) => {
      if (this.state === 'open') this.logger.warn({ err, path: this.path }, 'store compaction failed');
    });
  }

  private startCompaction(): void {
    if (this.compacting) return;
    this.compacting = true;
    setImmediate(() => this.compactStep());
  }

  /** compactStep removes the history of up to `revisionsPerCompactionStep` revisions, then yields. */
  private compactStep(): void {
    if (this.state !== 'open') {
      this.compacting = false;
      return;
    }
    const after = this.compactedThrough;
    const upTo = Math.min(this.compacted, after + revisionsPerCompactionStep);
    try {
      this.compactRange.immediate(after, upTo);
    } catch (err) {
      this.compacting = false;
      const error = new Error(`cannot compact revisions ${after + 1}..${upTo}: ${(err as Error).message}`, { cause: err });
      this.logger.error({ err, path: this.path }, 'store compaction failed');
      const waiters = this.compactionWaiters;
      this.compactionWaiters = [];
      for (const waiter of waiters) waiter.reject(error);
      return;
    }
    this.compactedThrough = upTo;
    const done = this.compactionWaiters.filter((w) => w.revision <= upTo);
    this.compactionWaiters = this.compactionWaiters.filter((w) => w.revision > upTo);
    for (const waiter of done) waiter.resolve();
    if (upTo < this.compacted) {
      setImmediate(() => this.compactStep());
    } else {
      this.compacting = false;
      this.logger.debug({ path: this.path, revision: upTo }, 'store compaction finished');
    }
  }

  /**
   * removeHistory runs inside a transaction. A revision in (after, upTo] supersedes the row
   * its prev_rev names, so that row goes; a tombstone in the range goes too. Rows above the
   * compacted revision are never touched, so every event a watch can still replay keeps its
   * previous value.
   */
  private removeHistory(after: number, upTo: number): void {
    this.sql.deleteSuperseded.run(after, upTo);
    this.sql.deleteTombstones.run(after, upTo);
    if (upTo === this.compacted) this.sql.pruneRevTime.run(upTo);
    this.sql.setMeta.run(upTo, 'compact_progress');
  }

  // ---- lifecycle ----

  /**
   * close commits the queued writes, ends every watch with StoreError('closed'), stops
   * the timers and closes the file. Later calls return at once; other methods then fail
   * with StoreError('closed').
   */
  async close(): Promise<void> {
    if (this.state !== 'open') return;
    // A checkpoint's database sync still under way: finish it before a commit may start the WAL over.
    if (this.databaseSyncing && this.databaseFd !== undefined && !this.failure) {
      try {
        fdatasyncSync(this.databaseFd);
      } catch (err) {
        this.failDurability(err as Error, 'database file sync after a checkpoint');
      }
    }
    if (!this.failure) while (this.queue.length > 0) this.commit(this.takeBatch());
    this.state = 'closed';
    // Make the last batches durable now (no other sync can start: the store is closed).
    if (this.unsynced.length > 0 && !this.failure) {
      let err: Error | null = null;
      try {
        if (!this.inMemory) fdatasyncSync(this.wal());
      } catch (e) {
        err = e as Error;
      }
      this.synced(this.unsynced.length, err);
    }
    const pendingReads = this.durableWaiters;
    this.durableWaiters = [];
    for (const w of pendingReads) w.reject(new StoreError('closed', 'the store closed before the read could answer'));
    if (this.timer) clearInterval(this.timer);
    const closed = (what: string) => new StoreError('closed', `${what}: the store is closed`);
    const waiters = this.compactionWaiters;
    this.compactionWaiters = [];
    for (const waiter of waiters) waiter.reject(closed(`cannot compact to revision ${waiter.revision}`));
    for (const watcher of [...this.watchers]) watcher.fail(closed(`watch of ${JSON.stringify(watcher.prefix)} ended`));
    if (this.walFd !== undefined) closeSync(this.walFd);
    if (this.databaseFd !== undefined) closeSync(this.databaseFd);
    if (!this.inMemory && !this.failure) this.db.pragma('synchronous = FULL'); // the closing checkpoint syncs the database file
    this.db.close();
    this.logger.info({ path: this.path, revision: this.head }, 'store closed');
  }

  private assertOpen(what: string, subject: string): void {
    if (this.state !== 'open') throw new StoreError('closed', `cannot ${what} ${subject}: the store is closed`);
  }

  /** readableRevision resolves a requested read revision (0 = latest) or throws. */
  private readableRevision(what: string, requested: number): number {
    if (!Number.isInteger(requested) || requested < 0) {
      throw new RangeError(`cannot ${what} at revision ${requested}: expected a non-negative integer`);
    }
    if (requested === 0) return this.head;
    if (requested > this.head) {
      throw new StoreError('future-revision', `cannot ${what} at revision ${requested}: the current revision is ${this.head}`);
    }
    if (requested < this.compacted) {
      throw new StoreError('compacted', `cannot ${what} at revision ${requested}: history up to ${this.compacted} was compacted`);
    }
    return requested;
  }
}

function toKeyValue(key: string, row: CurrentRow): KeyValue {
  return { key, value: row.value, createRevision: row.createRevision, modRevision: row.modRevision };
}

function conflict(what: 'update' | 'delete', key: string, expected: number, current: KeyValue): StoreError {
  return new StoreError('conflict', `cannot ${what} ${key}: expected modRevision ${expected}, found ${current.modRevision}`, current);
}

/** encodeValue calls the caller's encoder; its failure fails only that write. */
function encodeValue(encode: ValueEncoder, revision: number, key: string): string | Error {
  let value: unknown;
  try {
    value = encode(revision);
  } catch (err) {
    return err instanceof Error ? err : new Error(`cannot encode the value of ${key}: ${String(err)}`);
  }
  if (typeof value !== 'string') {
    return new TypeError(`cannot store the value of ${key}: the encoder returned ${typeof value}, expected a string`);
  }
  return value;
}
