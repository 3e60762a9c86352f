/**
 * The generic REST handlers: get, list, watch, create, update, patch, delete and
 * deletecollection for any ResourceType. Kind-specific behaviour comes from the type's
 * Strategy and schema; cross-cutting policy from admission plugins.
 */
import type { KObject, ListMeta, ManagedFieldsEntry } from '../../machinery/object.js';
import { deepCopy, deepEqual, isPlainObject, parseApiVersion } from '../../machinery/object.js';
import { ApiError, errors, type StatusCause } from '../../machinery/errors.js';
import { StoreError } from '../../store/types.js';
import type { AdmissionChain, AdmissionOperation } from '../admission/types.js';
import type { JSONSchemaProps, ResourceType } from '../registry/resource-type.js';
import { groupVersion } from '../registry/resource-type.js';
import type { ObjectStore } from '../storage/object-store.js';
import { mapStoreError } from '../storage/object-store.js';
import type { RequestContext } from './context.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import * as deps from './deps.js';
import { LazyObject } from './lazy-object.js';
import { generateNameSuffix, newUid, normalizeKeyOrder, sameMetadataForNoop, specChanged, timestamp } from './object-meta.js';
import type { DeleteParams, ListParams, PatchParams, WriteParams } from './params.js';
import type { PatchType } from '../../client/types.js';
import { crashPoint } from '../../machinery/crash-point.js';
import { deletionFinished, namespaceSpecFinalizers } from './finished-deletions.js';

export interface ListResult {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: LazyObject[];
}

export interface HandlerOptions {
  objects: ObjectStore;
  admission: AdmissionChain;
  now?: () => Date;
  /** Retries of an optimistic update loop before giving up with a 409. */
  maxUpdateRetries?: number;
}

/**
 * A Mutator computes the object an update proposes from the stored one, once per attempt of
 * the update loop.
 *
 * `current` is the stored object, decoded for this request and read-only: the write still
 * needs it as it was (field-ownership diff, generation, the no-op check, admission's
 * oldObject, and the answer when nothing changed). The mutator returns an object of its
 * own, sharing nothing with `current` or with the caller's request, because the write then
 * changes it in place (system fields, defaults, pruning, admission). Each call starts from
 * the request again: after a conflict the object of the failed attempt is not reused.
 */
type Mutator = (current: Readonly<KObject>) => KObject | Promise<KObject>;

