/**
 * An in-memory Client for unit tests: objects with resourceVersions from one global
 * revision counter, compare-and-swap updates, finalizers, paginated lists, simple label
 * and field selectors, and watches fanned out to every watcher (with history, compaction
 * and 410 Expired). Its verbs are function fields, so a test can replace or wrap one.
 */
import { randomUUID } from 'node:crypto';
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { ApiError, errors } from '../../machinery/errors.js';
import type { Status } from '../../machinery/errors.js';
import type { KList, KObject } from '../../machinery/object.js';
import { deepCopy, deepEqual, formatApiVersion, isPlainObject } from '../../machinery/object.js';
import type {
  Client,
  DeleteOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceRef,
  WatchEvent,
  WatchHandle,
  WatchHandlers,
  WatchOptions,
  WriteOptions,
} from '../types.js';

export interface FakeClientOptions {
  /**
   * When true (the default) every resource behaves as having a status subresource: create,
   * update and patch keep the stored status, and only updateStatus (or a status patch)
   * changes it. Use `seed` to store objects with a status.
   */
  statusSubresource?: boolean;
  /** Clock for creationTimestamp and deletionTimestamp. */
  now?: () => Date;
}

/** A FakeAction records one call, for tests that assert what a component did. */
export interface FakeAction {
  verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'updateStatus' | 'updateSubresource' | 'patch' | 'delete' | 'deleteCollection';
  resource: string;
  namespace?: string;
  name?: string;
}

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Change {
  revision: number;
  resource: string;
  type: ChangeType;
  obj: KObject;
  prev?: KObject;
}

type Pending = { event: WatchEvent } | { close: true; err?: Error };

const conflictWhy = 'the object has been modified; please apply your changes to the latest version and try again';

/** Identifies a resource across versions: `group/resource`. */
function resourceId(ref: ResourceRef): string {
  return `${ref.group}/${ref.resource}`;
}

function identity(ref: ResourceRef): { group: string; resource: string } {
  return { group: ref.group, resource: ref.resource };
}

class FakeWatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  stopped = false;
  closed = false;

  constructor(
    readonly resource: string,
    readonly namespace: string | undefined,
    readonly matches: (obj: KObject) => boolean,
    readonly bookmarks: boolean,
    private readonly handlers: WatchHandlers<KObject>,
    private readonly onGone: (w: FakeWatcher) => void,
  ) {}

  get idle(): boolean {
    return this.queue.length === 0;
  }

  push(event: WatchEvent): void {
    if (this.closed || this.stopped) return;
    this.queue.push({ event: deepCopy(event) });
    this.schedule();
  }

  close(err?: Error): void {
    if (this.closed || this.stopped) return;
    this.closed = true;
    this.queue.push({ close: true, ...(err ? { err } : {}) });
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.queue = [];
    this.onGone(this);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length && !this.stopped) {
      const next = this.queue.shift() as Pending;
      if ('event' in next) {
        this.handlers.onEvent(next.event);
      } else {
        this.queue = [];
        this.onGone(this);
        this.handlers.onClose(next.err);
        return;
      }
    }
  }
}

/**
 * A FakeClient is a Client backed by memory. Writes advance one revision counter that
 * becomes metadata.resourceVersion; updates carrying a resourceVersion are compare-and-swap;
 * objects with finalizers (for namespaces also spec.finalizers) get a deletionTimestamp
 * instead of being deleted, and go once the last finalizer is removed. Watches are
 * delivered asynchronously (as over a network) in revision order.
 *
 * Simplifications: strategic-merge and apply patches are applied as JSON merge patches;
 * propagationPolicy and gracePeriodSeconds are ignored (no garbage collection); list
 * `resourceVersion` is ignored (lists are always current).
 */
export class FakeClient implements Client {
  /** The revision of the last write. */
  revision = 0;
  /** Watches from a resourceVersion below this get 410 Expired. */
  compactedRevision = 0;
  /** Every call, in order. */
  readonly actions: FakeAction[] = [];
  private readonly objects = new Map<string, { ref: ResourceRef; obj: KObject }>();
  private history: Change[] = [];
  private readonly watchers = new Set<FakeWatcher>();
  private readonly statusSubresource: boolean;
  private readonly now: () => Date;

