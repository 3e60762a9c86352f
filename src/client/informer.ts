/**
 * Informers keep a local, indexed cache of one resource in step with the API server
 * (list, then watch from the list's resourceVersion) and tell handlers what changed.
 */
import { isApiError } from '../machinery/errors.js';
import type { Status } from '../machinery/errors.js';
import type { KObject } from '../machinery/object.js';
import { formatApiVersion } from '../machinery/object.js';
import type { Logger } from './logger.js';
import { errorMessage, silentLogger } from './logger.js';
import { ObjectCache, objectKey } from './object-cache.js';
import type { IndexFunc } from './object-cache.js';
import type { Client, ResourceRef, WatchEvent, WatchHandle } from './types.js';

/** InformerOptions narrow what is watched and tune the loop; every field is optional. */
export interface InformerOptions {
  /** Watch one namespace; default all. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Every this many ms, onUpdate(obj, obj) is delivered for every cached object. 0 or absent: never. */
  resyncMs?: number;
  logger?: Logger;
  /** List page size. Default 500. */
  pageSize?: number;
  /** Backoff between failed lists or watches: doubles from initialMs (default 200) up to maxMs (default 30 000). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Server-side timeout of each watch; default a random 300–600 s so informers do not reconnect in step. */
  watchTimeoutSeconds?: number;
  /**
   * Nobody mutates the cached objects, so an in-process client may deliver the object every
   * watcher shares instead of a private copy (see WatchOptions.readOnly). Default false.
   */
  readOnlyObjects?: boolean;
  /**
   * Deep-freeze every cached object, so a handler that mutates one fails loudly instead of
   * corrupting what others see. Default: on when CONDUCTOR_FREEZE_CACHED_OBJECTS=1 (the test
   * runner sets it), off otherwise (freezing costs a walk of every object).
   */
  freezeObjects?: boolean;
  /**
   * Applied to every object before it is cached and handed to handlers, to keep only what
   * consumers read (see dropUnreadFields). It must not change its argument, which may be
   * shared with other watchers; it returns the object itself or a new one. Default: none.
   */
  transform?: <O extends KObject>(obj: O) => O;
}

/** InformerHandlers are told about changes after the cache reflects them. Objects must not be mutated. */
export interface InformerHandlers<T extends KObject = KObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

/** A watch that lived this long (or delivered an event) counts as healthy: its successor starts at once. */
const healthyWatchMs = 1000;

/**
 * An Informer lists a resource (paginated), then watches it from the list's
 * resourceVersion with bookmarks, keeping `store` current and calling handlers.
 *
 * - A 410 Expired (an ERROR event or the watch call's answer) relists and delivers the
 *   difference between the old cache and the new list as adds, updates and deletes.
 * - Any other end of a watch re-watches from the last seen resourceVersion, with backoff
 *   when the previous watch was not healthy.
 * - With `resyncMs`, every cached object is periodically re-delivered as onUpdate(obj, obj).
 * - `stop()` ends everything; no timer or watch outlives it.
 */
export class Informer<T extends KObject = KObject> {
  /** The cache. An index function that throws is logged and files the object under no value. */
  readonly store: ObjectCache<T>;
  private readonly handlers = new Set<InformerHandlers<T>>();
  private readonly log: Logger;
  private readonly pageSize: number;
  private readonly backoffInitialMs: number;
  private readonly backoffMaxMs: number;
  private started = false;
  private stopped = false;
  private synced = false;
  private syncWaiters: Array<(synced: boolean) => void> = [];
  private watchHandle?: WatchHandle;
  /** Incremented whenever a watch or list is abandoned, so its late callbacks are ignored. */
  private generation = 0;
  private retryTimer?: NodeJS.Timeout;
  private resyncTimer?: NodeJS.Timeout;
  private failures = 0;
  /** 410s in a row without an event between them; only the first relists at once. */
  private expiredStreak = 0;
  private resourceVersion = '';
  private readonly freeze: boolean;
  private readonly transform: ((obj: T) => T) | undefined;

  constructor(
    private readonly client: Client,
    readonly ref: ResourceRef,
    private readonly options: InformerOptions = {},
  ) {
    this.log = options.logger ?? silentLogger;
    this.store = new ObjectCache<T>((index, obj, err) =>
      this.log.error(
        { resource: this.ref.resource, index, namespace: obj.metadata.namespace, name: obj.metadata.name, err: errorMessage(err) },
        'informer index function threw',
      ),
    );
    this.pageSize = options.pageSize ?? 500;
    this.backoffInitialMs = options.backoff?.initialMs ?? 200;
    this.backoffMaxMs = options.backoff?.maxMs ?? 30_000;
    this.freeze = options.freezeObjects ?? process.env.CONDUCTOR_FREEZE_CACHED_OBJECTS === '1';
    this.transform = options.transform;
  }

