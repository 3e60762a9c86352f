/**
 * An ObjectStore maps Kubernetes objects onto the key-value Store: it builds keys, encodes
 * objects with their resourceVersion embedded, decodes them for the requested version, and
 * turns StoreErrors into ApiErrors clients understand.
 */
import type { KObject } from '../../machinery/object.js';
import { errors } from '../../machinery/errors.js';
import type { KeyValue, Store, StoreListResult, StoreWatchHandlers, StoreWatcher, ValueBytes } from '../../store/types.js';
import { StoreError, ValueSearch, hasValueBytes } from '../../store/types.js';
import { StorageFullError } from '../../store/index.js';
import { groupVersion, type ResourceType } from '../registry/resource-type.js';

export interface StoredObject {
  obj: KObject;
  kv: KeyValue;
}

export class ObjectStore {
  constructor(readonly store: Store) {}

  /** `/registry/<group>/<resource>/` — every object of the resource, in all namespaces. */
  resourcePrefix(rt: Pick<ResourceType, 'group' | 'resource'>): string {
    return `/registry/${rt.group || 'core'}/${rt.resource}/`;
  }

  /** The prefix of one namespace's objects (or all objects of a cluster-scoped resource). */
  prefix(rt: ResourceType, namespace?: string): string {
    const base = this.resourcePrefix(rt);
    return rt.namespaced && namespace ? `${base}${namespace}/` : base;
  }

  key(rt: ResourceType, namespace: string | undefined, name: string): string {
    const base = this.resourcePrefix(rt);
    return rt.namespaced ? `${base}${namespace}/${name}` : `${base}${name}`;
  }

  /** Encodes `obj` for storage; the resourceVersion is filled in by the store. */
  encoder(obj: KObject): (revision: number) => string {
    return (revision: number) => {
      obj.metadata.resourceVersion = revision > 0 ? String(revision) : undefined;
      return JSON.stringify(obj);
    };
  }

  /** Decodes a stored value as `rt`'s version, with the resourceVersion of `kv`. */
  decode(rt: ResourceType, kv: KeyValue): KObject {
    const obj = JSON.parse(kv.value) as KObject;
    const rv = String(kv.modRevision);
    if (obj.metadata.resourceVersion !== rv) obj.metadata.resourceVersion = rv;
    const apiVersion = groupVersion(rt);
    if (obj.apiVersion !== apiVersion) obj.apiVersion = apiVersion;
    return obj;
  }

  /**
   * The stored JSON text when it can be sent as-is (revision embedded, same version),
   * else undefined. Saves a parse and a stringify on hot read paths.
   */
  rawIfExact(rt: ResourceType, kv: KeyValue, deleted = false): string | undefined {
    const apiVersion = groupVersion(rt);
    // Read once: a store may decode the value on each read (the etcd watch cache keeps bytes).
    const text = kv.value;
    // The encoder writes apiVersion first when objects are built by the server.
    if (!text.startsWith(`{"apiVersion":"${apiVersion}"`)) return undefined;
    // A backend that assigns the revision while writing (etcd) stored no resourceVersion:
    // it is spliced into the text, which is as good as a parse, a set and a stringify.
    if (!this.store.embedsRevision) return withResourceVersion(text, apiVersion.length, kv.modRevision);
    // A live value embeds its own revision; a delete event carries the last stored text
    // but the delete's revision, so that one must be re-encoded.
    return deleted ? undefined : text;
  }

  /**
   * exactBytes is how to write what `rawIfExact` gives straight from the bytes a store holds
   * (the etcd watch cache's), without decoding them: a store that assigns revisions itself, a
   * value held as bytes, and a text `withResourceVersion` would splice; else undefined.
   */
  exactBytes(rt: ResourceType, kv: KeyValue): SplicedBytes | undefined {
    if (this.store.embedsRevision || !hasValueBytes(kv)) return undefined;
    let heads = this.usualHeads.get(rt);
    if (!heads) this.usualHeads.set(rt, (heads = usualHeads(groupVersion(rt), rt.kind)));
    return resourceVersionSplice(kv, heads, kv.modRevision);
  }

  /** Per resource type, the start its stored objects usually have (see usualHeads). */
  private readonly usualHeads = new WeakMap<ResourceType, UsualHeads>();

  async get(rt: ResourceType, namespace: string | undefined, name: string): Promise<StoredObject | undefined> {
    const kv = await this.store.get(this.key(rt, namespace, name));
    return kv ? { obj: this.decode(rt, kv), kv } : undefined;
  }