  constructor(options: FakeClientOptions = {}) {
    this.statusSubresource = options.statusSubresource ?? true;
    this.now = options.now ?? (() => new Date());
  }

  get = async <T extends KObject = KObject>(ref: ResourceRef, name: string, namespace?: string): Promise<T> => {
    const ns = this.ns(ref, namespace);
    this.record('get', ref, ns, name);
    const found = this.objects.get(this.key(ref, ns, name));
    if (!found) throw errors.notFound(identity(ref), name);
    return deepCopy(found.obj) as T;
  };

  list = async <T extends KObject = KObject>(ref: ResourceRef, options: ListOptions = {}): Promise<KList<T>> => {
    this.record('list', ref, options.namespace);
    const matches = selectorMatcher(options.labelSelector, options.fieldSelector);
    const all = [...this.objects.entries()]
      .filter(([, v]) => resourceId(v.ref) === resourceId(ref))
      .filter(([, v]) => !options.namespace || !ref.namespaced || v.obj.metadata.namespace === options.namespace)
      .filter(([, v]) => matches(v.obj))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    let start = 0;
    if (options.continue) {
      const after = decodeContinue(options.continue);
      start = all.findIndex(([k]) => k > after);
      if (start < 0) start = all.length;
    }
    const limit = options.limit && options.limit > 0 ? options.limit : all.length;
    const page = all.slice(start, start + limit);
    const more = start + page.length < all.length;
    const last = page[page.length - 1];
    return {
      apiVersion: formatApiVersion(ref.group, ref.version),
      kind: `${ref.kind}List`,
      metadata: {
        resourceVersion: String(this.revision),
        ...(more && last ? { continue: encodeContinue(last[0]), remainingItemCount: all.length - start - page.length } : {}),
      },
      items: page.map(([, v]) => deepCopy(v.obj) as T),
    };
  };

