/**
 * The Store is an MVCC key-value log shaped like etcd v3: one global revision that every
 * write advances, per-key create and modification revisions, compare-and-swap writes,
 * reads and lists at a revision, watches from a revision, and compaction of old history.
 * The SQLite backend implements it for the embedded default; an etcd backend can too.
 */

export interface KeyValue {
  key: string;
  /** The stored bytes (UTF-8 JSON for Conductor's objects). */
  value: string;
  /** The revision at which this key was created (reset by a delete and re-create). */
  createRevision: number;
  /** The revision of the last write to this key. For a delete event: the revision of the delete. */
  modRevision: number;
}

/**
 * ValueBytes is what a KeyValue that holds its value as UTF-8 bytes (the etcd watch cache's)
 * offers beside `value`: a reader that sends the value on (a list's body) copies the bytes
 * instead of decoding them into a string that is encoded again on the way out. The bytes stay
 * the KeyValue's: they are copied out, never handed over.
 */
export interface ValueBytes {
  /** The size of the value in UTF-8 bytes. */
  readonly byteLength: number;
  /** The first `bytes` bytes as Latin-1 text (one character per byte: ASCII reads as itself). */
  valueHead(bytes: number): string;
  /** True when the value's bytes contain `search.needle` (a value may remember the answer). */
  valueIncludes(search: ValueSearch): boolean;
  /** True when the value's bytes begin with `prefix`. */
  valueStartsWith(prefix: Buffer): boolean;
  /** Copies bytes `start` to `end` (default: all) into `target` at `targetStart`; returns how many. */
  copyValue(target: Uint8Array, targetStart: number, start?: number, end?: number): number;
}

/**
 * ValueSearch is a byte string looked for in many values (`ValueBytes.valueIncludes`), made
 * once (at module level): a value may remember its answers for the first few searches made.
 */
export class ValueSearch {
  private static made = 0;
  /** Which search this is, in the order they were made. */
  readonly id: number;

  constructor(readonly needle: Buffer) {
    this.id = ValueSearch.made++;
  }
}

/** hasValueBytes is true when `kv` holds its value as bytes it can copy out (see ValueBytes). */
export function hasValueBytes(kv: KeyValue): kv is KeyValue & ValueBytes {
  return typeof (kv as Partial<ValueBytes>).copyValue === 'function';
}

/**
 * Produces the value to store, given the revision the write will be stored at. Backends that
 * assign the revision themselves before writing (SQLite) pass the real revision so the caller
 * can embed it (for example as metadata.resourceVersion); backends that cannot (etcd) pass 0,
 * and readers must then take the revision from the KeyValue instead.
 */
export type ValueEncoder = (revision: number) => string;

export interface StoreListOptions {
  /** At most this many items; 0 or undefined means all. */
  limit?: number;
  /** Start strictly after this key (for continuation). */
  startAfter?: string;
  /** List the state as of this revision; 0 or undefined means the latest. */
  revision?: number;
}

export interface StoreListResult {
  items: KeyValue[];
  /** The revision the list reflects. */
  revision: number;
  /** True when more keys under the prefix follow the last item. */
  more: boolean;
  /** How many keys follow the last item, when `more` is true. */
  remaining: number;
}

export type StoreEventType = 'put' | 'delete';

export interface StoreEvent {
  type: StoreEventType;
  /** For put: the new value. For delete: the last value, with modRevision = the delete's revision. */
  kv: KeyValue;
  /** The value before this event, when known (absent for a create). */
  prev?: KeyValue;
}

export interface StoreWatcher {
  /** Stops delivery. Safe to call more than once. */
  close(): void;
  /**
   * Continues a watcher paused by its handler (onEvents returned fewer events than it was
   * given): the events it has not taken are read again from the store's history, then live
   * delivery resumes. Does nothing when the watcher is not paused.
   */
  resume(): void;
}

export interface StoreWatchHandlers {
  /**
   * Events in revision order; each call holds the events of one or more revisions.
   *
   * Returning a number n smaller than `events.length` says "I took only the first n and
   * cannot take more now" (backpressure): the watcher pauses after them and holds nothing
   * for this handler until `resume()`. A paused watcher only counts the events it misses;
   * past the store's limit it ends with StoreError('too-far-behind'). Returning nothing
   * means every event was taken.
   */
  onEvents(events: StoreEvent[]): number | void;
  /**
   * The watch ended: the requested revision was compacted (`StoreCompactedError`), the
   * watcher fell too far behind (`too-far-behind`), or the store closed.
   */
  onError(err: Error): void;
}

/**
 * A StoreError says why a Store call failed. 'unavailable': a networked backend (etcd) could
 * not be reached or lost its connection; for a write, the message says whether it may have
 * been applied. Callers report it as a temporary failure (503) and retry.
 */
export class StoreError extends Error {
  constructor(
    readonly code: 'exists' | 'not-found' | 'conflict' | 'compacted' | 'closed' | 'future-revision' | 'too-far-behind' | 'unavailable',
    message: string,
    /** For 'conflict' and 'exists': the current value of the key. */
    readonly current?: KeyValue,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export interface Store {
  /** The latest revision the store has committed. */
  currentRevision(): number;
  /** The oldest revision still readable; anything at or below it is compacted away. */
  compactedRevision(): number;
  /** True when ValueEncoder receives the real revision (see ValueEncoder). */
  readonly embedsRevision: boolean;

  get(key: string): Promise<KeyValue | undefined>;
  /** Keys starting with `prefix`, in key order. Throws StoreError('compacted') for an old revision. */
  list(prefix: string, options?: StoreListOptions): Promise<StoreListResult>;
  count(prefix: string): Promise<number>;

  /** Creates `key`; throws StoreError('exists') when it is present. */
  create(key: string, encode: ValueEncoder): Promise<KeyValue>;
  /**
   * Replaces `key` if its modRevision is still `expectedModRevision`; throws
   * StoreError('conflict', current) otherwise, StoreError('not-found') when it is gone.
   */
  update(key: string, expectedModRevision: number, encode: ValueEncoder): Promise<KeyValue>;
  /**
   * Deletes `key` (if `expectedModRevision` is given, only at that revision). Returns the
   * last value with modRevision set to the delete's revision.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;

  /**
   * Delivers every event under `prefix` with a revision greater than `afterRevision`, first
   * from history, then live. Throws StoreError('compacted') if `afterRevision` is older than
   * the retained history, StoreError('future-revision') if it is above `currentRevision()`
   * (a revision assigned to a write that is not yet durable is fine: its events follow).
   */
  watch(prefix: string, afterRevision: number, handlers: StoreWatchHandlers): StoreWatcher;

  /**
   * Networked backends shared with other writers (etcd): asks the backend for its newest
   * revision and advances `currentRevision()` to it, so a revision another server handed out
   * is known here. Absent where this store sees every write (SQLite).
   */
  latestRevision?(): Promise<number>;
  /**
   * Networked backends: undefined when the backend answers now, else why not (for a
   * readiness check). Absent where the store is in-process.
   */
  checkReachable?(): Promise<string | undefined>;

  /** Discards history at or below `revision` (never the latest value of a key). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}
