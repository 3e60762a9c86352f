/**
 * A ClaimController carries claims through their life (docs/design.md 3.6). It routes each claim
 * to the piece whose job it is: a deleted claim to the Releaser; a bound one to Lost, the
 * publisher's not-ready report, the Resizer and the ConnectionPublisher; a pending one to the
 * Binder (schedule, then the two compare-and-swap writes) or, when a class wins, the
 * Provisioner. The pieces share one set of informer caches (ClaimCaches) and one scheduler
 * (SchedulerFeed); this class wires the informers' events to a work queue of claims.
 *
 * It is level-triggered: every reconcile reads the current state from informer caches and
 * the API, so a crash between any two writes is repaired by the next reconcile (a resource
 * pre-bound to a claim is found again; a provisioned resource has a deterministic name).
 */
import { performance } from 'node:perf_hooks';
import { claimPhaseCounts } from '../metrics.js';
import type { ControllerMetrics } from '../metrics.js';
import type { Logger } from 'pino';
import type { Client, ResourceRef } from '../../client/types.js';
import type { SharedInformers } from '../../client/shared-informers.js';
import { WorkQueue } from '../../client/work-queue.js';
import { isApiError } from '../../machinery/errors.js';
import { deepEqual, isPlainObject, parseApiVersion, type KObject } from '../../machinery/object.js';
import { findCondition, readConditions } from '../managed/conditions.js';
import { CLAIM_PROTECTION_FINALIZER, SYSTEM_NAMESPACE, type Claim, type ConcreteResource } from '../../apis/index.js';
import { Binder } from './binder.js';
import { verifiedResource } from './bound-resource.js';
import { claimChangeMatters, isReady, resourceChangeMatters } from './changes.js';
import { ClaimCaches, claimUidsMentioned, kindKey, type ClaimKindDef, type ClaimKindEntry, type ConcreteKindEntry } from './claim-caches.js';
import { CrdKindFollower } from './crd-kind-follower.js';
import { classLabelOf } from './labels.js';
import { errorText, resourceRefOf, type ReconcileResult, type ResourceReference } from './claim-status.js';
import type { ConcreteKind } from '../../providers/spi.js';
import type { ProviderAccess } from './provider-access.js';
import { Provisioner } from './provisioner.js';
import { ConnectionPublisher } from './publisher.js';
import { FIELD_MANAGER } from './reasons.js';
import { Releaser } from './release.js';
import { Resizer } from './resize.js';
import { SchedulerFeed } from './scheduler-feed.js';
import type { ScheduleResult } from '../../scheduler/index.js';
import { servedKinds, UnservedKindError, type KindCatalog } from './served-kinds.js';

export { CLASS_LABEL, CLAIM_NAME_LABEL, CLAIM_NAMESPACE_LABEL } from './labels.js';

export interface ClaimControllerOptions {
  metrics?: ControllerMetrics;
  logger: Logger;
  /** The catalog's claim kinds and kind definitions (from the composition root). */
  kinds: KindCatalog;
  /** Workers processing claims in parallel (each claim by one worker at a time); default 32 (a binding mostly waits for its writes to be durable, so many bindings in flight keep the CPU busy). */
  workers?: number;
  /** Where the `default` SchedulerProfile lives, and where provisioned resources are created. */
  systemNamespace?: string;
  /** Informers shared with the process's other controllers; default private ones. */
  informers?: SharedInformers;
}

/** How soon a claim whose chosen resource was taken meanwhile chooses again (and with any resource change). */
const TAKEN_RETRY_MS = 50;

export class ClaimController {
  private readonly caches: ClaimCaches;
  private readonly feed: SchedulerFeed;
  private readonly binder: Binder;
  private readonly provisioner: Provisioner;
  private readonly publisher: ConnectionPublisher;
  private readonly resizer: Resizer;
  private readonly releaser: Releaser;
  private readonly queue: WorkQueue;
  private stopCounting: (() => void) | undefined;
  /** Queue keys of the claims waiting for something to fit: woken by every change that may. */
  private readonly pending = new Set<string>();
  private readonly log: Logger;
  private readonly crdKinds: CrdKindFollower;