  watch = <T extends KObject = KObject>(ref: ResourceRef, options: WatchOptions, handlers: WatchHandlers<T>): WatchHandle => {
    this.record('watch', ref, options.namespace);
    const namespace = ref.namespaced ? options.namespace || undefined : undefined;
    const selector = selectorMatcher(options.labelSelector, options.fieldSelector);
    const matches = (obj: KObject): boolean => (!namespace || obj.metadata.namespace === namespace) && selector(obj);
    const watcher = new FakeWatcher(resourceId(ref), namespace, matches, options.allowWatchBookmarks ?? false, handlers, (w) => this.watchers.delete(w));
    const rv = options.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0') {
      const current = [...this.objects.entries()]
        .filter(([, v]) => resourceId(v.ref) === watcher.resource && matches(v.obj))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [, v] of current) watcher.push({ type: 'ADDED', object: v.obj });
    } else {
      const from = Number(rv);
      if (!Number.isInteger(from) || from < 0) {
        watcher.close(errors.badRequest(`invalid resourceVersion ${JSON.stringify(rv)}: expected a non-negative integer`));
        return { stop: () => watcher.stop() };
      }
      if (from < this.compactedRevision) {
        watcher.push({ type: 'ERROR', object: expiredStatus(from, this.compactedRevision) as unknown as KObject });
        watcher.close();
        return { stop: () => watcher.stop() };
      }
      for (const change of this.history) if (change.revision > from) this.deliver(watcher, change);
    }
    this.watchers.add(watcher);
    return { stop: () => watcher.stop() };
  };

  create = async <T extends KObject = KObject>(ref: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> => {
    const ns = this.ns(ref, obj.metadata?.namespace);
    const input = deepCopy(obj);
    const meta = input.metadata ?? {};
    let name = meta.name;
    if (!name && meta.generateName) name = meta.generateName + randomSuffix();
    this.record('create', ref, ns, name);
    if (!name)
      throw errors.invalid(ref.kind, ref.group, '', [{ reason: 'FieldValueRequired', message: 'name or generateName is required', field: 'metadata.name' }]);
    const key = this.key(ref, ns, name);
    if (this.objects.has(key)) throw errors.alreadyExists(identity(ref), name);
    const stored: KObject = {
      ...input,
      apiVersion: formatApiVersion(ref.group, ref.version),
      kind: ref.kind,
      metadata: {
        ...meta,
        name,
        ...(ns ? { namespace: ns } : {}),
        uid: randomUUID(),
        creationTimestamp: this.timestamp(),
        generation: 1,
      },
    };
    delete stored.metadata.resourceVersion;
    delete stored.metadata.deletionTimestamp;
    if (this.statusSubresource) delete stored.status;
    if (options.dryRun) return { ...deepCopy(stored), metadata: { ...stored.metadata, uid: '' } } as T;
    return deepCopy(this.write(ref, key, stored, undefined)) as T;
  };

  update = async <T extends KObject = KObject>(ref: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> => {
    const { key, current, ns, name } = this.existing(ref, obj, 'update');
    const next: KObject = { ...deepCopy(obj), apiVersion: current.apiVersion, kind: current.kind };
    next.metadata = this.keepSystemMeta(current, next, ns, name);
    if (this.statusSubresource) {
      if (current.status === undefined) delete next.status;
      else next.status = deepCopy(current.status);
    }
    if (!specEqual(current, next)) next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    if (options.dryRun) return deepCopy(next) as T;
    return deepCopy(this.write(ref, key, next, current)) as T;
  };

  updateStatus = async <T extends KObject = KObject>(ref: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> => {
    const { key, current } = this.existing(ref, obj, 'updateStatus');
    const next: KObject = deepCopy(current);
    if (obj.status === undefined) delete next.status;
    else next.status = deepCopy(obj.status);
    if (options.dryRun) return deepCopy(next) as T;
    return deepCopy(this.write(ref, key, next, current)) as T;
  };

  /**
   * `status` behaves as updateStatus; `finalize` replaces `spec.finalizers` (a namespace's
   * finalize subresource); any other subresource replaces the object as update does.
   */
  updateSubresource = async <T extends KObject = KObject>(ref: ResourceRef, obj: T, subresource: string, options: WriteOptions = {}): Promise<T> => {
    if (subresource === 'status') return this.updateStatus(ref, obj, options);
    if (subresource !== 'finalize') return this.update(ref, obj, options);
    const { key, current } = this.existing(ref, obj, 'updateSubresource');
    const next: KObject = deepCopy(current);
    const wanted = isPlainObject(obj.spec) ? obj.spec.finalizers : undefined;
    const spec = isPlainObject(next.spec) ? next.spec : {};
    if (wanted === undefined) delete spec.finalizers;
    else spec.finalizers = deepCopy(wanted);
    next.spec = spec;
    if (options.dryRun) return deepCopy(next) as T;
    return deepCopy(this.write(ref, key, next, current)) as T;
  };

  patch = async <T extends KObject = KObject>(ref: ResourceRef, name: string, type: PatchType, patch: unknown, options: PatchOptions = {}): Promise<T> => {
    const ns = this.ns(ref, options.namespace);
    this.record('patch', ref, ns, name);
    const key = this.key(ref, ns, name);
    const found = this.objects.get(key);
    const body: unknown = typeof patch === 'string' ? JSON.parse(patch) : patch;
    if (!found) {
      if (type === 'apply' && isPlainObject(body)) {
        const obj = body as unknown as KObject;
        return this.create<T>(ref, { ...obj, metadata: { ...obj.metadata, name, ...(ns ? { namespace: ns } : {}) } } as T, options);
      }
      throw errors.notFound(identity(ref), name);
    }
    const current = found.obj;
    let patched: KObject;
    if (type === 'json') {
      if (!Array.isArray(body)) throw errors.badRequest('a JSON patch must be an array of operations');
      try {
        patched = fastJsonPatch.applyPatch(deepCopy(current), body as Operation[], true, false).newDocument;
      } catch (err) {
        throw errors.badRequest(`cannot apply JSON patch: ${(err as Error).message}`);
      }
    } else {
      if (!isPlainObject(body)) throw errors.badRequest(`a ${type} patch must be a JSON object`);
      patched = mergePatch(current, body) as KObject;
    }
    const patchedRv = patched.metadata?.resourceVersion;
    if (patchedRv && patchedRv !== current.metadata.resourceVersion) throw errors.conflict(identity(ref), name, conflictWhy);
    let next: KObject;
    if (options.subresource === 'status') {
      next = deepCopy(current);
      if (patched.status === undefined) delete next.status;
      else next.status = patched.status;
    } else {
      next = { ...patched, apiVersion: current.apiVersion, kind: current.kind };
      next.metadata = this.keepSystemMeta(current, next, ns, name);
      if (this.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = deepCopy(current.status);
      }
      if (!specEqual(current, next)) next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    }
    if (options.dryRun) return deepCopy(next) as T;
    return deepCopy(this.write(ref, key, next, current)) as T;
  };

  delete = async (ref: ResourceRef, name: string, options: DeleteOptions = {}): Promise<KObject> => {
    const ns = this.ns(ref, options.namespace);
    this.record('delete', ref, ns, name);
    return this.deleteOne(ref, ns, name, options);
  };

  deleteCollection = async (ref: ResourceRef, options: ListOptions & DeleteOptions = {}): Promise<void> => {
    this.record('deleteCollection', ref, options.namespace);
    const matches = selectorMatcher(options.labelSelector, options.fieldSelector);
    const targets = [...this.objects.values()].filter(
      (v) =>
        resourceId(v.ref) === resourceId(ref) && (!options.namespace || !ref.namespaced || v.obj.metadata.namespace === options.namespace) && matches(v.obj),
    );
    for (const t of targets) {
      await this.deleteOne(ref, t.obj.metadata.namespace ?? '', t.obj.metadata.name ?? '', { ...options, preconditions: undefined });
    }
  };

  // ---- helpers for tests ----

  /**
   * Stores `obj` as given (status included), as if it had always been there: it gets a uid,
   * creationTimestamp and resourceVersion when missing, and watchers see it ADDED (or
   * MODIFIED when it replaces an object). Returns the stored copy.
   */
  seed<T extends KObject>(ref: ResourceRef, obj: T): T {
    const ns = this.ns(ref, obj.metadata.namespace);
    const name = obj.metadata.name;
    if (!name) throw new Error('seed needs metadata.name');
    const key = this.key(ref, ns, name);
    const current = this.objects.get(key)?.obj;
    const stored: KObject = {
      ...deepCopy(obj),
      apiVersion: formatApiVersion(ref.group, ref.version),
      kind: ref.kind,
      metadata: {
        ...deepCopy(obj.metadata),
        name,
        ...(ns ? { namespace: ns } : {}),
        uid: obj.metadata.uid ?? current?.metadata.uid ?? randomUUID(),
        creationTimestamp: obj.metadata.creationTimestamp ?? current?.metadata.creationTimestamp ?? this.timestamp(),
        generation: obj.metadata.generation ?? 1,
      },
    };
    return deepCopy(this.write(ref, key, stored, current, true)) as T;
  }

  /** The stored objects of a resource (copies), in key order. */
  stored<T extends KObject = KObject>(ref: ResourceRef, namespace?: string): T[] {
    return [...this.objects.entries()]
      .filter(([, v]) => resourceId(v.ref) === resourceId(ref) && (!namespace || v.obj.metadata.namespace === namespace))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, v]) => deepCopy(v.obj) as T);
  }

  /** Number of open watches (of one resource, or all). */
  watchCount(ref?: ResourceRef): number {
    if (!ref) return this.watchers.size;
    return [...this.watchers].filter((w) => w.resource === resourceId(ref)).length;
  }

  /** Sends a BOOKMARK at the current revision to every watch that allows bookmarks. */
  bookmark(): void {
    for (const w of this.watchers) {
      if (w.bookmarks) {
        w.push({ type: 'BOOKMARK', object: { apiVersion: '', kind: '', metadata: { resourceVersion: String(this.revision) } } });
      }
    }
  }

  /** Ends every watch the way a server does when it lost their history: an ERROR event with 410 Expired, then the end. */
  expireWatches(ref?: ResourceRef): void {
    for (const w of [...this.watchers]) {
      if (ref && w.resource !== resourceId(ref)) continue;
      w.push({ type: 'ERROR', object: expiredStatus(0, this.revision) as unknown as KObject });
      w.close();
    }
  }

  /** Ends every watch (of one resource, or all) with `onClose(err)`. */
  closeWatches(err?: Error, ref?: ResourceRef): void {
    for (const w of [...this.watchers]) if (!ref || w.resource === resourceId(ref)) w.close(err);
  }

  /** Forgets history: watches from a resourceVersion before now get 410 Expired. */
  compact(): void {
    this.compactedRevision = this.revision;
    this.history = [];
  }

  /** Resolves once every queued watch event has been delivered. */
  async settle(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if ([...this.watchers].every((w) => w.idle)) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        return;
      }
    }
  }

  // ---- internals ----

  private ns(ref: ResourceRef, namespace: string | undefined): string {
    if (!ref.namespaced) return '';
    return namespace || 'default';
  }

  private key(ref: ResourceRef, ns: string, name: string): string {
    return `${resourceId(ref)}/${ns}/${name}`;
  }

  private record(verb: FakeAction['verb'], ref: ResourceRef, namespace?: string, name?: string): void {
    this.actions.push({ verb, resource: ref.resource, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) });
  }

  private timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
  }

  private existing(ref: ResourceRef, obj: KObject, verb: 'update' | 'updateStatus' | 'updateSubresource') {
    const ns = this.ns(ref, obj.metadata?.namespace);
    const name = obj.metadata?.name;
    this.record(verb, ref, ns, name);
    if (!name) throw errors.badRequest(`${verb} of ${ref.resource} needs metadata.name`);
    const key = this.key(ref, ns, name);
    const found = this.objects.get(key);
    if (!found) throw errors.notFound(identity(ref), name);
    const rv = obj.metadata.resourceVersion;
    if (rv && rv !== found.obj.metadata.resourceVersion) throw errors.conflict(identity(ref), name, conflictWhy);
    if (obj.metadata.uid && obj.metadata.uid !== found.obj.metadata.uid) {
      throw errors.conflict(identity(ref), name, `the UID in the object (${obj.metadata.uid}) does not match the stored one`);
    }
    return { key, current: found.obj, ns, name };
  }

  /** Metadata the server owns is kept from the stored object. */
  private keepSystemMeta(current: KObject, next: KObject, ns: string, name: string): KObject['metadata'] {
    const meta = { ...(next.metadata ?? {}) };
    meta.name = name;
    if (ns) meta.namespace = ns;
    meta.uid = current.metadata.uid;
    meta.creationTimestamp = current.metadata.creationTimestamp;
    meta.generation = current.metadata.generation;
    if (current.metadata.deletionTimestamp) meta.deletionTimestamp = current.metadata.deletionTimestamp;
    else delete meta.deletionTimestamp;
    delete meta.resourceVersion;
    return meta;
  }

  /**
   * Stores `obj` at a new revision and tells watchers. An object marked for deletion whose
   * last finalizer is gone is deleted instead.
   */
  private write(ref: ResourceRef, key: string, obj: KObject, prev: KObject | undefined, seeding = false): KObject {
    if (!seeding && prev && obj.metadata.deletionTimestamp && !hasFinalizers(ref, obj)) {
      return this.remove(ref, key, obj, prev);
    }
    this.revision++;
    obj.metadata.resourceVersion = String(this.revision);
    this.objects.set(key, { ref, obj });
    this.publish({ revision: this.revision, resource: resourceId(ref), type: prev ? 'MODIFIED' : 'ADDED', obj, prev });
    return obj;
  }

  private remove(ref: ResourceRef, key: string, last: KObject, prev: KObject): KObject {
    this.revision++;
    const gone = deepCopy(last);
    gone.metadata.resourceVersion = String(this.revision);
    this.objects.delete(key);
    this.publish({ revision: this.revision, resource: resourceId(ref), type: 'DELETED', obj: gone, prev });
    return gone;
  }

  private async deleteOne(ref: ResourceRef, ns: string, name: string, options: DeleteOptions): Promise<KObject> {
    const key = this.key(ref, ns, name);
    const found = this.objects.get(key);
    if (!found) throw errors.notFound(identity(ref), name);
    const current = found.obj;
    const pre = options.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw errors.conflict(identity(ref), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw errors.conflict(
        identity(ref),
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    if (options.dryRun) return deepCopy(current);
    if (hasFinalizers(ref, current)) {
      if (current.metadata.deletionTimestamp) return deepCopy(current);
      const marked = deepCopy(current);
      marked.metadata.deletionTimestamp = this.timestamp();
      marked.metadata.deletionGracePeriodSeconds = 0;
      return deepCopy(this.write(ref, key, marked, current));
    }
    return deepCopy(this.remove(ref, key, current, current));
  }

  private publish(change: Change): void {
    this.history.push({ ...change, obj: deepCopy(change.obj) });
    for (const w of this.watchers) this.deliver(w, change);
  }

  private deliver(w: FakeWatcher, change: Change): void {
    if (w.resource !== change.resource) return;
    const now = w.matches(change.obj);
    const before = change.prev !== undefined && w.matches(change.prev);
    switch (change.type) {
      case 'ADDED':
        if (now) w.push({ type: 'ADDED', object: change.obj });
        return;
      case 'MODIFIED':
        if (now && before) w.push({ type: 'MODIFIED', object: change.obj });
        else if (now) w.push({ type: 'ADDED', object: change.obj });
        else if (before) w.push({ type: 'DELETED', object: change.obj });
        return;
      case 'DELETED':
        if (before || now) w.push({ type: 'DELETED', object: change.obj });
        return;
    }
  }
}

/** Finalizers block deletion; a namespace's spec.finalizers do too. */
function hasFinalizers(ref: ResourceRef, obj: KObject): boolean {
  if (obj.metadata.finalizers?.length) return true;
  if (ref.group === '' && ref.resource === 'namespaces' && isPlainObject(obj.spec)) {
    const f = obj.spec.finalizers;
    return Array.isArray(f) && f.length > 0;
  }
  return false;
}

function expiredStatus(requested: number, oldest: number): Status {
  const err = new ApiError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
  return err.status;
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
}

function encodeContinue(key: string): string {
  return Buffer.from(JSON.stringify({ after: key })).toString('base64url');
}

function decodeContinue(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after === 'string') return parsed.after;
  } catch {
    // fall through to the error below
  }
  throw errors.badRequest(`invalid continue token ${JSON.stringify(token)}`);
}

