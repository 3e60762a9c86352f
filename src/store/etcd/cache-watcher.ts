/**
 * CacheWatcher: one Store watch served by the watch cache instead of an etcd watch of its own.
 * The cache decodes each etcd event once and hands the same event objects to every watcher
 * whose prefix it falls under; a watcher that starts in the past is first given the cache's
 * recent history (`EventHistory`).
 *
 * When the cache cannot serve it — the start is older than the history it holds, or the
 * cache lost its etcd watch — the watcher goes on as an etcd watch of its own from the last
 * revision it delivered (etcd replays the rest): no gap, no duplicate. A handler that takes
 * only part of a delivery pauses the watcher, which then holds nothing and only counts what
 * it misses (past `maxPausedEvents`: 'too-far-behind'); `resume()` replays from the history,
 * or from etcd when the history has moved on.
 */
import type { StoreEvent, StoreWatchHandlers, StoreWatcher } from '../types.js';
import { Delivery } from './delivery.js';

/** What a CacheWatcher needs of the watch cache and its store. */
export interface CacheWatchHost {
  /**
   * The events under `prefix` after `revision` that the cache has applied, or undefined when it
   * cannot serve a watch from there (not ready, or that part of its history was let go).
   */
  replay(prefix: string, revision: number): StoreEvent[] | undefined;
  /** Live events under the watcher's prefix go to `offer` from now on. */
  register(watcher: CacheWatcher): void;
  unregister(watcher: CacheWatcher): void;
  /** An etcd watch of its own, for when the cache cannot serve this one. */
  openEtcdWatch(prefix: string, afterRevision: number, handlers: StoreWatchHandlers): StoreWatcher;
  maxPausedEvents(): number;
  /** Called once when the watcher closes (the store's count of watchers). */
  forget(watcher: CacheWatcher): void;
}

export class CacheWatcher implements StoreWatcher {
  /** starting: registered at the next microtask, after the history it missed. */
  private state: 'starting' | 'live' | 'paused' | 'closed' = 'starting';
  /** The last revision delivered, the handler's pauses and what it missed. */
  private readonly delivery: Delivery;
  /** The etcd watch that serves this watcher once the cache could not. */
  private delegate: StoreWatcher | undefined;

  constructor(
    private readonly host: CacheWatchHost,
    readonly prefix: string,
    /** The last revision delivered (or known to hold nothing for this prefix). */
    lastRevision: number,
    private readonly handlers: StoreWatchHandlers,
  ) {
    this.delivery = new Delivery(this, handlers, lastRevision, () => host.maxPausedEvents());
  }

  /** start delivers the history after the start revision, then live events; call once. */
  start(): void {
    // Not inside the caller's turn: a Store watch never delivers before watch() returned.
    queueMicrotask(() => this.catchUp());
  }

  /** True when an etcd watch of its own serves this watcher (for tests and diagnostics). */
  get onEtcd(): boolean {
    return this.delegate !== undefined;
  }

  get paused(): boolean {
    return this.state === 'paused';
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  resume(): void {
    if (this.delegate) {
      this.delegate.resume();
      return;
    }
    if (this.state !== 'paused') return;
    this.host.unregister(this);
    this.state = 'starting';
    this.delivery.resumed();
    queueMicrotask(() => this.catchUp());
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.host.unregister(this);
    this.delegate?.close();
    this.host.forget(this);
  }

  /** fail closes the watcher and reports `err` through onError. */
  fail(err: Error): void {
    if (this.state === 'closed') return;
    this.close();
    try {
      this.handlers.onError(err);
    } catch {
      // The watch is over either way; a failing onError has nobody left to tell.
    }
  }

  /**
   * offer hands over live events under this watcher's prefix, oldest first (the cache calls
   * it; the array is shared with the other watchers and must not be changed).
   */
  offer(events: StoreEvent[]): void {
    if (this.state === 'live') {
      this.deliver(events);
      return;
    }
    if (this.state === 'paused') this.delivery.miss(events);
  }

  /** leaveCache moves a watcher the cache can no longer serve to an etcd watch of its own (a paused one on resume). */
  leaveCache(): void {
    this.host.unregister(this);
    if (this.state === 'live') this.toEtcd();
  }

  private catchUp(): void {
    if (this.state !== 'starting') return;
    const missed = this.host.replay(this.prefix, this.delivery.lastRevision);
    if (!missed) {
      this.toEtcd();
      return;
    }
    this.state = 'live';
    this.host.register(this);
    if (missed.length > 0) this.deliver(missed);
  }

  private toEtcd(): void {
    this.state = 'live';
    this.host.unregister(this);
    const delegate = this.host.openEtcdWatch(this.prefix, this.delivery.lastRevision, {
      onEvents: (events) => this.handlers.onEvents(events),
      // Also when it fails before it is returned (no endpoint): fail is once only.
      onError: (err) => this.fail(err),
    });
    if ((this.state as string) === 'closed') delegate.close();
    else this.delegate = delegate;
  }

  private deliver(events: StoreEvent[]): void {
    if (this.delivery.hand(events) === 'paused') this.state = 'paused';
  }
}