  /** Throws an UnservedKindError (after logging it) when a provider kind cannot be served. */
  constructor(
    private readonly client: Client,
    access: ProviderAccess,
    private readonly opts: ClaimControllerOptions,
  ) {
    this.log = opts.logger;
    this.queue = new WorkQueue({ name: 'claims', qps: 1000, burst: 5000, metrics: opts.metrics?.queues });
    const systemNamespace = opts.systemNamespace ?? SYSTEM_NAMESPACE;
    let kinds;
    try {
      kinds = servedKinds(access.concreteKinds(), (group, kind) => opts.kinds.findKind(group, kind), opts.kinds.claimKinds);
    } catch (err) {
      if (err instanceof UnservedKindError) this.log.error({ problems: err.problems }, err.message);
      throw err;
    }
    this.caches = new ClaimCaches(client, opts.informers, kinds, systemNamespace);
    this.feed = new SchedulerFeed(this.caches, access.concreteKinds(), systemNamespace, this.log, (group, kind) => access.placedAcross(group, kind));
    this.binder = new Binder({
      client,
      caches: this.caches,
      scheduler: this.feed.scheduler,
      resourceSeen: (entry, resource) => this.resourceChanged(entry, resource),
      syncBound: (entry, staged, ref, resource, justBound) => this.syncBound(entry, staged, ref, resource, justBound),
      metrics: opts.metrics?.claims,
    });
    this.provisioner = new Provisioner({ client, caches: this.caches, systemNamespace });
    this.publisher = new ConnectionPublisher({ client, caches: this.caches, access, metrics: opts.metrics?.claims });
    this.resizer = new Resizer({ client, caches: this.caches });
    this.releaser = new Releaser({ client, caches: this.caches, access });
    this.crdKinds = new CrdKindFollower({
      client,
      informers: opts.informers,
      logger: this.log,
      builtIn: { claimKinds: new Set(this.caches.claims.keys()), concreteKinds: new Set(this.caches.concretes.keys()) },
      addClaimKind: (def) => this.addClaimKind(def),
      removeClaimKind: (key) => this.removeClaimKind(key),
      addConcreteKind: (kind, ref) => this.addConcreteKind(kind, ref),
      removeConcreteKind: (key) => this.removeConcreteKind(key),
    });
  }

  async start(): Promise<void> {
    const { caches } = this;
    for (const [key, entry] of caches.claims) this.followClaims(key, entry);
    for (const entry of caches.concretes.values()) this.followResources(entry);
    caches.classes.addHandler({
      onAdd: (o) => this.classChanged(o),
      onUpdate: (_old, o) => this.classChanged(o),
      onDelete: (o) => {
        this.feed.classRemoved(o);
        this.wakePending();
      },
    });
    caches.profiles.addHandler({
      onAdd: (o) => this.profileChanged(o),
      onUpdate: (_old, o) => this.profileChanged(o),
    });
    caches.namespaces.addHandler({ onUpdate: () => this.wakePending() });
    // Classes placed across Providers follow the Providers' readiness, regions and capabilities.
    caches.providers.addHandler({
      onAdd: () => this.providersChanged(),
      onUpdate: (old, o) => {
        if (!deepEqual(old.spec, o.spec) || readyOf(old) !== readyOf(o)) this.providersChanged();
      },
      onDelete: () => this.providersChanged(),
    });
    // New details from a provider (a password rotated, an endpoint moved) reach the claims.
    caches.secrets.addHandler({
      onAdd: (s) => this.resourceSecretChanged(s),
      onUpdate: (old, s) => {
        if (!deepEqual(old.data, s.data)) this.resourceSecretChanged(s);
      },
    });
    // A quota raised (or its usage recounted lower) may let pending claims through.
    caches.quotas.addHandler({ onUpdate: () => this.wakePending(), onDelete: () => this.wakePending() });
    await caches.start();
    // Kinds defined by CRDs alone (claim kinds, out-of-process providers' kinds): served from
    // their first list on, and followed as CRDs come, change and go.
    await this.crdKinds.start();
    // Claims by kind and phase, counted from the caches when scraped.
    this.stopCounting = this.opts.metrics?.claims?.claimPhases(() => claimPhaseCounts(caches.claims.values()));
    void this.queue.runWorkers(this.opts.workers ?? 32, (key) => this.reconcile(key), {
      onError: (key, err) => this.log.warn({ claim: key, err: errorText(err) }, 'cannot reconcile claim; retrying with backoff'),
    });
  }

