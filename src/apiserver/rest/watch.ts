/**
 * Watch turns store events into Kubernetes watch events for one resource (and namespace),
 * applying label/field selectors with transitions (an object that stops matching is
 * DELETED for this watcher), initial events, bookmarks, timeouts and 410 Expired.
 */
import type { KObject } from '../../machinery/object.js';
import { ApiError, errors, type Status } from '../../machinery/errors.js';
import { StoreError, type KeyValue, type StoreEvent, type StoreWatcher } from '../../store/types.js';
import type { ResourceType } from '../registry/resource-type.js';
import { groupVersion } from '../registry/resource-type.js';
import type { ObjectStore } from '../storage/object-store.js';
import * as deps from './deps.js';
import { fieldsOf, supportedFields, type RestHandlers } from './handlers.js';
import { LazyObject } from './lazy-object.js';
import type { WatchParams } from './params.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Where a watch delivers its events (an HTTP response or a loopback callback). */
export interface WatchSink {
  event(type: WatchEventType, object: LazyObject): void;
  error(status: Status): void;
  /** The watch ended on the server side (timeout, store closed, too far behind). */
  end(): void;
  /**
   * False while the client is not taking what was already sent (backpressure): the watch
   * then stops reading the store for this sink until `onDrain` calls back. Absent: always
   * flowing (in-process sinks).
   */
  flowing?(): boolean;
  /** Calls `cb` once when the sink can take more, or when it closed. */
  onDrain?(cb: () => void): void;
}

export interface WatchOptions {
  /** How often bookmarks are sent when the client allows them. */
  bookmarkIntervalMs?: number;
  /** Server-side default lifetime of a watch when the client sets no timeout. */
  defaultTimeoutMs?: number;
}

export interface ActiveWatch {
  stop(): void;
}

