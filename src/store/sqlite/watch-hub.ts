import type { StoreEvent } from '../types.js';
import { directoryOf } from './key-range.js';

/** A HubSubscriber is one live watch as the hub sees it. */
export interface HubSubscriber {
  /** Keys starting with this prefix are delivered. */
  readonly prefix: string;
  /** Receives the matching events of one commit, in revision order. */
  deliver(events: StoreEvent[]): void;
}

/**
 * A WatchHub fans committed events out to live subscribers. Subscribers are indexed by the
 * directory part of their prefix (up to its last '/'), so an event visits only the
 * subscribers filed under one of its key's directories rather than every subscriber.
 */
export class WatchHub {
  private readonly byDirectory = new Map<string, Set<HubSubscriber>>();
  private count = 0;

  /** size is the number of subscribers. */
  get size(): number {
    return this.count;
  }

  add(subscriber: HubSubscriber): void {
    const dir = directoryOf(subscriber.prefix);
    let set = this.byDirectory.get(dir);
    if (!set) {
      set = new Set();
      this.byDirectory.set(dir, set);
    }
    if (!set.has(subscriber)) {
      set.add(subscriber);
      this.count++;
    }
  }

  remove(subscriber: HubSubscriber): void {
    const dir = directoryOf(subscriber.prefix);
    const set = this.byDirectory.get(dir);
    if (set?.delete(subscriber)) {
      this.count--;
      if (set.size === 0) this.byDirectory.delete(dir);
    }
  }

  /** subscribers lists every subscriber (a copy). */
  subscribers(): HubSubscriber[] {
    const all: HubSubscriber[] = [];
    for (const set of this.byDirectory.values()) all.push(...set);
    return all;
  }

  /**
   * publish delivers `events` (in revision order): each subscriber gets one call holding
   * the events under its prefix, if any.
   */
  publish(events: readonly StoreEvent[]): void {
    if (this.count === 0 || events.length === 0) return;
    const matched = new Map<HubSubscriber, StoreEvent[]>();
    for (const event of events) {
      const key = event.kv.key;
      let end = 0;
      // Visit "", then every prefix of the key ending at a '/'.
      for (;;) {
        const set = this.byDirectory.get(key.slice(0, end));
        if (set) {
          for (const subscriber of set) {
            if (!key.startsWith(subscriber.prefix)) continue;
            const list = matched.get(subscriber);
            if (list) list.push(event);
            else matched.set(subscriber, [event]);
          }
        }
        const slash = key.indexOf('/', end);
        if (slash === -1) break;
        end = slash + 1;
      }
    }
    for (const [subscriber, list] of matched) subscriber.deliver(list);
  }
}