  /** plan is where the claim would go now (or why nowhere), nothing reserved or written. */
  plan(claim: Claim): Promise<ScheduleResult> {
    return this.binder.plan(claim);
  }

  stop(): void {
    this.stopCounting?.();
    this.crdKinds.stop();
    this.queue.shutDown();
    this.caches.stop();
  }

  /** scheduleMeasured is the binder's decision, counted by result with its duration. */
  private async scheduleMeasured(claim: Claim): ReturnType<Binder['schedule']> {
    const metrics = this.opts.metrics?.claims;
    if (!metrics) return this.binder.schedule(claim);
    const started = performance.now();
    try {
      const decision = await this.binder.schedule(claim);
      const type = decision.result.decision.type;
      metrics.decided(type === 'none' ? 'unschedulable' : type, (performance.now() - started) / 1000);
      return decision;
    } catch (err) {
      metrics.decided('error', (performance.now() - started) / 1000);
      throw err;
    }
  }

  // ------------------------------------------------------------------ kinds

  /** followClaims queues a claim kind's claims as they come and change. */
  private followClaims(key: string, entry: ClaimKindEntry): void {
    entry.informer.addHandler({
      onAdd: (o) => this.queue.add(claimQueueKey(key, o)),
      onUpdate: (old, o) => {
        if (claimChangeMatters(old, o)) this.queue.add(claimQueueKey(key, o));
      },
      onDelete: (o) => this.pending.delete(claimQueueKey(key, o)),
    });
  }

  /** followResources keeps the scheduler and the bound claims in step with a concrete kind's resources. */
  private followResources(entry: ConcreteKindEntry): void {
    entry.informer.addHandler({
      onAdd: (o) => this.resourceChanged(entry, o),
      onUpdate: (old, o) => this.resourceChanged(entry, o, old),
      onDelete: (o) => this.resourceGone(entry, o),
    });
  }

  /** A claim kind defined by a CRD is served: its claims are listed, then followed. */
  private async addClaimKind(def: ClaimKindDef): Promise<void> {
    const key = kindKey(def.group, def.kind);
    const entry = this.caches.addClaimKind(def);
    this.followClaims(key, entry);
    entry.informer.start();
    await entry.informer.waitForSync();
    this.log.info({ kind: def.kind, group: def.group }, 'scheduling claims of a kind defined by its CRD');
  }

  /** A claim kind's CRD went (or changed its names): its claims are no longer served. */
  private removeClaimKind(key: string): void {
    this.caches.removeClaimKind(key);
    for (const q of [...this.pending]) if (q.startsWith(`${key}|`)) this.pending.delete(q);
  }

  /** An out-of-process provider's concrete kind is served: its resources become candidates. */
  private async addConcreteKind(kind: ConcreteKind, ref: ResourceRef): Promise<void> {
    const entry = this.caches.addConcreteKind(kind, ref, true);
    this.feed.addKind(kind);
    this.followResources(entry);
    entry.informer.start();
    await entry.informer.waitForSync();
    this.log.info({ kind: kind.kind, group: kind.group, implements: entry.implements }, 'binding claims to the resources of an out-of-process provider');
  }

