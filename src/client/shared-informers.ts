/**
 * SharedInformers hands every controller of one process the same informer for the same
 * resource and scope, so a resource is listed, watched, decoded and cached once however many
 * controllers follow it (client-go calls this a shared informer factory).
 */
import type { KObject } from '../machinery/object.js';
import { Informer, type InformerHandlers, type InformerOptions } from './informer.js';
import type { IndexFunc, ObjectCache } from './object-cache.js';
import type { Logger } from './logger.js';
import type { Client, ResourceRef } from './types.js';

/** The scope of a shared informer: what it watches. Consumers with one scope share one informer. */
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
   * cached ones, received without a private copy: they must never be mutated.
   */
  informer<T extends KObject = KObject>(ref: ResourceRef, scope: SharedInformerScope = {}): CacheInformer<T> {
    const key = scopeKey(ref, scope);
    let entry = this.shared.get(key);
    if (!entry) {
      entry = { informer: new Informer<KObject>(this.client, ref, { ...scope, logger: this.options.logger, readOnlyObjects: true }), users: 0 };
      this.shared.set(key, entry);
    }
    entry.users++;
    return new SharedInformerView<T>(entry.informer as unknown as Informer<T>, () => {
      const e = this.shared.get(key);
      if (!e || --e.users > 0) return;
      this.shared.delete(key);
      e.informer.stop();
    });
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

class SharedInformerView<T extends KObject> implements CacheInformer<T> {
  private readonly removers: Array<() => void> = [];
  private stopped = false;

  constructor(
    private readonly informer: Informer<T>,
    private readonly release: () => void,
  ) {}

  get store(): ObjectCache<T> {
    return this.informer.store;
  }

  addHandler(handlers: InformerHandlers<T>): () => void {
    const remove = this.informer.addHandler(handlers);
    this.removers.push(remove);
    return remove;
  }

  /** Adds an index to the shared cache; the name must be unique among all the informer's users. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.informer.addIndexer(name, fn);
  }

  start(): this {
    if (!this.stopped) this.informer.start();
    return this;
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
    for (const remove of this.removers) remove();
    this.removers.length = 0;
    this.release();
  }
}

function scopeKey(ref: ResourceRef, scope: SharedInformerScope): string {
  return JSON.stringify([ref.group, ref.version, ref.resource, scope.namespace ?? '', scope.labelSelector ?? '', scope.fieldSelector ?? '', scope.resyncMs ?? 0]);
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
  return informers?.informer<T>(ref, scope) ?? new Informer<T>(client, ref, { ...scope, logger });
}
