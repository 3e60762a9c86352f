import { StoreError, type StoreEvent, type StoreWatchHandlers, type StoreWatcher } from '../types.js';
import { prefixRange, type KeyRange } from './key-range.js';
import { revisionsPerStep } from './options.js';
import type { HubSubscriber, WatchHub } from './watch-hub.js';

/** A WatchSource is what a LogWatcher needs from its store. */
export interface WatchSource {
  readonly hub: WatchHub;
  currentRevision(): number;
  compactedRevision(): number;
  /** The events under `range` with a revision in (after, upTo], in revision order. */
  readHistory(range: KeyRange, after: number, upTo: number): StoreEvent[];
  /** Called once when the watcher closes. */
  forget(watcher: LogWatcher): void;
}

/**
 * A LogWatcher replays a prefix's history from the log, then follows live commits. It
 * catches up in steps of at most `revisionsPerStep` revisions, yielding to the event loop
 * between steps; live commits during catch-up are not buffered but read from the log by a
 * later step. In the step that reaches the head it joins the hub, with no commit in
 * between, so no event is missed or repeated. Handlers are never called from inside
 * `watch()`; a handler that throws closes the watcher with onError.
 */
export class LogWatcher implements StoreWatcher, HubSubscriber {
  private state: 'catching-up' | 'live' | 'closed' = 'catching-up';
  private readonly range: KeyRange;

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
    this.lastRevision = Math.max(this.lastRevision, events[events.length - 1]?.kv.modRevision ?? 0);
    try {
      this.handlers.onEvents(events);
    } catch (err) {
      this.fail(new Error(`watch handler for ${JSON.stringify(this.prefix)} failed: ${(err as Error).message}`, { cause: err }));
    }
  }

  close(): void {
    if (this.state === 'closed') return;
    const wasLive = this.state === 'live';
    this.state = 'closed';
    if (wasLive) this.source.hub.remove(this);
    this.source.forget(this);
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
    const upTo = Math.min(head, this.lastRevision + revisionsPerStep);
    let events: StoreEvent[];
    try {
      events = this.source.readHistory(this.range, this.lastRevision, upTo);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (events.length > 0) this.deliver(events);
    if (this.state !== 'catching-up') return; // the handler failed
    this.lastRevision = upTo;
    if (upTo >= head) this.goLive();
    else setImmediate(() => this.catchUp());
  }
}
