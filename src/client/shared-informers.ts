/**
 * SharedInformers hands every controller of one process the same informer for the same
 * resource and scope, so a resource is listed, watched, decoded and cached once however many
 * controllers follow it (client-go calls this a shared informer factory).
 */
import type { KObject } from '../machinery/object.js';
import { Informer, type InformerHandlers, type InformerOptions } from './informer.js';
import type { IndexFunc, ObjectCache } from './object-cache.js';
import { errorMessage, silentLogger, type Logger } from './logger.js';
import type { Client, ResourceRef } from './types.js';
import { dropUnreadFields } from './unread-fields.js';

/**
 * The scope of a shared informer: what it watches (consumers with one namespace and selectors
 * share one informer), and how often this consumer's handlers want every cached object
 * delivered again (`resyncMs`, per view: it does not split the cache).
 */
export type SharedInformerScope = Pick<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector' | 'resyncMs'>;

/**
 * A CacheInformer is what a controller needs of an informer: its cache, handlers, indexes,
 * start, sync and stop. Both a private Informer and a view of a shared one are CacheInformers.
 */
export interface CacheInformer<T extends KObject = KObject> {
  readonly store: ObjectCache<T>;
  addHandler(handlers: InformerHandlers<T>): () => void;
  addIndexer(name: string, fn: IndexFunc<T>): void;
  start(): void;
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  stop(): void;
}

export interface SharedInformersOptions {
  logger?: Logger;
}

interface Shared {
  informer: Informer<KObject>;
  users: number;
  /** Whether it holds every object of its resource in its namespace (no label or field selector). */
  whole: boolean;
  namespace: string | undefined;
}

export class SharedInformers {
  private readonly shared = new Map<string, Shared>();

  constructor(
    private readonly client: Client,
    private readonly options: SharedInformersOptions = {},
  ) {}

  /**
   * A view of the shared informer for `ref` in `scope`. Its `stop()` removes the view's
   * handlers; the informer itself stops when its last view stops. Objects are the shared
   * cached ones, received without a private copy and without the fields controllers never
   * read (dropUnreadFields): they must never be mutated.
   */
  informer<T extends KObject = KObject>(ref: ResourceRef, scope: SharedInformerScope = {}): CacheInformer<T> {
    const { resyncMs, ...watched } = scope;
    const key = scopeKey(ref, watched);
    let entry = this.shared.get(key);
    if (!entry) {
      const informer = new Informer<KObject>(this.client, ref, { ...watched, logger: this.options.logger, readOnlyObjects: true, transform: dropUnreadFields });
      entry = { informer, users: 0, whole: !watched.labelSelector && !watched.fieldSelector, namespace: watched.namespace };
      this.shared.set(key, entry);
    }
    entry.users++;
    return new SharedInformerView<T>(entry.informer as unknown as Informer<T>, resyncMs ?? 0, this.options.logger ?? silentLogger, () => {
      const e = this.shared.get(key);
      if (!e || --e.users > 0) return;
      this.shared.delete(key);
      e.informer.stop();
    });
  }

  /**
   * cached is the object `name` (in `namespace`) of the resource `ref` (any version) as a
   * synced shared informer holding all of that resource there has it — or undefined when no
   * such informer runs or it does not hold the object (it may lag behind the API by the
   * moments a watch event takes: a caller that must know for sure asks the API). The object
   * is the shared cached one: never mutate it.
   */
  cached(ref: ResourceRef, namespace: string | undefined, name: string): KObject | undefined {
    for (const e of this.shared.values()) {
      const r = e.informer.ref;
      if (!e.whole || r.group !== ref.group || r.resource !== ref.resource) continue;
      if (e.namespace !== undefined && e.namespace !== (namespace ?? '')) continue;
      if (!e.informer.hasSynced()) continue;
      const obj = e.informer.store.get(namespace, name);
      if (obj) return obj;
    }
    return undefined;
  }

  /** How many distinct informers are shared (for tests and diagnostics). */
  get size(): number {
    return this.shared.size;
  }

  /** Stops every shared informer. */
  stop(): void {
    for (const e of this.shared.values()) e.informer.stop();
    this.shared.clear();
  }
}

/**
 * A SharedInformerView is one consumer's handle on a shared informer: its own handlers, and
 * its own resync (every `resyncMs` after the sync, onUpdate(obj, obj) for every cached
 * object, to this view's handlers only).
 */
class SharedInformerView<T extends KObject> implements CacheInformer<T> {
  private readonly removers: Array<() => void> = [];
  private readonly handlers = new Set<InformerHandlers<T>>();
  private resyncTimer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;

  constructor(
    private readonly informer: Informer<T>,
    private readonly resyncMs: number,
    private readonly log: Logger,
    private readonly release: () => void,
  ) {}

  get store(): ObjectCache<T> {
    return this.informer.store;
  }

  addHandler(handlers: InformerHandlers<T>): () => void {
    const removeShared = this.informer.addHandler(handlers);
    this.handlers.add(handlers);
    const remove = (): void => {
      removeShared();
      this.handlers.delete(handlers);
    };
    this.removers.push(remove);
    return remove;
  }

  /** Adds an index to the shared cache; the name must be unique among all the informer's users. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.informer.addIndexer(name, fn);
  }

  start(): this {
    if (this.stopped || this.started) return this;
    this.started = true;
    this.informer.start();
    if (this.resyncMs > 0) void this.startResync();
    return this;
  }

  private async startResync(): Promise<void> {
    if (!(await this.informer.waitForSync()) || this.stopped) return;
    this.resyncTimer = setInterval(() => this.resync(), this.resyncMs);
  }

  private resync(): void {
    for (const obj of this.informer.store.list()) {
      for (const h of this.handlers) {
        if (this.stopped) return;
        try {
          h.onUpdate?.(obj, obj);
        } catch (err) {
          this.log.error({ resource: this.informer.ref.resource, handler: 'onUpdate', err: errorMessage(err) }, 'informer handler threw on resync');
        }
      }
    }
  }

  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.stopped ? Promise.resolve(false) : this.informer.waitForSync(signal);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.resyncTimer);
    for (const remove of this.removers) remove();
    this.removers.length = 0;
    this.release();
  }
}

function scopeKey(ref: ResourceRef, scope: Omit<SharedInformerScope, 'resyncMs'>): string {
  return JSON.stringify([ref.group, ref.version, ref.resource, scope.namespace ?? '', scope.labelSelector ?? '', scope.fieldSelector ?? '']);
}

/**
 * cacheInformer is the informer a controller should use: a view of the shared one when the
 * process shares informers, else a private Informer of its own.
 */
export function cacheInformer<T extends KObject = KObject>(
  client: Client,
  informers: SharedInformers | undefined,
  ref: ResourceRef,
  scope: SharedInformerScope = {},
  logger?: Logger,
): CacheInformer<T> {
  return informers?.informer<T>(ref, scope) ?? new Informer<T>(client, ref, { ...scope, logger, transform: dropUnreadFields });
}