const CONFLICT_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export class RestHandlers {
  readonly objects: ObjectStore;
  private readonly admission: AdmissionChain;
  private readonly now: () => Date;
  private readonly maxRetries: number;

  constructor(opts: HandlerOptions) {
    this.objects = opts.objects;
    this.admission = opts.admission;
    this.now = opts.now ?? (() => new Date());
    this.maxRetries = opts.maxUpdateRetries ?? 20;
  }

  // ---------------------------------------------------------------- reads

  async get(rt: ResourceType, namespace: string | undefined, name: string): Promise<LazyObject> {
    const kv = await this.objects.store.get(this.objects.key(rt, namespace, name));
    if (!kv) throw errors.notFound(rt, name);
    return LazyObject.fromStore(this.objects, rt, kv);
  }

  async list(rt: ResourceType, namespace: string | undefined, p: ListParams): Promise<ListResult> {
    const labelSel = deps.parseLabelSelector(p.labelSelector);
    const fieldSel = deps.parseFieldSelector(p.fieldSelector, supportedFields(rt));
    const filtered = !labelSel.empty || !fieldSel.empty;
    const store = this.objects.store;

    let revision = 0;
    let startAfter: string | undefined;
    const prefix = this.objects.prefix(rt, namespace);
    if (p.continueToken) {
      const pos = decodeContinue(p.continueToken);
      revision = pos.revision;
      startAfter = prefix + pos.after;
      if (revision < store.compactedRevision()) {
        throw new ApiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
    } else if (p.resourceVersion && p.resourceVersion !== '0') {
      const rv = Number(p.resourceVersion);
      const exact = p.resourceVersionMatch === 'Exact' || (p.resourceVersionMatch === '' && p.limit > 0);
      // Another server on the same etcd may have handed out a revision this one has not seen yet.
      if (rv > store.currentRevision() && store.latestRevision) await store.latestRevision();
      if (rv > store.currentRevision()) {
        throw errors.timeout(`Too large resource version: ${rv}, current: ${store.currentRevision()}`);
      }
      if (exact) revision = rv;
    }

    const items: LazyObject[] = [];
    let more = false;
    let remaining = 0;
    let lastKey = '';
    let listRevision = revision;
    const pageSize = p.limit > 0 ? (filtered ? Math.max(p.limit, 256) : p.limit) : 0;
    for (;;) {
      const page = await this.objects.list(rt, namespace, { limit: pageSize, startAfter, revision: listRevision || undefined });
      listRevision = page.revision;
      let stoppedEarly = false;
      for (let i = 0; i < page.items.length; i++) {
        const kv = page.items[i];
        const item = LazyObject.fromStore(this.objects, rt, kv);
        if (filtered) {
          const o = item.obj();
          if (!labelSel.matches(o.metadata.labels) || !fieldSel.matches(fieldsOf(rt, o))) {
            lastKey = kv.key;
            continue;
          }
        }
        items.push(item);
        lastKey = kv.key;
        if (p.limit > 0 && items.length >= p.limit) {
          stoppedEarly = i < page.items.length - 1 || page.more;
          remaining = page.remaining + (page.items.length - 1 - i);
          break;
        }
      }
      if (p.limit > 0 && items.length >= p.limit) {
        more = stoppedEarly;
        break;
      }
      if (!page.more || pageSize === 0) break;
      startAfter = lastKey;
    }

    const metadata: ListMeta = { resourceVersion: String(listRevision) };
    if (more) {
      metadata.continue = encodeContinue({ revision: listRevision, after: lastKey.slice(prefix.length) });
      if (!filtered) metadata.remainingItemCount = remaining;
    }
    return { apiVersion: groupVersion(rt), kind: rt.listKind, metadata, items };
  }

  // ---------------------------------------------------------------- create

  async create(
    ctx: RequestContext,
    rt: ResourceType,
    namespace: string | undefined,
    body: unknown,
    p: WriteParams,
    presetManagedFields?: ManagedFieldsEntry[],
  ): Promise<KObject> {
    return (await this.createDecoded(ctx, rt, this.decodeBody(rt, body, namespace), p, presetManagedFields)).obj();
  }

  /**
   * createForResponse creates like `create` and returns the object as a LazyObject whose JSON
   * is the text the store wrote (its resourceVersion spliced in): the response needs no second
   * serialization of what was just serialized for the store.
   */
  async createForResponse(ctx: RequestContext, rt: ResourceType, namespace: string | undefined, body: unknown, p: WriteParams): Promise<LazyObject> {
    return this.createDecoded(ctx, rt, this.decodeBody(rt, body, namespace), p);
  }

  /** Creates `obj`, a decoded body the handler owns (it is changed in place and returned). */
  private async createDecoded(
    ctx: RequestContext,
    rt: ResourceType,
    obj: KObject,
    p: WriteParams,
    presetManagedFields?: ManagedFieldsEntry[],
  ): Promise<LazyObject> {
    const now = this.now();
    const meta = obj.metadata;
    if (!meta.name) {
      if (meta.generateName) meta.name = meta.generateName + generateNameSuffix();
    }
    if (!meta.name) {
      throw errors.invalid(rt.kind, rt.group, '', [
        { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
      ]);
    }
    meta.uid = newUid();
    meta.creationTimestamp = timestamp(now);
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (rt.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    if (rt.subresources.status && rt.source.type === 'crd') delete obj.status;
    rt.strategy.prepareForCreate?.(obj);

    this.applySchema(ctx, rt, obj, p.fieldValidation, '');
    await this.admit('CREATE', ctx, rt, obj, undefined, '', p.dryRun);
    this.validate(rt, obj, undefined, '');
    await this.admission.validate(this.attrs('CREATE', ctx, rt, obj, undefined, '', p.dryRun));
    meta.managedFields = presetManagedFields ?? deps.trackUpdate({ rt, old: undefined, updated: obj, manager: p.fieldManager, now, subresource: '' });
    if (meta.managedFields.length === 0) delete meta.managedFields;

    const final = normalizeKeyOrder(obj);
    if (p.dryRun) return LazyObject.of(final);
    const written = await this.objects.createStored(rt, final);
    return LazyObject.written(this.objects, rt, written.obj, written.kv);
  }

  // ---------------------------------------------------------------- update

  /** PUT of the whole object (or of a subresource: status, finalize). */
  async update(
    ctx: RequestContext,
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    subresource: string,
    p: WriteParams,
  ): Promise<KObject> {
    const incoming = this.decodeForUpdate(rt, body, namespace, name);
    const precondition = incoming.metadata.resourceVersion;
    // The first attempt writes the decoded request itself; an attempt after a conflict
    // decodes the body again, because the failed attempt changed its object in place.
    let unused: KObject | undefined = incoming;
    return this.guaranteedUpdate(ctx, rt, namespace, name, subresource, p, precondition, false, () => {
      const proposed = unused ?? this.decodeForUpdate(rt, body, namespace, name);
      unused = undefined;
      return proposed;
    });
  }

  /** decodeBody for a PUT: the body's name, when it has one, must be the URL's. */
  private decodeForUpdate(rt: ResourceType, body: unknown, namespace: string | undefined, name: string): KObject {
    const obj = this.decodeBody(rt, body, namespace);
    if (obj.metadata.name && obj.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    obj.metadata.name = name;
    return obj;
  }

  // ---------------------------------------------------------------- patch

  async patch(
    ctx: RequestContext,
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patchBody: unknown,
    subresource: string,
    p: PatchParams,
  ): Promise<{ obj: KObject; created: boolean }> {
    if (type === 'strategic' && rt.source.type === 'crd') {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (strategic merge patch is not supported for custom resources such as ${rt.resource}.${rt.group})`,
      );
    }
    if (type === 'apply') {
      if (!p.fieldManagerGiven) {
        throw errors.badRequest('fieldManager is required for apply requests: set the query parameter fieldManager to the name of the applier');
      }
      if (!isPlainObject(patchBody)) throw errors.badRequest('the applied configuration must be an object');
      return this.serverSideApply(ctx, rt, namespace, name, patchBody, subresource, p);
    }
    if (type === 'json' ? !Array.isArray(patchBody) : !isPlainObject(patchBody)) {
      throw errors.badRequest(type === 'json' ? 'a JSON patch must be an array of operations' : `a ${type} patch must be a JSON object`);
    }
    const precondition = type !== 'json' ? readPatchResourceVersion(patchBody) : undefined;
    const obj = await this.guaranteedUpdate(ctx, rt, namespace, name, subresource, p, precondition, true, (current) => {
      // Every patch function returns a new object and changes neither the stored object nor the patch.
      const patched = applyPatch(type, current, patchBody, rt);
      if (!isPlainObject(patched)) throw errors.badRequest('the patch produced something that is not an object');
      return patched as KObject;
    });
    return { obj, created: false };
  }

  private async serverSideApply(
    ctx: RequestContext,
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    applied: Record<string, unknown>,
    subresource: string,
    p: PatchParams,
  ): Promise<{ obj: KObject; created: boolean }> {
    const appliedObj = applied as KObject;
    const gv = groupVersion(rt);
    if (appliedObj.apiVersion !== gv || appliedObj.kind !== rt.kind) {
      throw errors.badRequest(
        `the applied configuration must have apiVersion ${JSON.stringify(gv)} and kind ${JSON.stringify(rt.kind)} (got ${JSON.stringify(appliedObj.apiVersion)} and ${JSON.stringify(appliedObj.kind)})`,
      );
    }
    if (!isPlainObject(appliedObj.metadata)) throw errors.badRequest('metadata: the applied configuration must have metadata with a name');
    if (appliedObj.metadata.name !== undefined && appliedObj.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${String(appliedObj.metadata.name)}) does not match the name on the URL (${name})`);
    }
    for (let attempt = 0; ; attempt++) {
      const current = await this.objects.get(rt, namespace, name);
      if (!current) {
        if (subresource) throw errors.notFound(rt, name);
        const fresh = { apiVersion: gv, kind: rt.kind, metadata: { name, ...(rt.namespaced ? { namespace } : {}) } } as KObject;
        const result = deps.ssaApply({ rt, live: undefined, applied: appliedObj, manager: p.fieldManager, force: p.force, now: this.now(), subresource });
        const merged = { ...result.object, metadata: { ...result.object.metadata, ...fresh.metadata } } as KObject;
        merged.metadata.managedFields = result.managedFields;
        try {
          const obj = await this.createPrepared(ctx, rt, namespace, merged, p);
          return { obj, created: true };
        } catch (err) {
          if (err instanceof ApiError && err.reason === 'AlreadyExists' && attempt < this.maxRetries) continue;
          throw err;
        }
      }
      try {
        const obj = await this.writeUpdate(
          ctx,
          rt,
          namespace,
          name,
          subresource,
          p,
          current.obj,
          current.kv.modRevision,
          true,
          (live) => {
            // apply merges into a copy of `live` and copies what it takes from `applied`.
            const result = deps.ssaApply({ rt, live, applied: appliedObj, manager: p.fieldManager, force: p.force, now: this.now(), subresource });
            result.object.metadata.managedFields = result.managedFields;
            return result.object;
          },
          true,
        );
        return { obj, created: false };
      } catch (err) {
        if (err instanceof StoreError && err.code === 'conflict' && attempt < this.maxRetries) continue;
        throw mapStoreError(err, rt, name);
      }
    }
  }

  /** Creates an object already merged by apply (its managedFields are set); `obj` is the handler's own. */
  private async createPrepared(ctx: RequestContext, rt: ResourceType, namespace: string | undefined, obj: KObject, p: PatchParams): Promise<KObject> {
    return (await this.createDecoded(ctx, rt, this.decodeBody(rt, obj, namespace, false), p, obj.metadata.managedFields ?? [])).obj();
  }

  // ---------------------------------------------------------------- delete

  async delete(
    ctx: RequestContext,
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    p: DeleteParams,
  ): Promise<{ obj: KObject; deleted: boolean }> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.objects.mustGet(rt, namespace, name);
      const obj = current.obj;
      const meta = obj.metadata;
      if (p.preconditions.uid && p.preconditions.uid !== meta.uid) {
        throw errors.conflict(rt, name, `Precondition failed: UID in precondition: ${p.preconditions.uid}, UID in object meta: ${meta.uid}`);
      }
      if (p.preconditions.resourceVersion && p.preconditions.resourceVersion !== meta.resourceVersion) {
        throw errors.conflict(
          rt,
          name,
          `Precondition failed: ResourceVersion in precondition: ${p.preconditions.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
        );
      }
      await this.admit('DELETE', ctx, rt, undefined, obj, '', p.dryRun);
      await this.admission.validate(this.attrs('DELETE', ctx, rt, undefined, obj, '', p.dryRun));

      // Only metadata (a copy) and, for namespaces, status (a new object) change below.
      const updated = { ...obj, metadata: { ...obj.metadata } } as KObject;
      const finalizers = new Set(updated.metadata.finalizers ?? []);
      if (p.propagationPolicy === 'Orphan') {
        finalizers.add('orphan');
        finalizers.delete('foregroundDeletion');
      } else if (p.propagationPolicy === 'Foreground') {
        finalizers.add('foregroundDeletion');
        finalizers.delete('orphan');
      } else if (p.propagationPolicy === 'Background' && meta.deletionTimestamp) {
        finalizers.delete('orphan');
        finalizers.delete('foregroundDeletion');
      }
      // Orphan/foreground only mean something when the object has dependents; Kubernetes
      // adds the finalizer regardless and lets the garbage collector remove it.
      const pendingNamespaceFinalizers = isNamespaces(rt) && namespaceSpecFinalizers(updated).length > 0;
      const mustWait = finalizers.size > 0 || pendingNamespaceFinalizers;
      try {
        if (!mustWait) {
          if (p.dryRun) return { obj, deleted: true };
          const gone = await this.objects.delete(rt, namespace, name, current.kv.modRevision);
          return { obj: gone, deleted: true };
        }
        updated.metadata.finalizers = [...finalizers];
        if (!updated.metadata.deletionTimestamp) {
          updated.metadata.deletionTimestamp = timestamp(this.now());
          updated.metadata.deletionGracePeriodSeconds = 0;
          if (rt.tracksGeneration) updated.metadata.generation = (updated.metadata.generation ?? 0) + 1;
        }
        if (pendingNamespaceFinalizers) {
          updated.status = { ...(isPlainObject(updated.status) ? updated.status : {}), phase: 'Terminating' };
        }
        if (deepEqual(updated, obj)) return { obj, deleted: false };
        if (p.dryRun) return { obj: updated, deleted: false };
        const saved = await this.objects.update(rt, normalizeKeyOrder(updated), current.kv.modRevision);
        return { obj: saved, deleted: false };
      } catch (err) {
        if (err instanceof StoreError && err.code === 'conflict' && attempt < this.maxRetries && !p.preconditions.resourceVersion) continue;
        if (err instanceof StoreError && err.code === 'not-found') throw errors.notFound(rt, name);
        throw mapStoreError(err, rt, name);
      }
    }
  }

  async deleteCollection(ctx: RequestContext, rt: ResourceType, namespace: string | undefined, lp: ListParams, dp: DeleteParams): Promise<ListResult> {
    const listed = await this.list(rt, namespace, { ...lp, limit: 0, continueToken: '' });
    const deleted: LazyObject[] = [];
    for (const item of listed.items) {
      const o = item.obj();
      try {
        const res = await this.delete(ctx, rt, o.metadata.namespace, o.metadata.name!, dp);
        deleted.push(LazyObject.of(res.obj));
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) continue;
        throw err;
      }
    }
    return { ...listed, items: deleted };
  }

  // ---------------------------------------------------------------- the update loop

  /**
   * Reads the object, applies `mutate`, and writes it back with compare-and-swap, retrying
   * on conflicts unless the caller gave a resourceVersion precondition.
   */
  private async guaranteedUpdate(
    ctx: RequestContext,
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    subresource: string,
    p: WriteParams,
    precondition: string | undefined,
    isPatch: boolean,
    mutate: Mutator,
  ): Promise<KObject> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.objects.mustGet(rt, namespace, name);
      if (precondition && precondition !== current.obj.metadata.resourceVersion) {
        throw errors.conflict(rt, name, CONFLICT_MESSAGE);
      }
      try {
        return await this.writeUpdate(ctx, rt, namespace, name, subresource, p, current.obj, current.kv.modRevision, isPatch, mutate, false);
      } catch (err) {
        if (err instanceof StoreError && err.code === 'conflict') {
          if (precondition || attempt >= this.maxRetries) throw errors.conflict(rt, name, CONFLICT_MESSAGE);
          continue;
        }
        if (err instanceof StoreError && err.code === 'not-found') throw errors.notFound(rt, name);
        throw mapStoreError(err, rt, name);
      }
    }
  }

  private async writeUpdate(
    ctx: RequestContext,
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    subresource: string,
    p: WriteParams,
    old: KObject,
    oldRevision: number,
    isPatch: boolean,
    mutate: Mutator,
    managedByApply: boolean,
  ): Promise<KObject> {
    const proposed = await mutate(old);
    if (!isPlainObject(proposed.metadata)) throw errors.badRequest('metadata: must be an object');
    const gv = groupVersion(rt);
    if (isPatch) {
      if (proposed.apiVersion !== gv || proposed.kind !== rt.kind) {
        throw errors.badRequest(`a patch may not change apiVersion or kind (want ${gv} ${rt.kind})`);
      }
    }
    if (proposed.metadata.name !== name) {
      throw errors.invalid(rt.kind, rt.group, name, [{ reason: 'FieldValueInvalid', message: 'field is immutable', field: 'metadata.name' }]);
    }
    const next = this.mergeForSubresource(rt, subresource, old, proposed);
    const m = next.metadata;
    // System fields carry over from the stored object.
    m.uid = old.metadata.uid;
    m.creationTimestamp = old.metadata.creationTimestamp;
    if (old.metadata.deletionTimestamp) {
      m.deletionTimestamp = old.metadata.deletionTimestamp;
      m.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    } else {
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
    }
    if (rt.namespaced) m.namespace = namespace;
    else delete m.namespace;
    m.resourceVersion = old.metadata.resourceVersion;
    if (!subresource) rt.strategy.prepareForUpdate?.(next, old);

    this.applySchema(ctx, rt, next, p.fieldValidation, subresource, old);
    if (rt.tracksGeneration) {
      m.generation = old.metadata.generation ?? 1;
      if (specChanged(old, next)) m.generation++;
    } else delete m.generation;
    const mutating = this.attrs('UPDATE', ctx, rt, next, old, subresource, p.dryRun);
    if (this.admission.mutates(mutating)) {
      // A mutating plugin may change nested values in place: give it nothing it shares with `old`.
      // (`m` stays this write's own metadata object; only what it holds is copied.)
      for (const k of Object.keys(next)) if (k !== 'metadata' && next[k] !== null && typeof next[k] === 'object') next[k] = deepCopy(next[k]);
      for (const [k, v] of Object.entries(m)) if (v !== null && typeof v === 'object') (m as Record<string, unknown>)[k] = deepCopy(v);
    }
    await this.admission.admit(mutating);
    this.validate(rt, next, old, subresource);
    await this.admission.validate(this.attrs('UPDATE', ctx, rt, next, old, subresource, p.dryRun));
    if (!managedByApply) {
      const explicitReset = Array.isArray(proposed.metadata.managedFields) && proposed.metadata.managedFields.length === 0 && !isPatch;
      m.managedFields = explicitReset ? [] : deps.trackUpdate({ rt, old, updated: next, manager: p.fieldManager, now: this.now(), subresource });
    }
    if (m.managedFields && m.managedFields.length === 0) delete m.managedFields;

    const final = normalizeKeyOrder(next);
    const finalizersDone = deletionFinished(final, isNamespaces(rt));
    if (!finalizersDone && !specChanged(old, final) && deepEqual(old.status, final.status) && sameMetadataForNoop(old, final)) {
      return old; // nothing changed: no write, no event, same resourceVersion
    }
    if (p.dryRun) return final;
    if (finalizersDone) {
      // The last finalizer is gone from an object being deleted: it goes now, in one store
      // write — a delete conditioned on the revision that still had the finalizer — so no
      // crash can leave it stored with a deletionTimestamp and nothing to remove it. As in
      // Kubernetes, watchers see one DELETED event carrying the last stored state; the
      // caller gets the object it asked for, at the revision of the delete.
      crashPoint('apiserver.finalize-delete');
      const gone = await this.objects.store.delete(this.objects.key(rt, namespace, name), oldRevision);
      final.metadata.resourceVersion = String(gone.modRevision);
      return final;
    }
    return this.objects.update(rt, final, oldRevision);
  }

  /**
   * Applies the status-subresource rules: each side may change only its own part.
   *
   * The result is the object the write goes on to change in place. It shares with `old`
   * whatever `proposed` may not change (spec for status, status for the main resource, and
   * metadata's values for subresources): the write only assigns metadata fields of its own
   * copy of metadata, and applySchema copies a shared part before it would change it.
   */
  private mergeForSubresource(rt: ResourceType, subresource: string, old: KObject, proposed: KObject): KObject {
    if (subresource === 'status') {
      const next = { ...old, metadata: { ...old.metadata } } as KObject;
      if (proposed.status === undefined) delete next.status;
      else next.status = proposed.status;
      next.metadata.managedFields = proposed.metadata.managedFields ?? old.metadata.managedFields;
      return next;
    }
    if (subresource === 'finalize') {
      const next = { ...old, metadata: { ...old.metadata } } as KObject;
      const spec = isPlainObject(proposed.spec) ? proposed.spec : {};
      // A new spec object whose other values are old's would escape applySchema's check (it
      // compares top-level values): copy them. Only namespaces have /finalize; their spec is small.
      next.spec = { ...deepCopy(isPlainObject(old.spec) ? old.spec : {}), finalizers: spec.finalizers ?? [] };
      return next;
    }
    if (subresource) throw errors.pathNotFound(`${rt.resource}/${subresource}`);
    const next = { ...proposed, metadata: { ...proposed.metadata } } as KObject;
    if (rt.subresources.status) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    return next;
  }

  // ---------------------------------------------------------------- shared steps

  /**
   * Checks apiVersion/kind/namespace of a request body and returns it normalised: a copy,
   * since the write changes it in place and a loopback caller keeps its object, unless `copy`
   * is false (a body the handler built itself).
   */
  private decodeBody(rt: ResourceType, body: unknown, namespace: string | undefined, copy = true): KObject {
    if (!isPlainObject(body)) throw errors.badRequest(`the request body must be a ${rt.kind} object`);
    const obj = (copy ? deepCopy(body) : body) as KObject;
    const gv = groupVersion(rt);
    if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = gv;
    if (obj.kind === undefined || obj.kind === '') obj.kind = rt.kind;
    if (typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') {
      throw errors.badRequest('apiVersion and kind must be strings');
    }
    if (obj.kind !== rt.kind || parseApiVersion(obj.apiVersion).group !== rt.group) {
      throw errors.badRequest(`the object provided is ${obj.apiVersion}, Kind=${obj.kind}, but this endpoint serves ${gv}, Kind=${rt.kind}`);
    }
    obj.apiVersion = gv;
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    if (!isPlainObject(obj.metadata)) {
      throw errors.invalid(rt.kind, rt.group, '', [{ reason: 'FieldValueInvalid', message: 'Invalid value: must be an object', field: 'metadata' }]);
    }
    const meta = obj.metadata;
    if (rt.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw errors.badRequest(
          `the namespace of the provided object (${typeof meta.namespace === 'string' ? meta.namespace : JSON.stringify(meta.namespace)}) does not match the namespace sent on the request (${namespace})`,
        );
      }
      meta.namespace = namespace ?? meta.namespace;
      if (!meta.namespace) throw errors.badRequest('a namespace is required for namespaced resources');
    } else {
      delete meta.namespace;
    }
    return obj;
  }

  /**
   * Defaulting, pruning and unknown-field reporting per fieldValidation. On an update, `old`
   * is the stored object: a top-level value `obj` shares with it is copied first when
   * pruning or defaulting could change it (the stored object must stay as it was).
   */
  private applySchema(ctx: RequestContext, rt: ResourceType, obj: KObject, validation: 'Strict' | 'Warn' | 'Ignore', subresource: string, old?: KObject): void {
    const schema = deps.compiledSchemaFor(rt);
    const unknown = schema.unknownFields(obj);
    if (unknown.length > 0 && validation === 'Strict' && subresource === '') {
      const list = unknown.map((f) => `unknown field "${f}"`);
      throw errors.badRequest(
        `strict decoding error: ${list.join(', ')}`,
        unknown.map((f) => ({ reason: 'FieldValueNotFound', message: `unknown field "${f}"`, field: f })),
      );
    }
    if (old) unshareForSchema(rt, obj, old, unknown);
    if (unknown.length > 0) {
      if (validation === 'Warn') for (const f of unknown) ctx.warnings.push(`unknown field "${f}"`);
      schema.prune(obj);
    }
    schema.applyDefaults(obj);
    // A default may bring in fields the schema does not declare (an object default).
    schema.prune(obj);
  }

  private validate(rt: ResourceType, obj: KObject, old: KObject | undefined, subresource: string): void {
    const causes: StatusCause[] = [];
    causes.push(...deps.validateObjectMeta(obj, rt));
    if (old) {
      causes.push(...deps.validateObjectMetaUpdate(obj, old));
      if (old.metadata.deletionTimestamp) {
        const before = new Set(old.metadata.finalizers ?? []);
        const added = (obj.metadata.finalizers ?? []).filter((f) => !before.has(f));
        if (added.length > 0) {
          causes.push({
            reason: 'FieldValueForbidden',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
            field: 'metadata.finalizers',
          });
        }
      }
    }
    causes.push(...deps.compiledSchemaFor(rt).validate(obj, old));
    const sv = rt.strategy.validate?.(obj, { operation: old ? 'update' : 'create', old, subresource });
    if (sv) causes.push(...sv);
    if (causes.length > 0) throw errors.invalid(rt.kind, rt.group, obj.metadata.name ?? '', causes);
  }

  private attrs(
    op: AdmissionOperation,
    ctx: RequestContext,
    rt: ResourceType,
    obj: KObject | undefined,
    old: KObject | undefined,
    subresource: string,
    dryRun: boolean,
  ) {
    const meta = (obj ?? old)!.metadata;
    return { operation: op, rt, namespace: meta.namespace, name: meta.name ?? '', subresource, object: obj, oldObject: old, dryRun, ctx };
  }

  private async admit(
    op: AdmissionOperation,
    ctx: RequestContext,
    rt: ResourceType,
    obj: KObject | undefined,
    old: KObject | undefined,
    subresource: string,
    dryRun: boolean,
  ): Promise<void> {
    await this.admission.admit(this.attrs(op, ctx, rt, obj, old, subresource, dryRun));
  }
}

const RESOURCE_META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Replaces each top-level value `obj` shares with `old` by a copy when applySchema could
 * change it: when pruning removes something under it (`unknown` holds the paths prune will
 * remove) or when defaulting could fill or drop something in it. apiVersion, kind and
 * metadata are left alone: the schema never touches them at the root.
 */
function unshareForSchema(rt: ResourceType, obj: KObject, old: KObject, unknown: readonly string[]): void {
  const props = isPlainObject(rt.schema.properties) ? rt.schema.properties : undefined;
  const additional = schemaOrUndefined(rt.schema.additionalProperties);
  for (const k of Object.keys(obj)) {
    if (RESOURCE_META_FIELDS.has(k)) continue;
    const v = obj[k];
    if (v === null || typeof v !== 'object' || v !== old[k]) continue;
    const pruned = unknown.some((p) => p === k || p.startsWith(`${k}.`) || p.startsWith(`${k}[`));
    const fieldSchema = childSchema(props, additional, k);
    if (pruned || defaultingMayChange(fieldSchema, v, 0)) obj[k] = deepCopy(v);
  }
}

function schemaOrUndefined(s: unknown): JSONSchemaProps | undefined {
  return isPlainObject(s) ? s : undefined;
}

/** The schema of field `k`: its declared property, else the map-value schema (as the schema engine picks it). */
function childSchema(props: Record<string, unknown> | undefined, additional: JSONSchemaProps | undefined, k: string): JSONSchemaProps | undefined {
  return (props && Object.prototype.hasOwnProperty.call(props, k) ? schemaOrUndefined(props[k]) : undefined) ?? additional;
}

/**
 * True when defaulting (dropping nulls, filling declared defaults) could change `v`, whose
 * schema is `s`: `v` holds a null that has a schema, or an object in it lacks a property
 * that declares a default. It may answer true where defaulting changes nothing (a nullable
 * null); it never answers false where defaulting changes something.
 */
function defaultingMayChange(s: JSONSchemaProps | undefined, v: unknown, depth: number): boolean {
  if (s === undefined) return false; // defaulting does not go below a value without a schema
  if (v === null) return true;
  if (typeof v !== 'object') return false;
  if (depth > 200) return true;
  if (Array.isArray(v)) {
    const items = schemaOrUndefined(s.items);
    for (const item of v) if (defaultingMayChange(items, item, depth + 1)) return true;
    return false;
  }
  const obj = v as Record<string, unknown>;
  const props = isPlainObject(s.properties) ? s.properties : undefined;
  if (props) {
    for (const name of Object.keys(props)) {
      const p = schemaOrUndefined(props[name]);
      if (p && p.default !== undefined && !Object.prototype.hasOwnProperty.call(obj, name)) return true;
    }
  }
  const additional = schemaOrUndefined(s.additionalProperties);
  for (const k of Object.keys(obj)) {
    if (defaultingMayChange(childSchema(props, additional, k), obj[k], depth + 1)) return true;
  }
  return false;
}

function isNamespaces(rt: ResourceType): boolean {
  return rt.group === '' && rt.resource === 'namespaces';
}

function readPatchResourceVersion(patch: unknown): string | undefined {
  if (!isPlainObject(patch) || !isPlainObject(patch.metadata)) return undefined;
  const rv = patch.metadata.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

function applyPatch(type: PatchType, current: KObject, patch: unknown, rt: ResourceType): unknown {
  switch (type) {
    case 'merge':
      return deps.applyMergePatch(current, patch);
    case 'json':
      return deps.applyJsonPatch(current, patch);
    case 'strategic':
      return deps.applyStrategicMergePatch(current, patch, rt.schema);
    case 'apply':
      throw new Error('apply patches go through serverSideApply');
  }
}

/** The field-selector fields an object offers (metadata.name, metadata.namespace and the kind's own). */
export function fieldsOf(rt: ResourceType, obj: KObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
  if (rt.namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
  const extra = rt.strategy.selectableFields?.(obj);
  if (extra) Object.assign(fields, extra);
  return fields;
}

const supportedCache = new WeakMap<ResourceType, Set<string>>();

/** The field names usable in a field selector for `rt`. */
export function supportedFields(rt: ResourceType): Set<string> {
  let s = supportedCache.get(rt);
  if (!s) {
    s = new Set(['metadata.name', 'metadata.namespace']);
    try {
      const probe = { apiVersion: groupVersion(rt), kind: rt.kind, metadata: { name: '', namespace: '' } } as KObject;
      for (const k of Object.keys(rt.strategy.selectableFields?.(probe) ?? {})) s.add(k);
    } catch {
      // a strategy that cannot describe an empty object offers no extra fields
    }
    supportedCache.set(rt, s);
  }
  return s;
}
