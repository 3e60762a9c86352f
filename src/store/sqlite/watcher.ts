import { StoreError, type StoreEvent, type StoreWatchHandlers, type StoreWatcher } from '../types.js';
import { prefixRange, type KeyRange } from './key-range.js';
import { eventsPerStep, heldBytesPerWatcher, revisionsPerStep } from './options.js';
import type { HubSubscriber, WatchHub } from './watch-hub.js';

/** A WatchSource is what a LogWatcher needs from its store. */
export interface WatchSource {
  readonly hub: WatchHub;
  currentRevision(): number;
  compactedRevision(): number;
  /** The first `limit` events under `range` with a revision in (after, upTo], in revision order. */
  readHistory(range: KeyRange, after: number, upTo: number, limit: number): StoreEvent[];
  /** Called once when the watcher closes. */
  forget(watcher: LogWatcher): void;
  /** A paused watcher that misses more events than this ends with StoreError('too-far-behind'). */
  maxPausedEvents(): number;
}

/**
 * A LogWatcher replays a prefix's history from the log, then follows live commits. It
 * catches up in steps of at most `revisionsPerStep` revisions and `eventsPerStep` events, yielding to the event loop
 * between steps; live commits during catch-up are not buffered but read from the log by a
 * later step. In the step that reaches the head it joins the hub, with no commit in
 * between, so no event is missed or repeated. Handlers are never called from inside
 * `watch()`; a handler that throws closes the watcher with onError.
 *
 * A handler that takes only some of the events it is given (backpressure, see
 * StoreWatchHandlers.onEvents) pauses the watcher after them. A paused watcher keeps the
 * events it was offered and did not take, up to `heldBytesPerWatcher` of values (a slow
 * client takes a few events per drain: without them every resume would read the same
 * stretch of the log again); it stays filed in the hub only to count what it misses (ending
 * with 'too-far-behind' past `maxPausedEvents`), and `resume()` offers the held events, then
 * catches up from the log.
 */
export class LogWatcher implements StoreWatcher, HubSubscriber {
  private state: 'catching-up' | 'live' | 'paused' | 'closed' = 'catching-up';
  private readonly range: KeyRange;
  /** Events under the prefix committed while paused. */
  private missed = 0;
  /** Events offered and not taken (paused), in revision order: every event of the prefix in (lastRevision, heldThrough]. */
  private held: StoreEvent[] = [];
  private heldThrough = 0;

  constructor(
    private readonly source: WatchSource,
    readonly prefix: string,
    /** The last revision delivered (or skipped as not ours). */
    private lastRevision: number,
    private readonly handlers: StoreWatchHandlers,
  ) {
    this.range = prefixRange(prefix);
  }

  /** start begins delivery; call once. */
  start(): void {
    if (this.lastRevision >= this.source.currentRevision()) this.goLive();
    else setImmediate(() => this.catchUp());
  }

  get live(): boolean {
    return this.state === 'live';
  }

  deliver(events: StoreEvent[]): void {
    if (this.state === 'closed') return;
    // A watch may start after a revision that was assigned but not yet durable: the hub then
    // still brings the events up to it, which this watcher must not see.
    if ((events[0]?.kv.modRevision ?? Infinity) <= this.lastRevision) {
      const last = this.lastRevision;
      events = events.filter((e) => e.kv.modRevision > last);
      if (events.length === 0) return;
    }
    if (this.state === 'paused') {
      this.missed += events.length;
      if (this.missed > this.source.maxPausedEvents()) {
        this.fail(
          new StoreError(
            'too-far-behind',
            `the watcher of ${JSON.stringify(this.prefix)} stopped taking events after revision ${this.lastRevision} and missed more than ${this.source.maxPausedEvents()} since`,
          ),
        );
      }
      return;
    }
    this.offer(events, events[events.length - 1]?.kv.modRevision ?? 0);
  }

  /**
   * offer hands the handler `events`, every event of the prefix in (lastRevision, through].
   * It returns false when the watcher did not stay as it was: closed, failed, or paused with
   * the events not taken held.
   */
  private offer(events: StoreEvent[], through: number): boolean {
    let taken: number | void;
    try {
      taken = this.handlers.onEvents(events);
    } catch (err) {
      this.fail(new Error(`watch handler for ${JSON.stringify(this.prefix)} failed: ${(err as Error).message}`, { cause: err }));
      return false;
    }
    // The handler may have closed the watcher.
    if (this.closed) return false;
    if (typeof taken === 'number' && taken < events.length) {
      if (taken > 0) this.lastRevision = Math.max(this.lastRevision, events[taken - 1]?.kv.modRevision ?? 0);
      this.hold(events, taken, through);
      this.pause();
      return false;
    }
    this.lastRevision = Math.max(this.lastRevision, through);
    return true;
  }

  /** hold keeps events[from…] (up to heldBytesPerWatcher of values, at least one) for the resume. */
  private hold(events: StoreEvent[], from: number, through: number): void {
    let bytes = 0;
    let end = from;
    while (end < events.length) {
      const e = events[end];
      bytes += e.kv.value.length + (e.prev?.value.length ?? 0);
      if (bytes > heldBytesPerWatcher && end > from) break;
      end++;
    }
    this.held = events.slice(from, end);
    this.heldThrough = end === events.length ? through : (events[end - 1]?.kv.modRevision ?? this.lastRevision);
  }

  private get closed(): boolean {
    return this.state === 'closed';
  }

  /** True while the handler has stopped taking events (see resume). */
  get paused(): boolean {
    return this.state === 'paused';
  }

  resume(): void {
    if (this.state !== 'paused') return;
    this.source.hub.remove(this);
    this.state = 'catching-up';
    this.missed = 0;
    setImmediate(() => this.catchUp());
  }

  close(): void {
    if (this.state === 'closed') return;
    const filed = this.state === 'live' || this.state === 'paused';
    this.state = 'closed';
    this.held = [];
    if (filed) this.source.hub.remove(this);
    this.source.forget(this);
  }

  private pause(): void {
    this.state = 'paused';
    this.missed = 0;
    // Filed (again) only to count what it misses; nothing is kept for it.
    this.source.hub.add(this);
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

  private goLive(): void {
    this.state = 'live';
    this.source.hub.add(this);
  }

  private catchUp(): void {
    if (this.state !== 'catching-up') return;
    if (this.held.length > 0) {
      const held = this.held;
      this.held = [];
      if (!this.offer(held, this.heldThrough)) return;
    }
    const compacted = this.source.compactedRevision();
    if (compacted > this.lastRevision) {
      this.fail(
        new StoreError(
          'compacted',
          `cannot replay ${JSON.stringify(this.prefix)} after revision ${this.lastRevision}: history up to ${compacted} was compacted`,
        ),
      );
      return;
    }
    const head = this.source.currentRevision();
    let upTo = Math.min(head, this.lastRevision + revisionsPerStep);
    let events: StoreEvent[];
    try {
      events = this.source.readHistory(this.range, this.lastRevision, upTo, eventsPerStep);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    // A full step may end before upTo: the next step reads on from its last event.
    if (events.length >= eventsPerStep) upTo = events[events.length - 1]?.kv.modRevision ?? upTo;
    if (events.length > 0 && !this.offer(events, upTo)) return; // the handler failed or paused the watcher
    this.lastRevision = upTo;
    if (upTo >= head) this.goLive();
    else setImmediate(() => this.catchUp());
  }
}
