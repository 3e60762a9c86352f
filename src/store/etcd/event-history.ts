/**
 * EventHistory: the watch cache's most recent events, in revision order, so that a watch
 * starting a little in the past (a client resuming from its last resourceVersion, a paused
 * watcher resuming) is served from memory instead of an etcd watch.
 *
 * It is bounded twice: at most `maxEvents` events, and at most `maxBytes` of what they hold
 * (`eventBytes`: keys, values and previous values, counted even when a value is also the
 * cache's current one), so a burst of large objects cannot grow it past its budget. It holds
 * every event under the store's prefix with a revision above `floor`: the revision the cache
 * listed at, or the newest revision of an event it let go. Whole revisions are let go
 * (several keys written in one transaction share one), so a start at `floor` or later is
 * complete.
 */
import type { StoreEvent } from '../types.js';
import { valueSize } from './cached-key-value.js';

export interface HistoryLimits {
  /** At most this many events. */
  maxEvents: number;
  /** At most this many bytes of keys and values (`eventBytes`). */
  maxBytes: number;
}

/** What an event object costs beside its strings (the event, its KeyValues), roughly. */
const eventOverheadBytes = 96;

/** eventBytes estimates what holding `event` costs: its key, value and previous value, and its objects. */
export function eventBytes(event: StoreEvent): number {
  return eventOverheadBytes + event.kv.key.length + valueSize(event.kv) + (event.prev ? valueSize(event.prev) : 0);
}

export class EventHistory {
  private events: StoreEvent[] = [];
  /** Index of the oldest event still held in `events` (those before it were let go). */
  private start = 0;
  private low = 0;
  private held = 0;

  constructor(private readonly limits: HistoryLimits) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`watch history ${name} of ${value}: expected a positive integer`);
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

  /** The bytes the held events count for (`eventBytes`). */
  get bytes(): number {
    return this.held;
  }

  /** reset forgets every event: the cache listed at `revision`, nothing after it is known yet. */
  reset(revision: number): void {
    this.events = [];
    this.start = 0;
    this.low = revision;
    this.held = 0;
  }

  /**
   * push adds the next event (revisions never go down); the oldest revisions go while the
   * history is over either limit. An event of a revision already let go is not kept.
   */
  push(event: StoreEvent): void {
    if (event.kv.modRevision <= this.low) return;
    this.events.push(event);
    this.held += eventBytes(event);
    while (this.size > 0 && (this.size > this.limits.maxEvents || this.held > this.limits.maxBytes)) this.dropOldestRevision();
    // Reclaim the front now and then, not on every push.
    if (this.start > 1024 && this.start * 2 >= this.events.length) {
      this.events = this.events.slice(this.start);
      this.start = 0;
    }
  }

  private dropOldestRevision(): void {
    const dropped = this.events[this.start].kv.modRevision;
    while (this.start < this.events.length && this.events[this.start].kv.modRevision <= dropped) {
      this.held -= eventBytes(this.events[this.start]);
      this.start++;
    }
    this.low = Math.max(this.low, dropped);
    if (this.start === this.events.length) this.reset(this.low);
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
