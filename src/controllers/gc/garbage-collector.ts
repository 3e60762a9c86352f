/**
 * A GarbageCollector deletes objects whose owners are gone and carries out the three
 * propagation policies of a delete:
 * - Background: the owner goes at once; its dependents are deleted afterwards.
 * - Foreground: the owner waits (finalizer `foregroundDeletion`) until its dependents that
 *   block owner deletion are gone; the dependents are deleted in the foreground too.
 * - Orphan: the owner waits (finalizer `orphan`) while its dependents lose their reference
 *   to it; they are kept.
 *
 * It keeps only what it needs in memory: the ownership graph of objects that have owners
 * (compact, see OwnerGraph), the identity of objects being deleted with a GC finalizer, and
 * the uids of owners a read found present.
 */
import type { ControllerMetrics } from '../metrics.js';
import type { Logger } from 'pino';
import type { Client, ResourceRef } from '../../client/types.js';
import { WorkQueue } from '../../client/work-queue.js';
import { isApiError } from '../../machinery/errors.js';
import type { KObject, ObjectMeta } from '../../machinery/object.js';
import { refOf, resolveKind, uniqueResources, type ResourceCatalog } from '../catalog.js';
import type { ProcessCaches } from '../process-caches.js';
import { MetadataReflector, type MetadataEvent } from './metadata-reflector.js';
import { OwnerGraph, ownersOf, sameOwners, type Dependent, type OwnerLink } from './owner-graph.js';

/** Where an object is. */
interface Located {
  ref: ResourceRef;
  namespace: string | undefined;
  name: string;
}

const ORPHAN = 'orphan';
/** How many deleted uids are remembered (a read races a deletion by moments, not thousands of deletions). */
const RECENTLY_GONE_KEPT = 4096;
const FOREGROUND = 'foregroundDeletion';