export async function startWatch(
  handlers: RestHandlers,
  rt: ResourceType,
  namespace: string | undefined,
  p: WatchParams,
  sink: WatchSink,
  opts: WatchOptions = {},
): Promise<ActiveWatch> {
  const objects: ObjectStore = handlers.objects;
  const labelSel = deps.parseLabelSelector(p.labelSelector);
  const fieldSel = deps.parseFieldSelector(p.fieldSelector, supportedFields(rt));
  const filtered = !labelSel.empty || !fieldSel.empty;
  const matches = (o: KObject) => !filtered || (labelSel.matches(o.metadata.labels) && fieldSel.matches(fieldsOf(rt, o)));

  let stopped = false;
  let watcher: StoreWatcher | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const stop = () => {
    if (stopped) return;
    stopped = true;
    watcher?.close();
    for (const t of timers) clearTimeout(t);
    timers.clear();
  };
  const flowing = () => sink.flowing?.() ?? true;
  let awaitingDrain = false;
  /** Stops reading the store until the sink drains (see WatchSink.flowing). */
  const resumeOnDrain = () => {
    if (awaitingDrain || !sink.onDrain) return;
    awaitingDrain = true;
    sink.onDrain(() => {
      awaitingDrain = false;
      if (!stopped) watcher?.resume();
    });
  };
  const drained = () => new Promise<void>((resolve) => (sink.onDrain ? sink.onDrain(resolve) : resolve()));
  const store = objects.store;
  let after: number;
  const initial = p.sendInitialEvents ?? (p.resourceVersion === '' || p.resourceVersion === '0');
  if (p.sendInitialEvents === true && p.resourceVersionMatch !== 'NotOlderThan') {
    throw errors.badRequest('sendInitialEvents requires resourceVersionMatch=NotOlderThan');
  }
  // Another server on the same etcd may have handed out a revision this one has not seen yet.
  if (!initial && Number(p.resourceVersion) > store.currentRevision() && store.latestRevision) await store.latestRevision();
  if (!initial && Number(p.resourceVersion) > store.currentRevision()) {
    throw errors.timeout(`Too large resource version: ${p.resourceVersion}, current: ${store.currentRevision()}`);
  }
  // The lifetime starts now (before the initial events): a client that takes nothing of its initial events still ends.
  const timeoutMs = p.timeoutSeconds > 0 ? p.timeoutSeconds * 1000 : (opts.defaultTimeoutMs ?? 30 * 60_000);
  const lifetime = setTimeout(() => {
    stop();
    sink.end();
  }, timeoutMs);
  lifetime.unref();
  timers.add(lifetime);

  if (initial) {
    let listed;
    try {
      listed = await handlers.list(rt, namespace, {
        labelSelector: p.labelSelector,
        fieldSelector: p.fieldSelector,
        limit: 0,
        continueToken: '',
        resourceVersion: '',
        resourceVersionMatch: '',
      });
    } catch (err) {
      stop();
      throw err;
    }
    after = Number(listed.metadata.resourceVersion);
    for (const item of listed.items) {
      if (!flowing()) await drained();
      if (stopped) return { stop };
      sink.event('ADDED', item);
    }
    if (p.sendInitialEvents && p.allowWatchBookmarks) {
      sink.event('BOOKMARK', bookmark(rt, after, true));
    }
  } else {
    after = Number(p.resourceVersion);
  }

  const onEvents = (events: StoreEvent[]): number | undefined => {
    if (stopped) return undefined;
    for (let i = 0; i < events.length; i++) {
      if (!flowing()) {
        // The client has not taken what was sent: leave the rest in the store.
        resumeOnDrain();
        return i;
      }
      const ev = events[i];
      const cur = sharedLazy(objects, rt, ev.kv, ev.type === 'delete');
      if (ev.type === 'delete') {
        if (!filtered || matches(cur.obj())) sink.event('DELETED', cur);
        continue;
      }
      if (!filtered) {
        sink.event(ev.prev ? 'MODIFIED' : 'ADDED', cur);
        continue;
      }
      const now = matches(cur.obj());
      const before = ev.prev ? matches(objects.decode(rt, ev.prev)) : false;
      if (now && before) sink.event('MODIFIED', cur);
      else if (now) sink.event('ADDED', cur);
      else if (before) sink.event('DELETED', cur);
    }
    return undefined;
  };

  try {
    watcher = objects.watch(rt, namespace, after, {
      onEvents,
      onError: (err) => {
        if (stopped) return;
        if (err instanceof StoreError && err.code === 'compacted') {
          sink.error(expiredStatus(after, store.compactedRevision()));
        } else if (err instanceof StoreError && err.code === 'too-far-behind') {
          sink.error(tooFarBehindStatus());
        }
        stop();
        sink.end();
      },
    });
  } catch (err) {
    if (err instanceof StoreError && err.code === 'compacted') {
      sink.error(expiredStatus(after, store.compactedRevision()));
      stop();
      sink.end();
      return { stop };
    }
    stop();
    throw err;
  }
  // The watch may have been stopped while its initial events were sent.
  if (stopped) watcher.close();

  if (p.allowWatchBookmarks) {
    const interval = opts.bookmarkIntervalMs ?? 15_000;
    let t: NodeJS.Timeout;
    const tick = () => {
      timers.delete(t);
      if (stopped) return;
      // A bookmark is only a hint: none for a client that is not taking events.
      if (flowing()) sink.event('BOOKMARK', bookmark(rt, store.currentRevision(), false));
      t = setTimeout(tick, interval);
      t.unref();
      timers.add(t);
    };
    t = setTimeout(tick, interval);
    t.unref();
    timers.add(t);
  }
  return { stop };
}

/**
 * Every watcher of a resource receives the same store event, all of them in one turn of the
 * event loop (the store hands one event to each watcher in turn); they share one LazyObject so
 * the object is parsed and serialised at most once however many watchers there are. The
 * sharing ends with that turn: a store that keeps its events (etcd's watch cache keeps recent
 * ones for watches that start in the past) would otherwise keep each one's parsed object and
 * serialized text beside its value. A watcher given the event later (a replay) makes its own.
 */
let shared = new WeakMap<KeyValue, { rt: ResourceType; lazy: LazyObject }>();
let forgetting = false;

function sharedLazy(objects: ObjectStore, rt: ResourceType, kv: KeyValue, deleted: boolean): LazyObject {
  const hit = shared.get(kv);
  if (hit && hit.rt === rt) return hit.lazy;
  const lazy = LazyObject.fromStore(objects, rt, kv, deleted);
  shared.set(kv, { rt, lazy });
  if (!forgetting) {
    forgetting = true;
    queueMicrotask(() => {
      shared = new WeakMap();
      forgetting = false;
    });
  }
  return lazy;
}

function bookmark(rt: ResourceType, revision: number, initialEventsEnd: boolean): LazyObject {
  const metadata: KObject['metadata'] = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return LazyObject.of({ apiVersion: groupVersion(rt), kind: rt.kind, metadata });
}

function tooFarBehindStatus(): Status {
  return new ApiError(
    410,
    'Expired',
    'the watch fell too far behind: the client did not read its events fast enough; list again and watch from the new resourceVersion',
  ).status;
}

function expiredStatus(requested: number, compacted: number): Status {
  return new ApiError(410, 'Expired', `too old resource version: ${requested} (${compacted + 1})`).status;
}