/** Spec equality for generation: everything but metadata and status. */
function specEqual(a: KObject, b: KObject): boolean {
  const strip = (o: KObject): Record<string, unknown> => {
    const { metadata: _m, status: _s, ...rest } = o;
    return rest;
  };
  return deepEqual(strip(a), strip(b));
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return deepCopy(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

type Requirement = (obj: KObject) => boolean;

/**
 * A matcher for a label selector (`a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`,
 * `a notin (x,y)`) and a field selector (`path=value`, `path!=value` on dotted paths such
 * as `metadata.name`). Throws ApiError 400 for a selector it cannot parse.
 */
export function selectorMatcher(labelSelector?: string, fieldSelector?: string): (obj: KObject) => boolean {
  const reqs: Requirement[] = [];
  for (const term of splitTerms(labelSelector ?? '')) reqs.push(labelRequirement(term));
  for (const term of splitTerms(fieldSelector ?? '')) reqs.push(fieldRequirement(term));
  return (obj) => reqs.every((r) => r(obj));
}

function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  return terms.map((t) => t.trim()).filter((t) => t !== '');
}

function labelRequirement(term: string): Requirement {
  const labels = (obj: KObject): Record<string, string> => obj.metadata.labels ?? {};
  let m = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    const values = new Set(
      list
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    );
    return op === 'in' ? (obj) => key in labels(obj) && values.has(labels(obj)[key]) : (obj) => !(key in labels(obj)) || !values.has(labels(obj)[key]);
  }
  m = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s!=]*)$/.exec(term);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (obj) => labels(obj)[key] !== value : (obj) => labels(obj)[key] === value;
  }
  m = /^(!?)([^\s!=(),]+)$/.exec(term);
  if (m) {
    const [, not, key] = m as unknown as [string, string, string];
    return not ? (obj) => !(key in labels(obj)) : (obj) => key in labels(obj);
  }
  throw errors.badRequest(`unable to parse requirement ${JSON.stringify(term)} in the label selector`);
}

function fieldRequirement(term: string): Requirement {
  const m = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (!m) throw errors.badRequest(`invalid field selector term ${JSON.stringify(term)}: expected path=value or path!=value`);
  const [, path, op, value] = m as unknown as [string, string, string, string];
  const get = (obj: KObject): string => {
    let cur: unknown = obj;
    for (const part of path.split('.')) cur = isPlainObject(cur) ? cur[part] : undefined;
    return cur === undefined || cur === null ? '' : String(cur);
  };
  return op === '!=' ? (obj) => get(obj) !== value : (obj) => get(obj) === value;
}