export class GarbageCollector {
  private readonly reflectors = new Map<string, MetadataReflector>();
  /** Objects with ownerReferences, and the dependents of each owner. */
  private readonly graph = new OwnerGraph();
  /** Objects being deleted with a GC finalizer, by uid. */
  private readonly deleting = new Map<string, Located>();
  /**
   * Owners a read found present and whose deletion has not been seen since: resource → uid →
   * the relist it was last seen in (one a relist does not report again was deleted unseen).
   * Their other dependents need no read of them.
   */
  private readonly knownOwners = new Map<string, Map<string, number>>();
  /** The uids of the last objects seen deleted, so a read that raced a deletion is not trusted. */
  private readonly recentlyGone = new Set<string>();
  /** The current relist of each resource. */
  private readonly epochs = new Map<string, number>();
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly client: Client,
    private readonly catalog: ResourceCatalog,
    private readonly log: Logger,
    metrics?: ControllerMetrics,
    /** Informers of other controllers of this process, where an owner is looked up before asking the API. */
    private readonly caches?: ProcessCaches,
  ) {
    this.queue = new WorkQueue({ name: 'garbage-collector', qps: 1000, burst: 2000, metrics: metrics?.queues });
  }

  start(): void {
    this.syncReflectors();
    this.unsubscribe = this.catalog.onChange(() => this.syncReflectors());
    void this.queue.runWorkers(2, (key) => this.process(key), {
      onError: (key, err) => this.log.debug({ key, err: String(err) }, 'garbage collection step failed; retrying'),
    });
  }

  stop(): void {
    this.unsubscribe?.();
    for (const r of this.reflectors.values()) r.stop();
    this.queue.shutDown();
  }

  private allSynced(): boolean {
    for (const r of this.reflectors.values()) if (!r.hasSynced()) return false;
    return true;
  }

  private syncReflectors(): void {
    const wanted = new Map(uniqueResources(this.catalog, ['list', 'watch', 'delete']).map((e) => [`${e.group}/${e.resource}`, e]));
    for (const [key, r] of this.reflectors) {
      if (!wanted.has(key)) {
        r.stop();
        this.reflectors.delete(key);
      }
    }
    for (const [key, e] of wanted) {
      if (this.reflectors.has(key)) continue;
      const r = new MetadataReflector(this.client, refOf(e), {
        onEvent: (t, ref, meta) => this.observe(t, ref, meta),
        // A new object without owners that is not being deleted changes nothing here (observe
        // would find no links and no deletion, and its uid can be in no map yet): most creates.
        skipAdded: createdWithoutOwners,
        onRelist: (ref) => this.epochs.set(resourceKey(ref), (this.epochs.get(resourceKey(ref)) ?? 0) + 1),
        onResync: (ref) => this.dropUnlisted(ref),
      });
      this.reflectors.set(key, r);
      r.start();
    }
  }

  private observe(type: MetadataEvent, ref: ResourceRef, meta: ObjectMeta): void {
    const uid = meta.uid;
    if (!uid) return;
    const ownerRefs = meta.ownerReferences ?? [];
    const resource = resourceKey(ref);
    if (type === 'DELETED') {
      this.knownOwners.get(resource)?.delete(uid);
      this.recentlyGone.add(uid);
      if (this.recentlyGone.size > RECENTLY_GONE_KEPT) this.recentlyGone.delete(this.recentlyGone.values().next().value as string);
      this.graph.delete(uid);
      this.deleting.delete(uid);
      // Its dependents may now be orphans; its owners may be waiting for it.
      for (const dep of this.graph.dependentsOf(uid)) this.queue.add(`dependent/${dep}`);
      for (const o of ownerRefs) if (this.deleting.has(o.uid)) this.queue.add(`owner/${o.uid}`);
      return;
    }
    const known = this.knownOwners.get(resource);
    if (known?.has(uid)) known.set(uid, this.epochs.get(resource) ?? 0);
    const before = this.graph.get(uid);
    const owners = this.graph.linksOf(ownerRefs);
    if (owners) {
      this.graph.set(uid, { ref, namespace: meta.namespace, name: meta.name ?? '', owners });
      if (!before || !sameOwners(before.owners, owners)) this.queue.add(`dependent/${uid}`);
    } else if (before) {
      this.graph.delete(uid);
    }
    const fin = meta.finalizers ?? [];
    if (meta.deletionTimestamp && (fin.includes(ORPHAN) || fin.includes(FOREGROUND))) {
      this.deleting.set(uid, { ref, namespace: meta.namespace, name: meta.name ?? '' });
      this.queue.add(`owner/${uid}`);
    } else {
      this.deleting.delete(uid);
    }
    // A dependent that itself is being deleted changes what a foreground owner waits for.
    if (meta.deletionTimestamp) for (const o of ownerRefs) if (this.deleting.has(o.uid)) this.queue.add(`owner/${o.uid}`);
  }

  /** After a relist: objects of `ref` it did not report were deleted while nobody watched. */
  private dropUnlisted(ref: ResourceRef): void {
    const resource = resourceKey(ref);
    const epoch = this.epochs.get(resource) ?? 0;
    const known = this.knownOwners.get(resource);
    if (!known) return;
    for (const [uid, seenIn] of known) {
      if (seenIn >= epoch) continue;
      known.delete(uid);
      for (const dep of this.graph.dependentsOf(uid)) this.queue.add(`dependent/${dep}`);
    }
  }

  private async process(key: string): Promise<{ requeueAfterMs?: number } | void> {
    if (!this.allSynced()) return { requeueAfterMs: 200 };
    const slash = key.indexOf('/');
    const kind = key.slice(0, slash);
    const uid = key.slice(slash + 1);
    if (kind === 'dependent') return this.processDependent(uid);
    return this.processOwner(uid);
  }

  /** Looks an owner up by reference; undefined when it does not exist (with that uid). */
  private async ownerState(dep: Dependent, o: OwnerLink): Promise<'absent' | 'present' | 'waiting'> {
    const entry = resolveKind(this.catalog, o.type.apiVersion, o.type.kind);
    if (!entry) return 'absent';
    const ref = refOf(entry);
    const resource = resourceKey(ref);
    // An owner found present before, and not seen deleted or being deleted since, is still there
    // (uids are never reused); should its deletion be on its way, that event enqueues this
    // dependent again.
    if (this.knownOwners.get(resource)?.has(o.uid) && !this.deleting.has(o.uid)) return 'present';
    const namespace = entry.namespaced ? dep.namespace : undefined;
    // An informer of another controller that holds the owner, with this uid, answers without a
    // read — unless this collector saw that uid deleted or being deleted (the informer may not
    // have yet). One
    // that does not hold it (not watched, not synced, or behind) says nothing: the API is asked.
    const cached = this.caches?.get(ref, namespace, o.name);
    if (cached && cached.metadata.uid === o.uid && !this.recentlyGone.has(o.uid) && !this.deleting.has(o.uid))
      return foregroundWaiting(cached) ? 'waiting' : 'present';
    try {
      const owner = await this.client.get<KObject>(ref, o.name, namespace);
      if (owner.metadata.uid !== o.uid) return 'absent';
      if (foregroundWaiting(owner)) return 'waiting';
      if (!owner.metadata.deletionTimestamp && !this.recentlyGone.has(o.uid)) {
        let known = this.knownOwners.get(resource);
        if (!known) this.knownOwners.set(resource, (known = new Map<string, number>()));
        known.set(ownString(o.uid), this.epochs.get(resource) ?? 0);
      }
      return 'present';
    } catch (err) {
      if (isApiError(err) && err.code === 404) return 'absent';
      throw err;
    }
  }

  private async processDependent(uid: string): Promise<void> {
    const dep = this.graph.get(uid);
    if (!dep) return;
    const owners = ownersOf(dep);
    const states = await Promise.all(owners.map((o) => this.ownerState(dep, o)));
    const solid = owners.filter((_, i) => states[i] === 'present');
    const gone = owners.filter((_, i) => states[i] !== 'present');
    if (gone.length === 0) return;
    const ns = dep.ref.namespaced ? dep.namespace : undefined;
    try {
      if (solid.length > 0) {
        // Some owners remain: only drop the references to the missing or departing ones.
        const current = await this.client.get<KObject>(dep.ref, dep.name, ns);
        if (current.metadata.uid !== uid) return;
        const goneUids = new Set(gone.map((o) => o.uid));
        const keep = (current.metadata.ownerReferences ?? []).filter((o) => !goneUids.has(o.uid));
        await this.client.patch(
          dep.ref,
          dep.name,
          'merge',
          { metadata: { ownerReferences: keep, resourceVersion: current.metadata.resourceVersion } },
          { namespace: ns, fieldManager: 'conductor-garbage-collector' },
        );
        return;
      }
      const foreground = states.includes('waiting');
      this.log.debug({ kind: dep.ref.kind, namespace: ns, name: dep.name }, 'deleting an object whose owners are gone');
      await this.client.delete(dep.ref, dep.name, { namespace: ns, propagationPolicy: foreground ? 'Foreground' : 'Background', preconditions: { uid } });
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || (err.code === 409 && /UID in precondition/.test(err.message)))) return;
      throw err;
    }
  }

  private async processOwner(uid: string): Promise<{ requeueAfterMs?: number } | void> {
    const owner = this.deleting.get(uid);
    if (!owner) return;
    const ns = owner.ref.namespaced ? owner.namespace : undefined;
    let current: KObject;
    try {
      current = await this.client.get<KObject>(owner.ref, owner.name, ns);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
    if (current.metadata.uid !== uid || !current.metadata.deletionTimestamp) return;
    const fin = current.metadata.finalizers ?? [];
    const deps = this.graph.dependentsOf(uid).flatMap((d) => {
      const dep = this.graph.get(d);
      return dep ? [[d, dep] as const] : [];
    });
    if (fin.includes(ORPHAN)) {
      for (const [depUid, dep] of deps) {
        const depNs = dep.ref.namespaced ? dep.namespace : undefined;
        try {
          const d = await this.client.get<KObject>(dep.ref, dep.name, depNs);
          if (d.metadata.uid !== depUid) continue;
          const keep = (d.metadata.ownerReferences ?? []).filter((o) => o.uid !== uid);
          await this.client.patch(
            dep.ref,
            dep.name,
            'merge',
            { metadata: { ownerReferences: keep.length ? keep : null, resourceVersion: d.metadata.resourceVersion } },
            { namespace: depNs, fieldManager: 'conductor-garbage-collector' },
          );
        } catch (err) {
          if (!(isApiError(err) && err.code === 404)) throw err;
        }
      }
      await this.removeFinalizer(owner, current, ORPHAN);
      return;
    }
    if (fin.includes(FOREGROUND)) {
      let blocking = 0;
      for (const [depUid, dep] of deps) {
        if (ownersOf(dep).some((o) => o.uid === uid && o.blocking)) blocking++;
        this.queue.add(`dependent/${depUid}`);
      }
      if (blocking > 0) return { requeueAfterMs: 1000 };
      await this.removeFinalizer(owner, current, FOREGROUND);
    }
  }

  private async removeFinalizer(owner: Located, current: KObject, finalizer: string): Promise<void> {
    const ns = owner.ref.namespaced ? owner.namespace : undefined;
    const rest = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    try {
      await this.client.patch(
        owner.ref,
        owner.name,
        'merge',
        { metadata: { finalizers: rest.length ? rest : null, resourceVersion: current.metadata.resourceVersion } },
        { namespace: ns, fieldManager: 'conductor-garbage-collector' },
      );
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
  }
}

function resourceKey(ref: ResourceRef): string {
  return `${ref.group}/${ref.resource}`;
}

/**
 * ownString copies a string taken from a parsed object. V8 may keep a string parsed from JSON
 * as a slice of the whole JSON text, so keeping only the uid could keep the entire object's
 * text alive.
 */
function ownString(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/**
 * createdWithoutOwners says of an ADDED object's JSON text that it has no ownerReferences and
 * no deletionTimestamp (a text that merely contains those words is parsed and observed).
 */
export function createdWithoutOwners(json: string): boolean {
  return !json.includes('"ownerReferences"') && !json.includes('"deletionTimestamp"');
}

/** foregroundWaiting says whether `owner` is being deleted in the foreground (it waits for its blocking dependents). */
function foregroundWaiting(owner: KObject): boolean {
  return owner.metadata.deletionTimestamp !== undefined && (owner.metadata.finalizers ?? []).includes(FOREGROUND);
}
