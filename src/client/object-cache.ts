/**
 * The in-memory object cache behind an informer: objects by `namespace/name` key, plus
 * secondary indexes that callers define (for example "claims by resourceRef").
 */
import type { KObject } from '../machinery/object.js';

/** An IndexFunc returns the index values an object is filed under (none, one or several). */
export type IndexFunc<T extends KObject = KObject> = (obj: T) => string[];

/** The cache key of an object: `namespace/name`, or `name` for a cluster-scoped object. */
export function objectKey(obj: { metadata: { namespace?: string; name?: string } }): string {
  return keyOf(obj.metadata.namespace, obj.metadata.name ?? '');
}

/** Builds a cache (and work-queue) key from a namespace (empty for cluster-scoped) and a name. */
export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key made by objectKey back into namespace ('' for cluster-scoped) and name. */
export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The built-in index of every ObjectCache: objects by namespace. */
export const namespaceIndex = 'namespace';

interface Index<T extends KObject> {
  fn: IndexFunc<T>;
  byValue: Map<string, Set<string>>;
  /**
   * The values each key is filed under, to unfile it without calling fn on the old object: a
   * string when there is one (most objects, most indexes: no array per object), else an array.
   */
  valuesOf: Map<string, string | string[]>;
}

/**
 * An ObjectCache holds the latest known state of each object and keeps its indexes in
 * step. Objects handed out are the cached ones: callers must not mutate them.
 */
export class ObjectCache<T extends KObject = KObject> {
  private readonly items = new Map<string, T>();
  private readonly indexes = new Map<string, Index<T>>();

  /**
   * Without `onIndexError`, an index function that throws makes the write throw. With it,
   * the error is reported and the object is filed under no value of that index.
   */
  constructor(private readonly onIndexError?: (index: string, obj: T, err: unknown) => void) {
    this.addIndexer(namespaceIndex, (obj) => [obj.metadata.namespace ?? '']);
  }

  /** The object named `name` in `namespace` (pass '' or undefined for cluster-scoped objects). */
  get(namespace: string | undefined, name: string): T | undefined {
    return this.items.get(keyOf(namespace, name));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  /** All objects, or those of one namespace. */
  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.items.values()];
    return this.byIndex(namespaceIndex, namespace);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  get size(): number {
    return this.items.size;
  }

  /**
   * Adds an index. Existing objects are indexed at once. Throws when the name is taken, or
   * (without `onIndexError`) when `fn` throws for an existing object.
   */
  /** Whether an index of that name exists (a shared cache keeps an index after the user that added it stops). */
  hasIndexer(name: string): boolean {
    return this.indexes.has(name);
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.indexes.has(name)) throw new Error(`cannot add indexer ${JSON.stringify(name)}: an indexer with that name exists`);
    const index: Index<T> = { fn: this.guard(name, fn), byValue: new Map(), valuesOf: new Map() };
    for (const [key, obj] of this.items) file(index, key, index.fn(obj));
    this.indexes.set(name, index);
  }

  private guard(name: string, fn: IndexFunc<T>): IndexFunc<T> {
    const report = this.onIndexError;
    if (!report) return fn;
    return (obj) => {
      try {
        return fn(obj);
      } catch (err) {
        report(name, obj, err);
        return [];
      }
    };
  }

  /** The objects the index files under `value`. Throws for an unknown index. */
  byIndex(name: string, value: string): T[] {
    return this.indexKeys(name, value).map((key) => this.items.get(key) as T);
  }

  /** How many objects the index files under `value` (without listing them). Throws for an unknown index. */
  countByIndex(name: string, value: string): number {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`unknown index ${JSON.stringify(name)}; known: ${[...this.indexes.keys()].join(', ')}`);
    return index.byValue.get(value)?.size ?? 0;
  }

  /** The keys the index files under `value`. Throws for an unknown index. */
  indexKeys(name: string, value: string): string[] {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`unknown index ${JSON.stringify(name)}; known: ${[...this.indexes.keys()].join(', ')}`);
    return [...(index.byValue.get(value) ?? [])];
  }

  /**
   * Stores `obj` under its key; returns the object it replaced. Index values are computed
   * before anything changes, so an index function that throws leaves the cache as it was.
   */
  set(obj: T): T | undefined {
    const key = objectKey(obj);
    const filed = [...this.indexes.values()].map((index) => ({ index, values: index.fn(obj) }));
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const { index, values } of filed) {
      unfile(index, key);
      file(index, key, values);
    }
    return old;
  }

  /** Removes the object at `key`; returns it. */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.items.delete(key);
    for (const index of this.indexes.values()) unfile(index, key);
    return old;
  }

  /** Replaces the whole content (used by a relist). */
  replace(objects: T[]): void {
    this.items.clear();
    for (const index of this.indexes.values()) {
      index.byValue.clear();
      index.valuesOf.clear();
    }
    for (const obj of objects) this.set(obj);
  }
}

function file<T extends KObject>(index: Index<T>, key: string, computed: string[]): void {
  const values = computed.length === 1 ? computed : [...new Set(computed)];
  if (values.length === 0) return;
  index.valuesOf.set(key, values.length === 1 ? values[0] : values);
  for (const value of values) {
    let keys = index.byValue.get(value);
    if (!keys) index.byValue.set(value, (keys = new Set()));
    keys.add(key);
  }
}

function unfile<T extends KObject>(index: Index<T>, key: string): void {
  const filed = index.valuesOf.get(key);
  if (filed === undefined) return;
  index.valuesOf.delete(key);
  for (const value of typeof filed === 'string' ? [filed] : filed) {
    const keys = index.byValue.get(value);
    if (!keys) continue;
    keys.delete(key);
    if (keys.size === 0) index.byValue.delete(value);
  }
}
