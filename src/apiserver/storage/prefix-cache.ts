/**
 * A PrefixCache keeps, in memory, what the API server's own checks need to know about every
 * key under one store prefix (a projection of each value), current with every commit: it
 * lists the prefix, then watches it. Store watches are delivered synchronously with a commit
 * and before the writer hears back, so once synced the cache never lags a write that any
 * client has seen succeed. Admission plugins use it to answer "does namespace X exist?" or
 * "has namespace X any quota?" without a store read per request.
 */
import type { Logger } from 'pino';
import { StoreError, type KeyValue, type Store, type StoreWatcher } from '../../store/types.js';

export interface PrefixCacheOptions<T> {
  /** What to keep of each value; called for every put under the prefix. */
  project: (kv: KeyValue) => T;
  logger?: Logger;
  /** Wait before listing again after the watch ended with an error other than compaction; default 1 s. */
  retryMs?: number;
  /** Told of every change of a key's projection (undefined: absent), for an index kept beside the cache. */
  onChange?: (previous: T | undefined, next: T | undefined) => void;
  /** Told when the cache drops everything to list again (an index kept beside it starts over). */
  onReset?: () => void;
}

export class PrefixCache<T> {
  private readonly items = new Map<string, T>();
  /** How many keys sit directly in each directory under the prefix (`<prefix><dir>/<name>`). */
  private readonly perDirectory = new Map<string, number>();
  private watcher: StoreWatcher | undefined;
  private synced = false;
  private stopped = false;
  private changes = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    readonly prefix: string,
    private readonly options: PrefixCacheOptions<T>,
  ) {}

  /** Lists and starts watching; resolves once the cache holds the listed state. */
  async start(): Promise<void> {
    if (this.stopped) return;
    this.synced = false;
    this.watcher?.close();
    this.watcher = undefined;
    const listed = await this.store.list(this.prefix);
    if (this.stopped) return;
    this.items.clear();
    this.perDirectory.clear();
    this.options.onReset?.();
    for (const kv of listed.items) this.put(kv);
    this.watcher = this.store.watch(this.prefix, listed.revision, {
      onEvents: (events) => {
        for (const e of events) {
          if (e.type === 'delete') this.remove(e.kv.key);
          else this.put(e.kv);
        }
      },
      onError: (err) => this.restart(err),
    });
    this.synced = true;
    this.changes++;
  }

  /** Stops watching; the cache answers "unknown" from then on. */
  stop(): void {
    this.stopped = true;
    this.synced = false;
    clearTimeout(this.retryTimer);
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** True while the cache reflects the store (after the first list, until an error or stop). */
  get ready(): boolean {
    return this.synced;
  }

  /** The projection of the value at `<prefix><rest>`; undefined when absent or not ready. */
  get(rest: string): T | undefined {
    return this.synced ? this.items.get(this.prefix + rest) : undefined;
  }

  /**
   * A number that changes whenever the cached state may have changed (a put, a delete, a new
   * list): what is derived from `entries()` can be kept until it moves.
   */
  get version(): number {
    return this.changes;
  }

  /** Every key with its projection; nothing when not ready. */
  *entries(): IterableIterator<[string, T]> {
    if (this.synced) yield* this.items.entries();
  }

  /** How many keys sit in `<prefix><dir>/`; undefined when not ready (ask the store). */
  countIn(dir: string): number | undefined {
    return this.synced ? (this.perDirectory.get(dir) ?? 0) : undefined;
  }

  private put(kv: KeyValue): void {
    this.changes++;
    const previous = this.items.get(kv.key);
    if (previous === undefined && !this.items.has(kv.key)) this.count(kv.key, 1);
    const next = this.options.project(kv);
    this.items.set(kv.key, next);
    this.options.onChange?.(previous, next);
  }

  private remove(key: string): void {
    this.changes++;
    const previous = this.items.get(key);
    if (this.items.delete(key)) {
      this.count(key, -1);
      this.options.onChange?.(previous, undefined);
    }
  }

  private count(key: string, delta: number): void {
    const rest = key.slice(this.prefix.length);
    const slash = rest.lastIndexOf('/');
    const dir = slash < 0 ? '' : rest.slice(0, slash);
    const n = (this.perDirectory.get(dir) ?? 0) + delta;
    if (n > 0) this.perDirectory.set(dir, n);
    else this.perDirectory.delete(dir);
  }

  private restart(err: Error): void {
    this.synced = false;
    this.changes++;
    this.watcher = undefined;
    if (this.stopped) return;
    if (err instanceof StoreError && err.code === 'closed') return;
    const compacted = err instanceof StoreError && err.code === 'compacted';
    if (!compacted) this.options.logger?.warn({ prefix: this.prefix, err: err.message }, 'cache watch failed; listing again');
    this.retryTimer = setTimeout(
      () => {
        this.start().catch((e: unknown) => this.restart(e instanceof Error ? e : new Error(String(e))));
      },
      compacted ? 0 : (this.options.retryMs ?? 1000),
    );
    this.retryTimer.unref();
  }
}