  /** An out-of-process kind's CRD went or changed: its resources stop being candidates, and the claims bound to them are looked at. */
  private removeConcreteKind(key: string): void {
    const entry = this.caches.removeConcreteKind(key);
    if (!entry) return;
    this.feed.removeKind(entry.kind);
    for (const r of entry.informer.store.list()) this.resourceGone(entry, r);
  }

  // ------------------------------------------------------------------ waking claims

  private resourceChanged(entry: ConcreteKindEntry, o: ConcreteResource, old?: ConcreteResource): void {
    this.feed.resource(entry, o);
    if (!old || resourceChangeMatters(old, o)) this.wakeBoundClaims(o);
    this.wakePending();
    // A class's count changes only when one of its resources comes, goes or changes class:
    // not on the status writes that make up most updates (rebuilding its candidate on each was
    // most of the claim controller's time in the kubernetes benchmark).
    if ((!old || classLabelOf(old) !== classLabelOf(o)) && this.feed.classCountChanged(o, old)) this.wakePending();
  }

  private resourceGone(entry: ConcreteKindEntry, o: ConcreteResource): void {
    this.feed.resourceRemoved(entry, o);
    this.wakeBoundClaims(o);
    this.wakePending();
    if (this.feed.classCountChanged(o)) this.wakePending();
  }

  private classChanged(o: KObject): void {
    this.feed.class(o);
    this.wakePending();
  }

  private providersChanged(): void {
    if (this.feed.providersChanged()) this.wakePending();
  }

  private profileChanged(o: KObject): void {
    if (this.feed.profile(o)) this.wakePending();
  }

  /** A connection Secret controlled by a concrete resource changed: its bound claims publish again. */
  private resourceSecretChanged(secret: KObject): void {
    const owner = secret.metadata.ownerReferences?.find((r) => r.controller);
    if (!owner) return;
    const concrete = this.caches.concretes.get(kindKey(parseApiVersion(owner.apiVersion).group, owner.kind));
    const resource = concrete?.informer.store.get(secret.metadata.namespace, owner.name);
    if (resource && resource.metadata.uid === owner.uid) this.wakeBoundClaims(resource);
  }

  private wakePending(): void {
    for (const key of this.pending) this.queue.add(key);
  }

  private wakeBoundClaims(resource: ConcreteResource): void {
    for (const uid of claimUidsMentioned(resource)) {
      for (const { kind, claim } of this.caches.claimsWithUid(uid)) this.queue.add(claimQueueKey(kind, claim));
    }
  }

  // ------------------------------------------------------------------ routing

  private async reconcile(key: string): Promise<ReconcileResult> {
    try {
      return await this.reconcileClaim(key);
    } catch (err) {
      // Lost a compare-and-swap race (another worker, the managed reconciler): the informers
      // already bring the newer state, so look again at once rather than backing off.
      if (isApiError(err) && err.code === 409) return { requeueAfterMs: 1 };
      throw err;
    }
  }

