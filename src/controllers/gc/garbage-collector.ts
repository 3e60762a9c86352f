/**
 * A GarbageCollector deletes objects whose owners are gone and carries out the three
 * propagation policies of a delete:
 * - Background: the owner goes at once; its dependents are deleted afterwards.
 * - Foreground: the owner waits (finalizer `foregroundDeletion`) until its dependents that
 *   block owner deletion are gone; the dependents are deleted in the foreground too.
 * - Orphan: the owner waits (finalizer `orphan`) while its dependents lose their reference
 *   to it; they are kept.
 *
 * It keeps only what it needs in memory: the ownerReferences of objects that have some,
 * and the identity of objects being deleted with a GC finalizer.
 */
import type { Logger } from 'pino';
import type { Client, ResourceRef } from '../../client/types.js';
import { WorkQueue } from '../../client/work-queue.js';
import { isApiError } from '../../machinery/errors.js';
import type { KObject, ObjectMeta, OwnerReference } from '../../machinery/object.js';
import { refOf, resolveKind, uniqueResources, type ResourceCatalog } from '../catalog.js';
import { MetadataReflector, type MetadataEvent } from './metadata-reflector.js';

interface Node {
  ref: ResourceRef;
  namespace: string | undefined;
  name: string;
  owners: OwnerReference[];
}

const ORPHAN = 'orphan';
/** How many deleted uids are remembered (a read races a deletion by moments, not thousands of deletions). */
const RECENTLY_GONE_KEPT = 4096;
const FOREGROUND = 'foregroundDeletion';