  async mustGet(rt: ResourceType, namespace: string | undefined, name: string): Promise<StoredObject> {
    const found = await this.get(rt, namespace, name);
    if (!found) throw errors.notFound(rt, name);
    return found;
  }

  async list(rt: ResourceType, namespace: string | undefined, opts: { limit?: number; startAfter?: string; revision?: number }): Promise<StoreListResult> {
    try {
      return await this.store.list(this.prefix(rt, namespace), opts);
    } catch (err) {
      throw mapStoreError(err, rt, '');
    }
  }

  async create(rt: ResourceType, obj: KObject): Promise<KObject> {
    return (await this.createStored(rt, obj)).obj;
  }

  /** createStored creates like `create` and also returns what the store wrote (its text, its revisions). */
  async createStored(rt: ResourceType, obj: KObject): Promise<StoredObject> {
    const name = obj.metadata.name!;
    try {
      const kv = await this.store.create(this.key(rt, obj.metadata.namespace, name), this.encoder(obj));
      return { obj: withRevision(obj, kv), kv };
    } catch (err) {
      throw mapStoreError(err, rt, name);
    }
  }

  /** Compare-and-swap update; a StoreError('conflict') is rethrown as is for retry loops. */
  async update(rt: ResourceType, obj: KObject, expectedRevision: number): Promise<KObject> {
    const name = obj.metadata.name!;
    const kv = await this.store.update(this.key(rt, obj.metadata.namespace, name), expectedRevision, this.encoder(obj));
    return withRevision(obj, kv);
  }

  /** Deletes at `expectedRevision`; a StoreError('conflict') is rethrown as is for retry loops. */
  async delete(rt: ResourceType, namespace: string | undefined, name: string, expectedRevision: number): Promise<KObject> {
    const kv = await this.store.delete(this.key(rt, namespace, name), expectedRevision);
    return this.decode(rt, kv);
  }

  watch(rt: ResourceType, namespace: string | undefined, afterRevision: number, handlers: StoreWatchHandlers): StoreWatcher {
    return this.store.watch(this.prefix(rt, namespace), afterRevision, handlers);
  }
}

/**
 * withRevision sets the written object's resourceVersion from the store's answer: a backend
 * that assigns the revision while writing (etcd) gave the encoder 0, so only the answer has it.
 */
function withRevision(obj: KObject, kv: KeyValue): KObject {
  const rv = String(kv.modRevision);
  if (obj.metadata.resourceVersion !== rv) obj.metadata.resourceVersion = rv;
  return obj;
}