  /**
   * Adds handlers; returns a function that removes them. Handlers added after objects are
   * cached first get onAdd for each of them.
   */
  addHandler(handlers: InformerHandlers<T>): () => void {
    this.handlers.add(handlers);
    if (handlers.onAdd) for (const obj of this.store.list()) this.call('onAdd', () => handlers.onAdd?.(obj));
    return () => {
      this.handlers.delete(handlers);
    };
  }

  onAdd(fn: (obj: T) => void): () => void {
    return this.addHandler({ onAdd: fn });
  }

  onUpdate(fn: (oldObj: T, newObj: T) => void): () => void {
    return this.addHandler({ onUpdate: fn });
  }

  onDelete(fn: (obj: T) => void): () => void {
    return this.addHandler({ onDelete: fn });
  }

  /** Adds an index to the cache (see ObjectCache.addIndexer). */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.store.addIndexer(name, fn);
  }

  /** Starts listing and watching. Calling it again does nothing. */
  start(): this {
    if (this.started || this.stopped) return this;
    this.started = true;
    void this.relist();
    return this;
  }

  /** True once the first list is in the cache. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true when the first list is in the cache, false if the informer stops (or `signal` aborts) first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.stopped || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = (synced: boolean): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(synced);
      };
      const onAbort = (): void => {
        this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter);
        resolve(false);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(waiter);
    });
  }

  /** The resourceVersion the cache reflects (of the last list, event or bookmark). */
  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Stops the watch and every timer; handlers are not called afterwards. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abandon();
    clearInterval(this.resyncTimer);
    this.resyncTimer = undefined;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w(false);
  }

  /** Stops the current watch and any pending retry; their late callbacks are ignored. */
  private abandon(): void {
    this.generation++;
    this.watchHandle?.stop();
    this.watchHandle = undefined;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private async relist(): Promise<void> {
    this.abandon();
    const generation = this.generation;
    let listed: { items: T[]; resourceVersion: string };
    try {
      listed = await this.listAll(generation);
    } catch (err) {
      if (generation !== this.generation || this.stopped) return;
      this.log.warn({ resource: this.ref.resource, err: errorMessage(err) }, 'informer list failed');
      this.retry(() => void this.relist(), false);
      return;
    }
    if (generation !== this.generation || this.stopped) return;
    this.applyList(listed.items);
    this.resourceVersion = listed.resourceVersion;
    if (!this.synced) this.markSynced();
    this.startWatch();
  }

  /** Lists every page; an expired continue token restarts the list unpaginated. */
  private async listAll(generation: number): Promise<{ items: T[]; resourceVersion: string }> {
    const items: T[] = [];
    let resourceVersion = '';
    let next: string | undefined;
    let limit: number | undefined = this.pageSize;
    for (;;) {
      let page;
      try {
        page = await this.client.list<T>(this.ref, {
          namespace: this.options.namespace,
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
          limit,
          continue: next,
        });
      } catch (err) {
        if (next !== undefined && isApiError(err) && err.code === 410) {
          items.length = 0;
          resourceVersion = '';
          next = undefined;
          limit = undefined;
          continue;
        }
        throw err;
      }
      if (generation !== this.generation || this.stopped) return { items: [], resourceVersion: '' };
      if (!resourceVersion) resourceVersion = page.metadata?.resourceVersion ?? '';
      for (const item of page.items ?? []) items.push(this.typed(item));
      next = page.metadata?.continue || undefined;
      if (!next) return { items, resourceVersion };
    }
  }

  /**
   * The object as cached: list items of built-in kinds come without apiVersion and kind (they
   * are filled in from the ref), then the transform, then the freeze.
   */
  private typed(obj: T): T {
    const typed =
      obj.apiVersion && obj.kind
        ? obj
        : { ...obj, apiVersion: obj.apiVersion || formatApiVersion(this.ref.group, this.ref.version), kind: obj.kind || this.ref.kind };
    const kept = this.transform ? this.transform(typed) : typed;
    return this.freeze ? deepFreeze(kept) : kept;
  }

  /** Replaces the cache with a fresh list and delivers the difference. */
  private applyList(items: T[]): void {
    const previous = new Map<string, T>();
    for (const key of this.store.keys()) previous.set(key, this.store.getByKey(key) as T);
    this.store.replace(items);
    for (const obj of items) {
      const key = objectKey(obj);
      const old = previous.get(key);
      previous.delete(key);
      if (!old) this.deliverAdd(obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.deliverUpdate(old, obj);
    }
    for (const old of previous.values()) this.deliverDelete(old);
  }

  private markSynced(): void {
    this.synced = true;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w(true);
    const resyncMs = this.options.resyncMs ?? 0;
    if (resyncMs > 0) this.resyncTimer = setInterval(() => this.resync(), resyncMs);
  }

  private resync(): void {
    if (this.stopped) return;
    for (const obj of this.store.list()) this.deliverUpdate(obj, obj);
  }

  private startWatch(): void {
    const generation = this.generation;
    const startedAt = Date.now();
    let delivered = false;
    const timeoutSeconds = this.options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    const healthy = (): boolean => delivered || Date.now() - startedAt >= healthyWatchMs;
    try {
      this.watchHandle = this.openWatch(generation, timeoutSeconds, healthy, () => {
        delivered = true;
      });
    } catch (err) {
      this.log.warn({ resource: this.ref.resource, err: errorMessage(err) }, 'informer could not start a watch');
      this.retry(() => this.startWatch(), false);
    }
  }

  private openWatch(generation: number, timeoutSeconds: number, healthy: () => boolean, sawEvent: () => void): WatchHandle {
    return this.client.watch<T>(
      this.ref,
      {
        namespace: this.options.namespace,
        labelSelector: this.options.labelSelector,
        fieldSelector: this.options.fieldSelector,
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        readOnly: this.options.readOnlyObjects ?? false,
      },
      {
        onEvent: (event) => {
          if (generation !== this.generation || this.stopped) return;
          if (event.type === 'ERROR') {
            const status = event.object as unknown as Partial<Status>;
            this.abandon();
            if (status.code === 410) {
              this.log.info({ resource: this.ref.resource, message: status.message }, 'informer watch expired; relisting');
              this.retry(() => void this.relist(), healthy() || ++this.expiredStreak === 1);
            } else {
              this.log.warn({ resource: this.ref.resource, code: status.code, message: status.message }, 'informer watch error');
              this.retry(() => this.startWatch(), healthy());
            }
            return;
          }
          sawEvent();
          this.failures = 0;
          this.expiredStreak = 0;
          this.handleEvent(event);
        },
        onClose: (err) => {
          if (generation !== this.generation || this.stopped) return;
          this.abandon();
          if (isApiError(err) && err.code === 410) {
            this.log.info({ resource: this.ref.resource, err: err.message }, 'informer watch expired; relisting');
            this.retry(() => void this.relist(), healthy() || ++this.expiredStreak === 1);
            return;
          }
          if (err) this.log.warn({ resource: this.ref.resource, err: errorMessage(err) }, 'informer watch failed');
          this.retry(() => this.startWatch(), !err && healthy());
        },
      },
    );
  }

  private handleEvent(event: WatchEvent<T>): void {
    const rv = event.object.metadata?.resourceVersion;
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED': {
        const obj = this.typed(event.object);
        const old = this.store.set(obj);
        if (rv) this.resourceVersion = rv;
        if (old) this.deliverUpdate(old, obj);
        else this.deliverAdd(obj);
        return;
      }
      case 'DELETED': {
        const obj = this.typed(event.object);
        const old = this.store.delete(objectKey(obj));
        if (rv) this.resourceVersion = rv;
        if (old) this.deliverDelete(obj);
        return;
      }
      case 'BOOKMARK':
        if (rv) this.resourceVersion = rv;
        return;
      case 'ERROR':
        return;
      default: {
        const never: never = event.type;
        this.log.warn({ resource: this.ref.resource, type: String(never) }, 'informer ignored a watch event of unknown type');
      }
    }
  }

  /** Runs `next` at once after a healthy run, else after the next backoff step. */
  private retry(next: () => void, healthy: boolean): void {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    if (healthy) this.failures = 0;
    else this.failures++;
    const delay = this.failures === 0 ? 0 : Math.min(this.backoffMaxMs, this.backoffInitialMs * 2 ** (this.failures - 1));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) next();
    }, delay);
  }

  private deliverAdd(obj: T): void {
    for (const h of this.handlers) if (h.onAdd) this.call('onAdd', () => h.onAdd?.(obj));
  }

  private deliverUpdate(old: T, obj: T): void {
    for (const h of this.handlers) if (h.onUpdate) this.call('onUpdate', () => h.onUpdate?.(old, obj));
  }

  private deliverDelete(obj: T): void {
    for (const h of this.handlers) if (h.onDelete) this.call('onDelete', () => h.onDelete?.(obj));
  }

  private call(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ resource: this.ref.resource, handler: what, err: errorMessage(err) }, 'informer handler threw');
    }
  }
}

/** Freezes a JSON value and everything in it; returns it. */
function deepFreeze<V>(value: V): V {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value as object)) deepFreeze(v);
  return value;
}
