/**
 * EventHistory: the watch cache's most recent events, in revision order, at most `capacity`
 * of them, so that a watch starting a little in the past (a client resuming from its last
 * resourceVersion, a paused watcher resuming) is served from memory instead of an etcd watch.
 *
 * It holds every event under the store's prefix with a revision above `floor`: the revision
 * the cache listed at, or the newest revision of an event it let go. Whole revisions are let
 * go (several keys written in one transaction share one), so a start at `floor` or later is
 * complete.
 */
import type { StoreEvent } from '../types.js';

export class EventHistory {
  private events: StoreEvent[] = [];
  /** Index of the oldest event still held in `events` (those before it were let go). */
  private start = 0;
  private low = 0;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`watch history of ${capacity} events: expected a positive integer`);
    }
  }

  /** Every event with a revision above `floor` (up to the newest pushed) is held. */
  get floor(): number {
    return this.low;
  }

  /** The number of events held. */
  get size(): number {
    return this.events.length - this.start;
  }

  /** reset forgets every event: the cache listed at `revision`, nothing after it is known yet. */
  reset(revision: number): void {
    this.events = [];
    this.start = 0;
    this.low = revision;
  }

  /** push adds the next event (revisions never go down); the oldest revisions go past capacity. */
  push(event: StoreEvent): void {
    this.events.push(event);
    if (this.size <= this.capacity) return;
    const dropped = this.events[this.start].kv.modRevision;
    while (this.start < this.events.length && this.events[this.start].kv.modRevision <= dropped) this.start++;
    this.low = Math.max(this.low, dropped);
    // Reclaim the front now and then, not on every push.
    if (this.start >= this.capacity) {
      this.events = this.events.slice(this.start);
      this.start = 0;
    }
  }

  /**
   * since lists the events under `prefix` with a revision above `revision`, oldest first, or
   * undefined when some of them were let go (`revision` is below `floor`).
   */
  since(revision: number, prefix: string): StoreEvent[] | undefined {
    if (revision < this.low) return undefined;
    // The first event above `revision`, by bisection over the held ones.
    let lo = this.start;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].kv.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    const out: StoreEvent[] = [];
    for (let i = lo; i < this.events.length; i++) {
      const event = this.events[i];
      if (event.kv.key.startsWith(prefix)) out.push(event);
    }
    return out;
  }
}
