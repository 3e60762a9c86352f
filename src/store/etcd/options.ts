/**
 * Options of the etcd store and their defaults.
 */
import type { CommitObserver, RetentionPolicy, StoreLogger } from '../sqlite/options.js';

// The retention policy, its defaults and the logger shape are the SQLite store's, so both
// backends keep the same history by default.
export { defaultRetention, defaultCompactionIntervalMs, defaultMaxPausedWatchEvents, silentLogger } from '../sqlite/options.js';
export type { CommitObserver, RetentionPolicy, StoreLogger };

/** TLS to etcd: the CA that signed the members' certificates, and a client certificate. */
export interface EtcdTlsOptions {
  /** PEM CA bundle; when absent, the system's roots verify the members. */
  ca?: Buffer;
  /** PEM client certificate (needs `key`). */
  cert?: Buffer;
  /** PEM private key of `cert`. */
  key?: Buffer;
}

export interface EtcdStoreOptions {
  /** Client URLs of the members (`http://host:port` or `https://host:port`); calls fail over between them. */
  endpoints: readonly string[];
  tls?: EtcdTlsOptions;
  /**
   * Prepended to every key in etcd and removed from keys read back, so several Conductors (or
   * other programs) can share one etcd. Empty by default.
   */
  keyPrefix?: string;
  /** History to keep; see RetentionPolicy. */
  retention?: Partial<RetentionPolicy>;
  /** How often the automatic compaction runs; 0 turns it off. */
  compactionIntervalMs?: number;
  /** A watcher whose handler stopped taking events ends with 'too-far-behind' once it missed more than this. */
  maxPausedWatchEvents?: number;
  /** How long one call to etcd may take before it fails with 'unavailable'. */
  callTimeoutMs?: number;
  logger?: StoreLogger;
  /**
   * Follow every write under the key prefix, by anyone (one more etcd watch), so that
   * `currentRevision()` keeps up with other clients of the cluster — several API servers on one
   * etcd. Off by default: a store only sees its own answers and watches.
   */
  followRevisions?: boolean;
  /**
   * Keep every key under the prefix in memory, current through one etcd watch (it replaces
   * the follower of `followRevisions`), and answer gets from it once it has seen etcd's
   * current revision: as consistent as a Range, without one per get. Costs the memory of
   * every stored value. Off by default.
   */
  watchCache?: boolean;
  /**
   * With `watchCache`: how many recent events it keeps, so that watches starting that far back
   * (a client resuming from its last resourceVersion, a paused watcher resuming) are served from
   * memory; older starts get an etcd watch of their own. Default `defaultWatchHistoryEvents`.
   */
  watchHistoryEvents?: number;
  /**
   * With `watchCache`: at most this many bytes of keys, values and previous values in those
   * events (whole revisions go first; `watchHistoryEvents` still bounds their number). Default
   * `defaultWatchHistoryBytes`.
   */
  watchHistoryBytes?: number;
  /** Hears where each get was answered: the watch cache or an etcd Range (metrics). */
  readObserver?: ReadObserver;
  /** Hears of each write transaction once etcd acknowledged it (one write each: batch size 1). */
  observer?: CommitObserver;
  /** The wall clock in milliseconds, for retention by age; tests replace it. */
  now?: () => number;
}

/** A ReadObserver hears where each get was answered; it must not throw. */
export interface ReadObserver {
  get(source: 'cache' | 'etcd'): void;
}

export const defaultCallTimeoutMs = 15_000;
/** How long `checkReachable` waits for an answer. */
export const reachableProbeTimeoutMs = 2_000;
/** The pause before the revision follower's watch is opened again after it ended. */
export const followerRetryMs = 1_000;
/**
 * How long a get waits for the watch cache to see etcd's current revision before it reads
 * etcd instead (a cache watch that lags that much is behind a slow network or a busy server).
 */
export const cacheFreshnessWaitMs = 3_000;
/** How long the etcd database sizes are reused between scrapes of /metrics. */
export const statusTtlMs = 10_000;
/** Events the watch cache keeps for watches that start in the past (each shares its value with the cache or is a replaced one). */
export const defaultWatchHistoryEvents = 10_000;
/** Bytes of keys and values the watch cache's history may hold (32 MiB): 10,000 events of up to about 3 KB. */
export const defaultWatchHistoryBytes = 32 * 1024 * 1024;
/** A watch stream that cannot be reopened on any endpoint this many times in a row ends with 'unavailable'. */
export const watchReconnectAttempts = 5;
