/**
 * Delivery: what an etcd-backed watcher (`EtcdWatcher`, `CacheWatcher`) does with the events
 * it is given — the revision bookkeeping, the call to the handler, and the pause that a handler
 * taking only part of a delivery asks for — in one place for both.
 *
 * It keeps the last revision the handler took: events at or below it are dropped (a stream that
 * restarts at that revision, a history replayed from it, an event offered twice). A handler that
 * takes `n` of the events it is given pauses the watcher after them: the `n`-th event's revision
 * is the last taken, and the events it refused count as missed. While paused, the watcher holds
 * nothing and only counts what it misses (`miss`); past `maxPausedEvents` it fails with
 * `too-far-behind`. A handler that throws fails the watcher.
 */
import { StoreError, type StoreEvent, type StoreWatchHandlers } from '../types.js';

/** What Delivery needs of its watcher. */
export interface DeliveryOwner {
  readonly prefix: string;
  /** True once the watcher closed (its handler may close it while taking events). */
  readonly closed: boolean;
  /** Closes the watcher and reports `err` through its onError. */
  fail(err: Error): void;
}

/** What became of a delivery: every event taken, the watcher paused, or the watcher closed. */
export type DeliveryOutcome = 'taken' | 'paused' | 'closed';

export class Delivery {
  /** Events the watcher missed since it paused (those its handler refused count too). */
  private missed = 0;

  constructor(
    private readonly owner: DeliveryOwner,
    private readonly handlers: StoreWatchHandlers,
    /** The last revision delivered (or known to hold nothing for this prefix). */
    public lastRevision: number,
    private readonly maxPausedEvents: () => number,
  ) {}

  /** after keeps the events newer than the last revision delivered (the same array when all are). */
  after(events: StoreEvent[]): StoreEvent[] {
    const last = this.lastRevision;
    return (events[0]?.kv.modRevision ?? Infinity) <= last ? events.filter((e) => e.kv.modRevision > last) : events;
  }

  /** hand gives the handler the events newer than the last revision delivered. */
  hand(offered: StoreEvent[]): DeliveryOutcome {
    const events = this.after(offered);
    if (events.length === 0) return 'taken';
    let taken: number | void;
    try {
      taken = this.handlers.onEvents(events);
    } catch (err) {
      this.owner.fail(new Error(`watch handler for ${JSON.stringify(this.owner.prefix)} failed: ${(err as Error).message}`, { cause: err }));
      return 'closed';
    }
    if (this.owner.closed) return 'closed'; // the handler closed the watcher
    if (typeof taken === 'number' && taken < events.length) {
      if (taken > 0) this.lastRevision = Math.max(this.lastRevision, events[taken - 1]?.kv.modRevision ?? 0);
      // The events it refused are missed too: one delivery may hold several revisions, so
      // counting only later ones would let a paused watcher miss more than the limit.
      this.missed = events.length - Math.max(0, taken);
      return 'paused';
    }
    this.lastRevision = Math.max(this.lastRevision, events[events.length - 1]?.kv.modRevision ?? 0);
    return 'taken';
  }

  /**
   * miss counts the events a paused watcher was offered (those newer than what it took); past
   * the limit the watcher fails with StoreError('too-far-behind').
   */
  miss(events: StoreEvent[]): void {
    const last = this.lastRevision;
    for (const event of events) if (event.kv.modRevision > last) this.missed++;
    const limit = this.maxPausedEvents();
    if (this.missed <= limit) return;
    this.owner.fail(
      new StoreError(
        'too-far-behind',
        `the watcher of ${JSON.stringify(this.owner.prefix)} stopped taking events after revision ${this.lastRevision} and missed more than ${limit} since`,
      ),
    );
  }

  /** resumed forgets what the watcher missed: it is read again from the history. */
  resumed(): void {
    this.missed = 0;
  }
}