export class GarbageCollector {
  private readonly reflectors = new Map<string, MetadataReflector>();
  /** Objects with ownerReferences, by uid. */
  private readonly dependents = new Map<string, Node>();
  /** owner uid → dependent uids. */
  private readonly byOwner = new Map<string, Set<string>>();
  /** Objects being deleted with a GC finalizer, by uid. */
  private readonly deleting = new Map<string, Node>();
  /**
   * Owners a read found present and whose deletion has not been seen since: uid → its
   * resource and the relist it was last seen in (one a relist does not report again was
   * deleted unseen). Their other dependents need no read of them.
   */
  private readonly knownOwners = new Map<string, { resource: string; epoch: number }>();
  /** The uids of the last objects seen deleted, so a read that raced a deletion is not trusted. */
  private readonly recentlyGone = new Set<string>();
  /** The current relist of each resource. */
  private readonly epochs = new Map<string, number>();
  private readonly queue = new WorkQueue({ name: 'garbage-collector', qps: 1000, burst: 2000 });
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly client: Client,
    private readonly catalog: ResourceCatalog,
    private readonly log: Logger,
  ) {}

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
    const node: Node = { ref, namespace: meta.namespace, name: meta.name ?? '', owners: meta.ownerReferences ?? [] };
    if (type === 'DELETED') {
      this.knownOwners.delete(uid);
      this.recentlyGone.add(uid);
      if (this.recentlyGone.size > RECENTLY_GONE_KEPT) this.recentlyGone.delete(this.recentlyGone.values().next().value as string);
      this.forget(uid);
      this.deleting.delete(uid);
      // Its dependents may now be orphans; its owners may be waiting for it.
      for (const dep of this.byOwner.get(uid) ?? []) this.queue.add(`dependent/${dep}`);
      for (const o of node.owners) if (this.deleting.has(o.uid)) this.queue.add(`owner/${o.uid}`);
      return;
    }
    const known = this.knownOwners.get(uid);
    if (known) known.epoch = this.epochs.get(known.resource) ?? 0;
    const before = this.dependents.get(uid);
    if (node.owners.length > 0) {
      this.track(uid, node);
      if (!before || JSON.stringify(before.owners) !== JSON.stringify(node.owners)) this.queue.add(`dependent/${uid}`);
    } else if (before) {
      this.forget(uid);
    }
    const fin = meta.finalizers ?? [];
    if (meta.deletionTimestamp && (fin.includes(ORPHAN) || fin.includes(FOREGROUND))) {
      this.deleting.set(uid, node);
      this.queue.add(`owner/${uid}`);
    } else {
      this.deleting.delete(uid);
    }
    // A dependent that itself is being deleted changes what a foreground owner waits for.
    if (meta.deletionTimestamp) for (const o of node.owners) if (this.deleting.has(o.uid)) this.queue.add(`owner/${o.uid}`);
  }

  /** After a relist: objects of `ref` it did not report were deleted while nobody watched. */
  private dropUnlisted(ref: ResourceRef): void {
    const resource = resourceKey(ref);
    const epoch = this.epochs.get(resource) ?? 0;
    for (const [uid, seen] of this.knownOwners) {
      if (seen.resource !== resource || seen.epoch >= epoch) continue;
      this.knownOwners.delete(uid);
      for (const dep of this.byOwner.get(uid) ?? []) this.queue.add(`dependent/${dep}`);
    }
  }

  private track(uid: string, node: Node): void {
    this.forget(uid);
    this.dependents.set(uid, node);
    for (const o of node.owners) {
      let set = this.byOwner.get(o.uid);
      if (!set) this.byOwner.set(o.uid, (set = new Set()));
      set.add(uid);
    }
  }

  private forget(uid: string): void {
    const old = this.dependents.get(uid);
    if (!old) return;
    this.dependents.delete(uid);
    for (const o of old.owners) {
      const set = this.byOwner.get(o.uid);
      set?.delete(uid);
      if (set && set.size === 0) this.byOwner.delete(o.uid);
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
  private async ownerState(dep: Node, o: OwnerReference): Promise<'absent' | 'present' | 'waiting'> {
    const entry = resolveKind(this.catalog, o.apiVersion, o.kind);
    if (!entry) return 'absent';
    // An owner found present before, and not seen deleted or being deleted since, is still there
    // (uids are never reused); should its deletion be on its way, that event enqueues this
    // dependent again.
    if (this.knownOwners.has(o.uid) && !this.deleting.has(o.uid)) return 'present';
    try {
      const ref = refOf(entry);
      const owner = await this.client.get<KObject>(ref, o.name, entry.namespaced ? dep.namespace : undefined);
      if (owner.metadata.uid !== o.uid) return 'absent';
      if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND)) return 'waiting';
      if (!owner.metadata.deletionTimestamp && !this.recentlyGone.has(o.uid)) {
        const resource = resourceKey(ref);
        this.knownOwners.set(ownString(o.uid), { resource, epoch: this.epochs.get(resource) ?? 0 });
      }
      return 'present';
    } catch (err) {
      if (isApiError(err) && err.code === 404) return 'absent';
      throw err;
    }
  }

  private async processDependent(uid: string): Promise<void> {
    const dep = this.dependents.get(uid);
    if (!dep) return;
    const states = await Promise.all(dep.owners.map((o) => this.ownerState(dep, o)));
    const solid = dep.owners.filter((_, i) => states[i] === 'present');
    const gone = dep.owners.filter((_, i) => states[i] !== 'present');
    if (gone.length === 0) return;
    const ns = dep.ref.namespaced ? dep.namespace : undefined;
    try {
      if (solid.length > 0) {
        // Some owners remain: only drop the references to the missing or departing ones.
        const current = await this.client.get<KObject>(dep.ref, dep.name, ns);
        if (current.metadata.uid !== uid) return;
        const goneUids = new Set(gone.map((o) => o.uid));
        const keep = (current.metadata.ownerReferences ?? []).filter((o) => !goneUids.has(o.uid));
        await this.client.patch(dep.ref, dep.name, 'merge', { metadata: { ownerReferences: keep, resourceVersion: current.metadata.resourceVersion } }, { namespace: ns, fieldManager: 'conductor-garbage-collector' });
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
    const deps = [...(this.byOwner.get(uid) ?? [])].map((d) => [d, this.dependents.get(d)!] as const).filter(([, n]) => n);
    if (fin.includes(ORPHAN)) {
      for (const [depUid, dep] of deps) {
        const depNs = dep.ref.namespaced ? dep.namespace : undefined;
        try {
          const d = await this.client.get<KObject>(dep.ref, dep.name, depNs);
          if (d.metadata.uid !== depUid) continue;
          const keep = (d.metadata.ownerReferences ?? []).filter((o) => o.uid !== uid);
          await this.client.patch(dep.ref, dep.name, 'merge', { metadata: { ownerReferences: keep.length ? keep : null, resourceVersion: d.metadata.resourceVersion } }, { namespace: depNs, fieldManager: 'conductor-garbage-collector' });
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
        const ref = dep.owners.find((o) => o.uid === uid);
        if (ref?.blockOwnerDeletion) blocking++;
        this.queue.add(`dependent/${depUid}`);
      }
      if (blocking > 0) return { requeueAfterMs: 1000 };
      await this.removeFinalizer(owner, current, FOREGROUND);
    }
  }

  private async removeFinalizer(owner: Node, current: KObject, finalizer: string): Promise<void> {
    const ns = owner.ref.namespaced ? owner.namespace : undefined;
    const rest = (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    try {
      await this.client.patch(owner.ref, owner.name, 'merge', { metadata: { finalizers: rest.length ? rest : null, resourceVersion: current.metadata.resourceVersion } }, { namespace: ns, fieldManager: 'conductor-garbage-collector' });
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
