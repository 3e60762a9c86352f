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
  /** The watch ended on the server side (timeout, store closed). */
  end(): void;
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
  const timers: NodeJS.Timeout[] = [];
  const stop = () => {
    if (stopped) return;
    stopped = true;
    watcher?.close();
    for (const t of timers) clearTimeout(t);
  };

  const store = objects.store;
  let after: number;
  const initial = p.sendInitialEvents ?? (p.resourceVersion === '' || p.resourceVersion === '0');
  if (p.sendInitialEvents === true && p.resourceVersionMatch !== 'NotOlderThan') {
    throw errors.badRequest('sendInitialEvents requires resourceVersionMatch=NotOlderThan');
  }
  if (initial) {
    const listed = await handlers.list(rt, namespace, {
      labelSelector: p.labelSelector,
      fieldSelector: p.fieldSelector,
      limit: 0,
      continueToken: '',
      resourceVersion: '',
      resourceVersionMatch: '',
    });
    after = Number(listed.metadata.resourceVersion);
    for (const item of listed.items) sink.event('ADDED', item);
    if (p.sendInitialEvents && p.allowWatchBookmarks) {
      sink.event('BOOKMARK', bookmark(rt, after, true));
    }
  } else {
    after = Number(p.resourceVersion);
    if (after > store.currentRevision()) {
      throw errors.timeout(`Too large resource version: ${after}, current: ${store.currentRevision()}`);
    }
  }

  const onEvents = (events: StoreEvent[]) => {
    if (stopped) return;
    for (const ev of events) {
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
  };

  try {
    watcher = objects.watch(rt, namespace, after, {
      onEvents,
      onError: (err) => {
        if (stopped) return;
        if (err instanceof StoreError && err.code === 'compacted') {
          sink.error(expiredStatus(after, store.compactedRevision()));
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
    throw err;
  }

  if (p.allowWatchBookmarks) {
    const interval = opts.bookmarkIntervalMs ?? 15_000;
    const tick = () => {
      if (stopped) return;
      sink.event('BOOKMARK', bookmark(rt, store.currentRevision(), false));
      const t = setTimeout(tick, interval);
      t.unref();
      timers.push(t);
    };
    const t = setTimeout(tick, interval);
    t.unref();
    timers.push(t);
  }
  const timeoutMs = p.timeoutSeconds > 0 ? p.timeoutSeconds * 1000 : (opts.defaultTimeoutMs ?? 30 * 60_000);
  const t = setTimeout(() => {
    stop();
    sink.end();
  }, timeoutMs);
  t.unref();
  timers.push(t);
  return { stop };
}

/**
 * Every watcher of a resource receives the same store event; they share one LazyObject so
 * the object is parsed and serialised at most once however many watchers there are.
 */
const shared = new WeakMap<KeyValue, { rt: ResourceType; lazy: LazyObject }>();

function sharedLazy(objects: ObjectStore, rt: ResourceType, kv: KeyValue, deleted: boolean): LazyObject {
  const hit = shared.get(kv);
  if (hit && hit.rt === rt) return hit.lazy;
  const lazy = LazyObject.fromStore(objects, rt, kv, deleted);
  shared.set(kv, { rt, lazy });
  return lazy;
}

function bookmark(rt: ResourceType, revision: number, initialEventsEnd: boolean): LazyObject {
  const metadata: KObject['metadata'] = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return LazyObject.of({ apiVersion: groupVersion(rt), kind: rt.kind, metadata });
}

function expiredStatus(requested: number, compacted: number): Status {
  return new ApiError(410, 'Expired', `too old resource version: ${requested} (${compacted + 1})`).status;
}