  private async reconcileClaim(key: string): Promise<ReconcileResult> {
    const { kind, namespace, name } = parseClaimQueueKey(key);
    const entry = this.caches.claims.get(kind);
    if (!entry) return;
    let claim = entry.informer.store.get(namespace, name);
    if (!claim) {
      this.pending.delete(key);
      return;
    }
    if (claim.metadata.deletionTimestamp) {
      this.pending.delete(key);
      return this.releaser.release(entry, claim);
    }
    if (!(claim.metadata.finalizers ?? []).includes(CLAIM_PROTECTION_FINALIZER)) {
      claim = await this.client.patch<Claim>(
        entry.def.ref,
        name,
        'merge',
        { metadata: { resourceVersion: claim.metadata.resourceVersion, finalizers: [...(claim.metadata.finalizers ?? []), CLAIM_PROTECTION_FINALIZER] } },
        { namespace, fieldManager: FIELD_MANAGER },
      );
    }
    const ref = resourceRefOf(claim);
    if (ref) {
      this.pending.delete(key);
      return this.syncBound(entry, claim, ref);
    }
    // A resource already bound to this claim (pre-bound by an admin, provisioned for it, or
    // bound by a reconcile that crashed before writing the claim): finish that binding.
    const existing = this.caches.resourceBoundTo(claim);
    if (existing) {
      this.pending.delete(key);
      return this.binder.finishBinding(entry, claim, existing.entry, existing.resource);
    }
    const { result, reserved } = await this.scheduleMeasured(claim);
    const why = result.explanation.message;
    switch (result.decision.type) {
      case 'resource': {
        if (!reserved) return { requeueAfterMs: 1 }; // taken while extenders answered
        const bound = await this.binder.bindResource(claim, result.decision.candidate);
        if (bound.type !== 'bound') {
          // Taken by another claim meanwhile (the cache had not caught up), or being deleted:
          // choose again soon, and with any resource change.
          this.pending.add(key);
          return { requeueAfterMs: TAKEN_RETRY_MS };
        }
        this.pending.delete(key);
        return this.binder.finishBinding(entry, claim, bound.entry, bound.resource, why);
      }
      case 'class': {
        const made = await this.provisioner.provision(entry, claim, result.decision.candidate);
        switch (made.type) {
          case 'created':
            this.pending.delete(key);
            try {
              // The Bound event says where the resource came from (no Provisioning event before it).
              return await this.binder.finishBinding(entry, claim, made.entry, made.resource, why, made.from);
            } catch (err) {
              // The binding is finished by a later reconcile, whose Bound event will not know.
              await made.event();
              throw err;
            }
          case 'kind-not-served':
            return this.binder.markPending(entry, claim, made.why);
          case 'exists':
          case 'class-gone':
            return;
          default: {
            const never: never = made;
            throw new Error(`unknown provisioning outcome ${JSON.stringify(never)}`);
          }
        }
      }
      case 'none':
        this.pending.add(key);
        return this.binder.markPending(entry, claim, why);
    }
  }

  /**
   * A bound claim: its binding believed only as the resource records it (else Lost, unless
   * another resource records the claim: that binding wins); then, once the resource is
   * ready, resized when it asks for more, and its connection published.
   */
  private async syncBound(entry: ClaimKindEntry, claim: Claim, ref: ResourceReference, known?: ConcreteResource, justBound?: string): Promise<ReconcileResult> {
    const verified = await verifiedResource(this.client, this.caches, claim, ref, known);
    if (!verified) {
      // The resource the claim's status names does not bind this claim (gone, rebound, or the
      // status was written by someone else). A binding the resources do record wins.
      const truth = this.caches.resourceBoundTo(claim);
      if (truth && !(truth.resource.metadata.uid === ref.uid && truth.resource.metadata.name === ref.name)) {
        return this.binder.finishBinding(entry, claim, truth.entry, truth.resource);
      }
      return this.releaser.markLost(entry, claim, ref);
    }
    const { entry: concrete, resource } = verified;
    // An out-of-process provider writes Available; the phase a binding means is the core's to write.
    if (concrete.outOfProcess) await this.binder.recordBoundPhase(concrete, resource, claim);
    if (!isReady(resource)) return this.publisher.reportNotReady(entry, claim, resource);
    if (await this.resizer.resize(entry, claim, concrete, resource)) return;
    return this.publisher.publish(entry, claim, concrete, resource, justBound);
  }
}

// ------------------------------------------------------------------ queue keys

function claimQueueKey(kind: string, claim: KObject): string {
  return `${kind}|${claim.metadata.namespace}/${claim.metadata.name}`;
}

function parseClaimQueueKey(key: string): { kind: string; namespace: string; name: string } {
  const bar = key.indexOf('|');
  const slash = key.indexOf('/', bar);
  return { kind: key.slice(0, bar), namespace: key.slice(bar + 1, slash), name: key.slice(slash + 1) };
}

/** readyOf is the status of a Provider's Ready condition ('' without one). */
function readyOf(provider: KObject): string {
  const status = isPlainObject(provider.status) ? provider.status : {};
  return findCondition(readConditions(status.conditions), 'Ready')?.status ?? '';
}