const kindAndMetadata = /^,"kind":"[A-Za-z0-9]+","metadata":\{/;

/**
 * withResourceVersion puts `"resourceVersion":"<revision>"` first in the metadata of `text`,
 * a stored object that starts `{"apiVersion":"<apiVersion>","kind":"<Kind>","metadata":{` (as
 * the encoder writes it) and holds no resourceVersion anywhere (the encoder of a backend that
 * assigns the revision itself leaves it out); undefined for any other text (the caller then
 * parses it). `apiVersionLength` is the length of the apiVersion `text` starts with.
 */
export function withResourceVersion(text: string, apiVersionLength: number, revision: number): string | undefined {
  const at = metadataOpening(text, '{"apiVersion":"'.length + apiVersionLength + 1);
  if (at === undefined) return undefined;
  // Also inside another field (an object reference, a copy in an annotation): parse to be sure.
  if (text.includes('"resourceVersion":')) return undefined;
  return text.slice(0, at) + resourceVersionInsert(revision, text[at] === '}') + text.slice(at);
}

/**
 * metadataOpening is where the metadata's fields begin in `head` (the start of a stored object,
 * as text or Latin-1), `from` being the end of its apiVersion: after `,"kind":"<Kind>","metadata":{`;
 * undefined when it does not go on so.
 */
function metadataOpening(head: string, from: number): number | undefined {
  const m = kindAndMetadata.exec(head.slice(from, from + 120));
  return m ? from + m[0].length : undefined;
}

/** What goes in at the metadata's opening: the resourceVersion, and a comma unless the metadata is empty (`closed`). */
function resourceVersionInsert(revision: number, closed: boolean): string {
  return `"resourceVersion":"${revision}"${closed ? '' : ','}`;
}

/** The bytes of a stored text with `insert` (its resourceVersion) put in at byte `at`: `withResourceVersion`'s answer as UTF-8. */
export interface SplicedBytes {
  readonly bytes: ValueBytes;
  readonly at: number;
  /** ASCII. */
  readonly insert: string;
  /** The size of the whole in bytes. */
  readonly byteLength: number;
}

const resourceVersionField = new ValueSearch(Buffer.from('"resourceVersion":'));

/**
 * UsualHeads: how a resource type's objects start as the encoder writes them, as bytes, for a
 * comparison that makes no string; `apiVersion` for the others.
 */
export interface UsualHeads {
  apiVersion: string;
  /** `{"apiVersion":"…","kind":"<its kind>","metadata":{`; undefined for a kind `withResourceVersion` would not take. */
  usual: Buffer | undefined;
  /** The same with an empty metadata: `…"metadata":{}` */
  emptyMetadata: Buffer | undefined;
}

/** usualHeads are the starts of objects of `apiVersion` and `kind` as the encoder writes them. */
export function usualHeads(apiVersion: string, kind: string): UsualHeads {
  const usual = `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{`;
  if (!/^[A-Za-z0-9]+$/.test(kind) || JSON.stringify(apiVersion) !== `"${apiVersion}"`) return { apiVersion, usual: undefined, emptyMetadata: undefined };
  return { apiVersion, usual: Buffer.from(usual), emptyMetadata: Buffer.from(`${usual}}`) };
}

/**
 * resourceVersionSplice is `withResourceVersion` on a value held as UTF-8 bytes: where to put
 * `"resourceVersion":"<revision>"`, or undefined where `withResourceVersion` gives undefined.
 * A value that starts as `heads.usual` is told by comparing bytes; any other start is read as
 * Latin-1 (one character per byte): the part matched is ASCII, read the same either way, so
 * `at` is a byte offset.
 */
export function resourceVersionSplice(bytes: ValueBytes, heads: UsualHeads, revision: number): SplicedBytes | undefined {
  let at: number;
  let closed: boolean;
  if (heads.usual && bytes.valueStartsWith(heads.usual)) {
    at = heads.usual.length;
    closed = bytes.valueStartsWith(heads.emptyMetadata!);
  } else {
    const start = `{"apiVersion":"${heads.apiVersion}"`;
    const from = start.length;
    const head = bytes.valueHead(from + 121);
    if (!head.startsWith(start)) return undefined;
    const opening = metadataOpening(head, from);
    if (opening === undefined) return undefined;
    at = opening;
    closed = head[at] === '}';
  }
  if (bytes.valueIncludes(resourceVersionField)) return undefined;
  const insert = resourceVersionInsert(revision, closed);
  return { bytes, at, insert, byteLength: bytes.byteLength + insert.length };
}

/** writeSpliced writes `s` into `target` at `offset` (room for `s.byteLength` bytes is the caller's to check); it returns the bytes written. */
export function writeSpliced(s: SplicedBytes, target: Buffer, offset: number): number {
  let n = s.bytes.copyValue(target, offset, 0, s.at);
  n += target.write(s.insert, offset + n, 'latin1');
  n += s.bytes.copyValue(target, offset + n, s.at);
  return n;
}

/** Translates a StoreError into the ApiError a client should see. */
export function mapStoreError(err: unknown, rt: ResourceType, name: string): unknown {
  if (err instanceof StorageFullError) return storageFull();
  if (!(err instanceof StoreError)) return err;
  switch (err.code) {
    case 'exists':
      return errors.alreadyExists(rt, name);
    case 'not-found':
      return errors.notFound(rt, name);
    case 'conflict':
      return errors.conflict(rt, name, 'the object has been modified; please apply your changes to the latest version and try again');
    case 'compacted':
      return errors.expired(`too old resource version: ${err.message}`);
    case 'future-revision':
      return errors.timeout(`Too large resource version: ${err.message}`);
    case 'closed':
      return errors.internal('the store is shutting down');
    case 'too-far-behind':
      return errors.expired(`the watch fell too far behind: ${err.message}`);
    case 'unavailable':
      return errors.serviceUnavailable(`storage is unavailable: ${err.message}`);
  }
}

/** The answer to a write the full disk refused: 507, saying what to do; nothing was stored. */
export function storageFull() {
  return errors.insufficientStorage(
    "the server's data directory is full: the write was not stored; reads still work, and writes succeed again as soon as space is freed on the disk holding the data directory",
  );
}
