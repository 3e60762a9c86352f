import type * as grpc from '@grpc/grpc-js';
import { StoreError, type KeyValue, type StoreEvent, type StoreWatchHandlers, type StoreWatcher } from '../types.js';
import { isUnreachable, reason, type EtcdClient, type Endpoint } from './client.js';
import type { KeyCodec } from './keys.js';
import { Delivery } from './delivery.js';
import { EventType, type RpcEvent, type WatchRequest, type WatchResponse } from './rpc.js';
import { watchReconnectAttempts } from './options.js';

/** A WatchSource is what an EtcdWatcher needs from its store. */
export interface WatchSource {
  readonly client: EtcdClient;
  readonly keys: KeyCodec;
  /** Records a revision etcd reported (response headers, events). */
  noteRevision(revision: number): void;
  /** Records a compacted revision etcd reported. */
  noteCompacted(revision: number): void;
  maxPausedEvents(): number;
  /** Called once when the watcher closes. */
  forget(watcher: EtcdWatcher): void;
}

type Stream = grpc.ClientDuplexStream<WatchRequest, WatchResponse>;

/**
 * An EtcdWatcher is one Store watch on one etcd Watch stream. etcd replays the history after
 * the start revision and then sends live events, in revision order, on the same stream.
 *
 * When the stream breaks (the member went away), a new one opens on the next endpoint from
 * the last revision delivered, so nothing is missed or repeated. A handler that takes only
 * part of a delivery pauses the watcher: the stream stays open only to count what the
 * handler misses (past `maxPausedEvents`: 'too-far-behind'); `resume()` opens a new stream
 * from the last revision taken, and etcd replays the rest from its history.
 */
export class EtcdWatcher implements StoreWatcher {
  private state: 'live' | 'paused' | 'closed' = 'live';
  private stream: Stream | undefined;
  private endpoint: Endpoint | undefined;
  /** The last revision delivered, the handler's pauses and what it missed. */
  private readonly delivery: Delivery;
  /** Streams that broke in a row without etcd confirming a new watch. */
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: WatchSource,
    readonly prefix: string,
    /** The last revision delivered (or known to hold nothing for this prefix). */
    lastRevision: number,
    private readonly handlers: StoreWatchHandlers,
    /** Ask etcd for each event's previous value (the Store's watches need it; the watch cache does not). */
    private readonly prevKv = true,
  ) {
    this.delivery = new Delivery(this, handlers, lastRevision, () => source.maxPausedEvents());
  }

  /** start opens the stream; call once. */
  start(): void {
    this.open();
  }

  get paused(): boolean {
    return this.state === 'paused';
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  /** The last revision delivered (or known to hold nothing for this prefix). */
  get lastRevision(): number {
    return this.delivery.lastRevision;
  }

  resume(): void {
    if (this.state !== 'paused') return;
    this.state = 'live';
    this.delivery.resumed();
    this.open();
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.drop();
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

  /** open replaces the stream by a new one starting after `lastRevision`. */
  private open(failed?: Endpoint): void {
    this.drop();
    let opened: { endpoint: Endpoint; stream: Stream };
    try {
      opened = this.source.client.openWatch(failed);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    const { stream, endpoint } = opened;
    this.stream = stream;
    this.endpoint = endpoint;
    stream.on('data', (res: WatchResponse) => this.receive(stream, res));
    stream.on('error', (err: grpc.ServiceError) => this.broken(stream, err));
    stream.on('end', () => this.broken(stream, undefined));
    const range = this.source.keys.range(this.prefix);
    // Starting at lastRevision itself (its events are dropped on arrival) makes etcd refuse
    // exactly when lastRevision is below its compacted revision, as the contract says; a
    // start at lastRevision + 1 would be accepted when lastRevision + 1 is the compacted one.
    const start = Math.max(1, this.lastRevision);
    stream.write({ create_request: { key: range.key, range_end: range.rangeEnd, start_revision: start, prev_kv: this.prevKv } });
  }

  /** drop cancels the current stream (its late events and errors are ignored). */
  private drop(): void {
    const stream = this.stream;
    this.stream = undefined;
    if (stream) stream.cancel();
  }

  private receive(stream: Stream, res: WatchResponse): void {
    if (stream !== this.stream || this.state === 'closed') return;
    if (res.header) this.source.noteRevision(res.header.revision);
    if (res.compact_revision > 0) {
      this.source.noteCompacted(res.compact_revision);
      this.fail(
        new StoreError(
          'compacted',
          `cannot watch ${JSON.stringify(this.prefix)} after revision ${this.lastRevision}: etcd compacted its history up to ${res.compact_revision}`,
        ),
      );
      return;
    }
    if (res.canceled) {
      this.fail(new StoreError('unavailable', `etcd cancelled the watch of ${JSON.stringify(this.prefix)}: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    if (res.created) this.failures = 0;
    if (res.events.length === 0) return;
    const events = this.delivery.after(res.events.map((e) => this.toStoreEvent(e)));
    if (events.length === 0) return;
    this.source.noteRevision(events[events.length - 1].kv.modRevision);
    if (this.state === 'paused') this.delivery.miss(events);
    else if (this.delivery.hand(events) === 'paused') this.state = 'paused';
  }

  /** broken handles the end of a stream: a new one on the next endpoint, or the end of the watch. */
  private broken(stream: Stream, err: grpc.ServiceError | undefined): void {
    if (stream !== this.stream || this.state === 'closed') return;
    this.stream = undefined;
    if (err && !isUnreachable(err)) {
      this.fail(new StoreError('unavailable', `the watch of ${JSON.stringify(this.prefix)} failed: ${err.details || err.message}`));
      return;
    }
    this.failures++;
    if (this.failures > watchReconnectAttempts) {
      this.fail(
        new StoreError(
          'unavailable',
          `the watch of ${JSON.stringify(this.prefix)} lost etcd at ${this.source.client.urls} and could not reopen it (${err ? reason(err) : 'the stream ended'})`,
        ),
      );
      return;
    }
    const failed = this.endpoint;
    // A short pause, growing with each failure, so a member that is down is not hammered.
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = undefined;
        if (this.state !== 'closed') this.open(failed);
      },
      50 * 2 ** this.failures,
    );
    this.retryTimer.unref();
  }

  private toStoreEvent(e: RpcEvent): StoreEvent {
    const keys = this.source.keys;
    const raw = e.kv!;
    const prev: KeyValue | undefined = e.prev_kv && e.prev_kv.key.length > 0 ? keys.toKeyValue(e.prev_kv) : undefined;
    if (e.type === EventType.delete) {
      const kv: KeyValue = {
        key: keys.decode(raw.key),
        value: prev?.value ?? '',
        createRevision: prev?.createRevision ?? 0,
        modRevision: raw.mod_revision,
      };
      return prev ? { type: 'delete', kv, prev } : { type: 'delete', kv };
    }
    const kv = keys.toKeyValue(raw);
    return prev ? { type: 'put', kv, prev } : { type: 'put', kv };
  }
}
