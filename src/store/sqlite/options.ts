/**
 * Options of the SQLite store and their defaults.
 */

/**
 * A RetentionPolicy says how much history compaction keeps: a revision is discarded only
 * when it is both older than `minAgeMs` and more than `minRevisions` behind the head.
 */
export interface RetentionPolicy {
  minRevisions: number;
  minAgeMs: number;
}

/**
 * A StoreLogger receives the store's structured log lines. A pino logger fits as is.
 */
export interface StoreLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SqliteStoreOptions {
  /** The database file; created with its parent folder when missing. `:memory:` gives a throwaway store. */
  path: string;
  /** History to keep; see RetentionPolicy. */
  retention?: Partial<RetentionPolicy>;
  /** How often the automatic compaction runs; 0 turns it off. */
  compactionIntervalMs?: number;
  logger?: StoreLogger;
  /**
   * A watcher whose handler stopped taking events (backpressure) ends with
   * StoreError('too-far-behind') once it has missed more events than this.
   */
  maxPausedWatchEvents?: number;
  /** The wall clock in milliseconds, for retention by age; tests replace it. */
  now?: () => number;
  /** How the WAL is made durable (fs.fdatasync); tests pass one they control. */
  sync?: (fd: number, done: (err: Error | null) => void) => void;
  /** Told of every group commit once it is durable (metrics). */
  observer?: CommitObserver;
}

/**
 * A CommitObserver hears of each group commit once its writes are durable: how many writes it
 * held and how long it took from the transaction's start to the WAL sync that made it durable.
 * Called once per commit (not per write), after the writers were answered; it must not throw.
 */
export interface CommitObserver {
  committed(writes: number, seconds: number): void;
}

export const defaultRetention: RetentionPolicy = { minRevisions: 1000, minAgeMs: 300_000 };
export const defaultCompactionIntervalMs = 60_000;
/** See SqliteStoreOptions.maxPausedWatchEvents. */
export const defaultMaxPausedWatchEvents = 1000;

/** The WAL is copied into the database file after about this much was written to it (SQLite's own default is 4 MiB). */
export const checkpointBytes = 16 * 1024 * 1024;

/**
 * SQLite's page cache (per store). 16 MiB holds the hot pages of the indexes and recent
 * revisions; pages beyond it come from the operating system's file cache, which is not the
 * server's memory. 64 MiB cost the server 48 MB of RSS at 10,000 claims and bought no
 * measurable get or list speed (bench/README.md).
 */
export const pageCacheBytes = 16 * 1024 * 1024;

/** The most writes one transaction commits. */
export const maxBatchSize = 256;
/** The most revisions one step of a watch's history replay reads (about 10 ms of work). */
export const revisionsPerStep = 2000;
/**
 * The most events one step of a watch's history replay reads: a watcher that a slow client
 * paused takes a few events per resume, so a step reads no more than it may hold.
 */
export const eventsPerStep = 256;
/** The most bytes of values a paused watcher holds of the events it was offered and did not take. */
export const heldBytesPerWatcher = 256 * 1024;
/** The most revisions one compaction step (one transaction) covers (about 10 ms of work). */
export const revisionsPerCompactionStep = 500;

/** A silentLogger drops every line. */
export const silentLogger: StoreLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
