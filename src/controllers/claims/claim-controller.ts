/**
 * A ClaimController carries claims through their life (DESIGN.md 3.6): it schedules each
 * pending claim onto an existing concrete resource or a ResourceClass, binds it with two
 * compare-and-swap writes (resource first, then claim), provisions a pre-bound resource from
 * the class template when no static resource fits, publishes the connection Secret and
 * ConfigMap in the claim's namespace once the resource is ready, marks a claim Lost when its
 * resource disappears, and on deletion releases the resource by its rebind policy.
 *
 * It is level-triggered: every reconcile reads the current state from informer caches and
 * the API, so a crash between any two writes is repaired by the next reconcile (a resource
 * pre-bound to a claim is found again; a provisioned resource has a deterministic name).
 */
import type { Logger } from 'pino';
import type { Client, ResourceRef } from '../../client/types.js';
import { builtinRefs } from '../../client/types.js';
import { cacheInformer, type CacheInformer, type SharedInformers } from '../../client/shared-informers.js';
import { WorkQueue } from '../../client/work-queue.js';
import { isApiError } from '../../machinery/errors.js';
import type { Condition, KObject } from '../../machinery/object.js';
import { deepEqual, isPlainObject, parseApiVersion, sameStatusIgnoringTransitionTimes } from '../../machinery/object.js';
import {
  apiRefs,
  CLAIM_PROTECTION_FINALIZER,
  claimKinds,
  findKind,
  SYSTEM_NAMESPACE,
  type KindDefinition,
} from '../../apis/index.js';
import {
  claimInfoFromObject,
  classCandidateFromObject,
  classKey,
  resourceCandidateFromObject,
  resourceKey,
  Scheduler,
  schedulerConfigFromProfileSpec,
  type ResourceCandidate,
  type ScheduleResult,
} from '../../scheduler/index.js';
import { isSharedClient, type ConcreteKind, type ConnectionDetails, type ExternalClient, type GroupKind, type RebindPolicy } from '../../providers/spi.js';
import { recordEvent } from '../events.js';
import { connectionSecretName, bindingSecretName, legacyBindingSecretName, provisionedName } from './names.js';
import { admitsClaim, bindingOf, isExclusive, resourceNamesClaim } from './binding-check.js';
import { notReadyReason } from './resource-conditions.js';
import { setCondition as setConditionIn } from '../managed/conditions.js';
import { decodeSecretData, ProviderAccess, type ReleaseConnection } from './provider-access.js';
import { CredentialsNotFoundError } from '../managed/connect-context.js';
import { OwnershipConflictError, publishConnection, upsertOwned } from './connection-secret.js';
import { allocatable, requestsOf, resizeExclusive } from './capacity.js';
import { providerMatchers } from './provider-matchers.js';
import { claimChangeMatters, isReady, resourceChangeMatters } from './changes.js';
import { CONNECTION_SECRET_SELECTOR, controllerReference, encodeSecretData } from '../managed/connection-secret.js';
import { brokenShareOf } from '../managed/broken-shares.js';
import { classQuotaCheck } from './quota-check.js';

export const CLASS_LABEL = 'conductor.io/resource-class';
export const CLAIM_NAMESPACE_LABEL = 'conductor.io/claim-namespace';
export const CLAIM_NAME_LABEL = 'conductor.io/claim-name';
const FIELD_MANAGER = 'conductor-claim-controller';

export interface ClaimControllerOptions {
  logger: Logger;
  /** Workers processing claims in parallel (each claim by one worker at a time); default 32 (a binding mostly waits for its writes to be durable, so many bindings in flight keep the CPU busy). */
  workers?: number;
  /** Where the `default` SchedulerProfile lives. */
  systemNamespace?: string;
  /** Informers shared with the process's other controllers; default private ones. */
  informers?: SharedInformers;
}

interface ClaimKindEntry {
  def: KindDefinition;
  informer: CacheInformer;
}

interface ConcreteKindEntry {
  kind: ConcreteKind;
  ref: ResourceRef;
  informer: CacheInformer;
  implements: GroupKind[];
}

type Status = Record<string, unknown> & { conditions?: Condition[] };
type ResourceRefLike = { apiVersion: string; kind: string; namespace: string; name: string; uid?: string };

export class ClaimController {
  private readonly claims = new Map<string, ClaimKindEntry>();
  private readonly concretes = new Map<string, ConcreteKindEntry>();
  private readonly classes: CacheInformer;
  private readonly namespaces: CacheInformer;
  private readonly profiles: CacheInformer;
  /** Connection Secrets (the resources' raw details and the claims' published ones). */
  private readonly secrets: CacheInformer;
  /** ClaimQuotas, for the scheduler's Quota filter. */
  private readonly quotas: CacheInformer;
  private readonly scheduler: Scheduler;
  private readonly queue = new WorkQueue({ name: 'claims', qps: 1000, burst: 5000 });
  private readonly access: ProviderAccess;
  private readonly pending = new Set<string>();
  private readonly log: Logger;
  private readonly systemNamespace: string;

  constructor(
    private readonly client: Client,
    providers: ProviderAccess,
    private readonly opts: ClaimControllerOptions,
  ) {
    this.access = providers;
    this.log = opts.logger;
    this.systemNamespace = opts.systemNamespace ?? SYSTEM_NAMESPACE;
    // Providers judge their own candidates' configuration (versions, features, binaries); the
    // namespace's ClaimQuotas judge what a new resource from a class would cost it.
    this.scheduler = new Scheduler({
      systemNamespace: this.systemNamespace,
      portableMatchers: providerMatchers(providers.concreteKinds()),
      quota: classQuotaCheck({
        quotasIn: (ns) => this.quotas.store.list(ns),
        claimsIn: (ns) => [...this.claims.values()].flatMap((e) => e.informer.store.list(ns)),
        classes: () => this.classes.store.list(),
        classOf: (c) => this.classes.store.get(c.namespace, c.name),
        boundTo: (c) => (c.metadata.uid ? this.resourceBoundTo(c)?.resource : undefined),
      }),
    });
    for (const def of claimKinds) {
      this.claims.set(kindKey(def.group, def.kind), { def, informer: cacheInformer(client, opts.informers, def.ref) });
    }
    for (const kind of providers.concreteKinds()) {
      const def = findKind(kind.group, kind.kind);
      if (!def) continue;
      this.concretes.set(kindKey(kind.group, kind.kind), {
        kind,
        ref: def.ref,
        informer: cacheInformer(client, opts.informers, def.ref),
        implements: kind.implements.map((i) => i.claimKind),
      });
    }
    this.classes = cacheInformer(client, opts.informers, apiRefs.resourceclasses);
    this.namespaces = cacheInformer(client, opts.informers, builtinRefs.namespaces);
    this.profiles = cacheInformer(client, opts.informers, apiRefs.schedulerprofiles, { namespace: this.systemNamespace });
    this.secrets = cacheInformer(client, opts.informers, builtinRefs.secrets, { fieldSelector: CONNECTION_SECRET_SELECTOR });
    this.quotas = cacheInformer(client, opts.informers, apiRefs.claimquotas);
  }

  async start(): Promise<void> {
    for (const [key, entry] of this.claims) {
      entry.informer.addIndexer('uid', (o) => [o.metadata.uid ?? '']);
      entry.informer.addHandler({
        onAdd: (o) => this.enqueueClaim(key, o),
        onUpdate: (old, o) => {
          if (claimChangeMatters(old, o)) this.enqueueClaim(key, o);
        },
        onDelete: (o) => this.pending.delete(claimQueueKey(key, o)),
      });
    }
    for (const entry of this.concretes.values()) {
      entry.informer.addIndexer('claim-uid', (o) => claimUidsOf(o));
      entry.informer.addHandler({
        onAdd: (o) => this.resourceChanged(entry, o),
        onUpdate: (old, o) => this.resourceChanged(entry, o, old),
        onDelete: (o) => this.resourceGone(entry, o),
      });
    }
    this.classes.addHandler({
      onAdd: (o) => this.classChanged(o),
      onUpdate: (_old, o) => this.classChanged(o),
      onDelete: (o) => {
        this.scheduler.remove(classKey(o.metadata.namespace ?? '', o.metadata.name ?? ''));
        this.wakePending();
      },
    });
    this.profiles.addHandler({
      onAdd: (o) => this.profileChanged(o),
      onUpdate: (_old, o) => this.profileChanged(o),
    });
    this.namespaces.addHandler({ onUpdate: () => this.wakePending() });
    // New details from a provider (a password rotated, an endpoint moved) reach the claims.
    this.secrets.addHandler({
      onAdd: (s) => this.resourceSecretChanged(s),
      onUpdate: (old, s) => {
        if (!deepEqual(old.data, s.data)) this.resourceSecretChanged(s);
      },
    });
    // A quota raised (or its usage recounted lower) may let pending claims through.
    this.quotas.addHandler({ onUpdate: () => this.wakePending(), onDelete: () => this.wakePending() });
    const informers = [this.classes, this.namespaces, this.profiles, this.secrets, this.quotas, ...[...this.concretes.values()].map((e) => e.informer)];
    for (const i of informers) i.start();
    await Promise.all(informers.map((i) => i.waitForSync()));
    // Claims last: the scheduler has every candidate before the first claim is looked at.
    for (const e of this.claims.values()) e.informer.start();
    await Promise.all([...this.claims.values()].map((e) => e.informer.waitForSync()));
    void this.queue.runWorkers(this.opts.workers ?? 32, (key) => this.reconcile(key), {
      onError: (key, err) => this.log.warn({ claim: key, err: errorText(err) }, 'cannot reconcile claim; retrying with backoff'),
    });
  }

  stop(): void {
    this.queue.shutDown();
    for (const e of this.claims.values()) e.informer.stop();
    for (const e of this.concretes.values()) e.informer.stop();
    this.classes.stop();
    this.namespaces.stop();
    this.profiles.stop();
    this.secrets.stop();
    this.quotas.stop();
  }

  // ------------------------------------------------------------------ feeding the scheduler

  private enqueueClaim(kind: string, claim: KObject): void {
    this.queue.add(claimQueueKey(kind, claim));
  }

  private resourceChanged(entry: ConcreteKindEntry, o: KObject, old?: KObject): void {
    try {
      this.scheduler.upsert(resourceCandidateFromObject(o, { implements: entry.implements }));
    } catch (err) {
      this.log.warn({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, err: errorText(err) }, 'cannot schedule onto a resource with an unreadable spec');
    }
    if (!old || resourceChangeMatters(old, o)) this.wakeBoundClaims(o);
    this.wakePending();
    this.refreshClassCounts(o);
  }

  private resourceGone(entry: ConcreteKindEntry, o: KObject): void {
    this.scheduler.remove(resourceKey(entry.kind, o.metadata.namespace ?? '', o.metadata.name ?? ''));
    this.wakeBoundClaims(o);
    this.wakePending();
    this.refreshClassCounts(o);
  }

  private classChanged(o: KObject): void {
    try {
      this.scheduler.upsert(classCandidateFromObject(o, { instanceCount: this.instanceCount(o) }));
    } catch (err) {
      this.log.warn({ class: `${o.metadata.namespace}/${o.metadata.name}`, err: errorText(err) }, 'cannot schedule with a ResourceClass that cannot be read');
    }
    this.wakePending();
  }

  private profileChanged(o: KObject): void {
    if (o.metadata.name !== 'default') return;
    try {
      this.scheduler.setConfig(schedulerConfigFromProfileSpec(isPlainObject(o.spec) ? o.spec : {}));
      this.wakePending();
    } catch (err) {
      this.log.warn({ err: errorText(err) }, 'the default SchedulerProfile cannot be read; keeping the previous configuration');
    }
  }

  private instanceCount(cls: KObject): number {
    const label = `${cls.metadata.namespace}.${cls.metadata.name}`;
    let n = 0;
    for (const e of this.concretes.values()) for (const r of e.informer.store.list()) if (r.metadata.labels?.[CLASS_LABEL] === label) n++;
    return n;
  }

  private refreshClassCounts(resource: KObject): void {
    const label = resource.metadata.labels?.[CLASS_LABEL];
    if (!label) return;
    const dot = label.indexOf('.');
    const cls = this.classes.store.get(label.slice(0, dot), label.slice(dot + 1));
    if (cls) this.classChanged(cls);
  }

  /** A connection Secret controlled by a concrete resource changed: its bound claims publish again. */
  private resourceSecretChanged(secret: KObject): void {
    const owner = secret.metadata.ownerReferences?.find((r) => r.controller);
    if (!owner) return;
    const concrete = this.concretes.get(kindKey(parseApiVersion(owner.apiVersion).group, owner.kind));
    const resource = concrete?.informer.store.get(secret.metadata.namespace, owner.name);
    if (resource && resource.metadata.uid === owner.uid) this.wakeBoundClaims(resource);
  }

  private wakePending(): void {
    for (const key of this.pending) this.queue.add(key);
  }

  private wakeBoundClaims(resource: KObject): void {
    for (const uid of claimUidsOf(resource)) {
      for (const [kind, entry] of this.claims) {
        for (const c of entry.informer.store.byIndex('uid', uid)) this.queue.add(claimQueueKey(kind, c));
      }
    }
  }

  // ------------------------------------------------------------------ reconcile

  private async reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    try {
      return await this.reconcileClaim(key);
    } catch (err) {
      // Lost a compare-and-swap race (another worker, the managed reconciler): the informers
      // already bring the newer state, so look again at once rather than backing off.
      if (isApiError(err) && err.code === 409) return { requeueAfterMs: 1 };
      throw err;
    }
  }

  private async reconcileClaim(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const { kind, namespace, name } = parseClaimQueueKey(key);
    const entry = this.claims.get(kind);
    if (!entry) return;
    let claim = entry.informer.store.get(namespace, name);
    if (!claim) {
      this.pending.delete(key);
      return;
    }
    if (claim.metadata.deletionTimestamp) {
      this.pending.delete(key);
      return this.release(entry, claim);
    }
    if (!(claim.metadata.finalizers ?? []).includes(CLAIM_PROTECTION_FINALIZER)) {
      claim = await this.client.patch<KObject>(entry.def.ref, name, 'merge', {
        metadata: { resourceVersion: claim.metadata.resourceVersion, finalizers: [...(claim.metadata.finalizers ?? []), CLAIM_PROTECTION_FINALIZER] },
      }, { namespace, fieldManager: FIELD_MANAGER });
    }
    const status = (claim.status ?? {}) as Status;
    const ref = status.resourceRef as ResourceRefLike | undefined;
    if (ref) {
      this.pending.delete(key);
      return this.syncBound(entry, claim, ref);
    }
    // A resource already bound to this claim (pre-bound by an admin, provisioned for it, or
    // bound by a reconcile that crashed before writing the claim): finish that binding.
    const existing = this.resourceBoundTo(claim);
    if (existing) {
      this.pending.delete(key);
      return this.finishBinding(entry, claim, existing.entry, existing.resource);
    }
    const nsObj = this.namespaces.store.get(undefined, namespace);
    const info = claimInfoFromObject(claim, { namespaceLabels: nsObj?.metadata.labels ?? {} });
    // Without extenders the decision and the reservation below happen in one synchronous step,
    // so concurrent workers never pick the same resource and lose a compare-and-swap over it.
    const result = this.scheduler.hasExtenders ? await this.scheduler.schedule(info) : this.scheduler.scheduleSync(info);
    switch (result.decision.type) {
      case 'resource': {
        if (!this.reserve(result.decision.candidate, claim)) return { requeueAfterMs: 1 }; // taken while extenders answered
        const bound = await this.bindStatic(entry, claim, result);
        if (!bound) {
          // Taken by another claim meanwhile (the cache had not caught up): choose again soon,
          // and with any resource change.
          this.pending.add(key);
          return { requeueAfterMs: 50 };
        }
        this.pending.delete(key);
        return this.finishBinding(entry, claim, bound.entry, bound.resource, result.explanation.message);
      }
      case 'class': {
        const made = await this.provision(entry, claim, result);
        if (!made) return;
        this.pending.delete(key);
        return this.finishBinding(entry, claim, made.entry, made.resource, result.explanation.message);
      }
      case 'none':
        this.pending.add(key);
        return this.markPending(entry, claim, result.explanation.message);
    }
  }

  /** The resource whose own record (claimRef or bindings) names the claim by namespace, name and uid. */
  private resourceBoundTo(claim: KObject): { entry: ConcreteKindEntry; resource: KObject } | undefined {
    const uid = claim.metadata.uid!;
    for (const entry of this.concretes.values()) {
      const found = entry.informer.store.byIndex('claim-uid', uid).find((r) => resourceNamesClaim(r, claim));
      if (found) return { entry, resource: found };
    }
    return undefined;
  }

  /**
   * The resource `ref` (a claim's status.resourceRef) names, if that resource's own record
   * binds it to the claim; undefined when it is gone or binds something else. The claim's
   * status is never taken at its word: whoever can write it could name another tenant's
   * resource. The cache is asked first; when it disagrees, the API (it may lag behind a
   * binding just written).
   */
  private async verifiedResource(claim: KObject, ref: ResourceRefLike, known?: KObject): Promise<{ entry: ConcreteKindEntry; resource: KObject } | undefined> {
    const concrete = this.concretes.get(kindKey(parseApiVersion(ref.apiVersion).group, ref.kind));
    if (!concrete) return undefined;
    const holds = (r: KObject | undefined): r is KObject => r !== undefined && (!ref.uid || r.metadata.uid === ref.uid) && resourceNamesClaim(r, claim);
    const cached = known ?? concrete.informer.store.get(ref.namespace, ref.name);
    if (holds(cached)) return { entry: concrete, resource: cached };
    try {
      const live = await this.client.get<KObject>(concrete.ref, ref.name, ref.namespace);
      return holds(live) ? { entry: concrete, resource: live } : undefined;
    } catch (err) {
      if (isApiError(err) && err.code === 404) return undefined;
      throw err;
    }
  }

  /** Binds to an existing resource: the resource side first (compare-and-swap), then the claim. */
  private async bindStatic(entry: ClaimKindEntry, claim: KObject, result: ScheduleResult): Promise<{ entry: ConcreteKindEntry; resource: KObject } | undefined> {
    if (result.decision.type !== 'resource') return undefined;
    const cand = result.decision.candidate;
    const concrete = this.concretes.get(kindKey(cand.kind.group, cand.kind.kind));
    if (!concrete) return undefined;
    const resource = concrete.informer.store.get(cand.namespace, cand.name) ?? (await this.client.get<KObject>(concrete.ref, cand.name, cand.namespace));
    // Being deleted since the decision: its deletion waits for its claims, so it takes no more.
    if (resource.metadata.deletionTimestamp) {
      this.resourceChanged(concrete, resource); // undoes reserve()'s count with the resource's own record
      return undefined;
    }
    const claimRef = claimRefOf(claim);
    try {
      if (cand.sharing.mode === 'Shared') {
        const status = (resource.status ?? {}) as Status & { bindings?: { claimRef: { uid?: string } }[] };
        const bindings = [...(status.bindings ?? [])];
        if (!bindings.some((b) => b.claimRef.uid === claim.metadata.uid)) {
          const requests = requestsOf(claim);
          bindings.push({ claimRef, ...(requests ? { requests } : {}), secretName: bindingSecretName(resource, claim) } as never);
        }
        const left = allocatable(resource, bindings as { requests?: Record<string, string> }[]);
        const saved = await this.client.updateStatus<KObject>(concrete.ref, { ...resource, status: { ...status, bindings, phase: 'Bound', claim: claimSummary(bindings.length, claimRef), ...(left ? { allocatable: left } : {}) } }, { fieldManager: FIELD_MANAGER });
        return { entry: concrete, resource: saved };
      }
      const spec = (resource.spec ?? {}) as { claimRef?: { namespace?: string; name?: string; uid?: string } };
      // Taken meanwhile (the informer will bring the news), unless it is a reservation for this claim.
      if (!admitsClaim(spec.claimRef, claim)) return undefined;
      const bound = await this.client.patch<KObject>(concrete.ref, resource.metadata.name!, 'merge', {
        metadata: { resourceVersion: resource.metadata.resourceVersion },
        spec: { claimRef },
      }, { namespace: resource.metadata.namespace, fieldManager: FIELD_MANAGER });
      // The managed reconciler writes the phase (Bound) that follows from the claimRef.
      return { entry: concrete, resource: bound };
    } catch (err) {
      const fresh = concrete.informer.store.get(cand.namespace, cand.name);
      if (fresh) this.resourceChanged(concrete, fresh);
      throw err;
    }
  }

  /**
   * reserve marks the chosen resource taken in the scheduler at once, so the other workers
   * choose elsewhere instead of racing for it; the informer brings the true state back either
   * way. False when someone else reserved it since the decision (only possible while
   * extenders were being asked).
   */
  private reserve(cand: ResourceCandidate, claim: KObject): boolean {
    const current = this.scheduler.get(resourceKey(cand.kind, cand.namespace, cand.name));
    if (!current || current.type !== 'resource') return false;
    if (current.sharing.mode === 'Exclusive' && current.claimRef && !admitsClaim({ ...current.claimRef }, claim)) return false;
    const claimRef = claimRefOf(claim);
    this.scheduler.upsert(
      current.sharing.mode === 'Shared'
        ? { ...current, boundCount: current.boundCount + 1 }
        : { ...current, phase: 'Bound', claimRef: { namespace: claimRef.namespace, name: claimRef.name, uid: claimRef.uid } },
    );
    return true;
  }

  /** Creates a resource from the class template, pre-bound to the claim (named from the claim). */
  private async provision(entry: ClaimKindEntry, claim: KObject, result: ScheduleResult): Promise<{ entry: ConcreteKindEntry; resource: KObject } | undefined> {
    if (result.decision.type !== 'class') return undefined;
    const cand = result.decision.candidate;
    const cls = this.classes.store.get(cand.namespace, cand.name);
    if (!cls) return undefined;
    const template = (cls.template ?? {}) as { apiVersion?: string; kind?: string; metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
    const { group } = parseApiVersion(template.apiVersion ?? '');
    const concrete = this.concretes.get(kindKey(group, template.kind ?? ''));
    if (!concrete) {
      await this.markPending(entry, claim, `class ${cand.namespace}/${cand.name} provisions ${template.kind ?? '<no kind>'}, which no installed provider manages`);
      return undefined;
    }
    const claimKind = { group: entry.def.group, kind: entry.def.kind };
    const impl = concrete.kind.implements.find((i) => i.claimKind.group === claimKind.group && i.claimKind.kind.toLowerCase() === claimKind.kind.toLowerCase());
    const configured = impl ? impl.configure(claim, { apiVersion: template.apiVersion!, kind: template.kind!, metadata: template.metadata, spec: (template.spec ?? {}) as never }) : (template.spec ?? {});
    const name = provisionedName(claim);
    const obj: KObject = {
      apiVersion: template.apiVersion!,
      kind: template.kind!,
      metadata: {
        name,
        // Never the class's namespace: a resource's connection and binding Secrets live beside
        // it, and a class may sit in a tenant's namespace. Providers are read from here too.
        namespace: this.systemNamespace,
        labels: {
          ...(template.metadata?.labels ?? {}),
          [CLASS_LABEL]: `${cls.metadata.namespace}.${cls.metadata.name}`,
          [CLAIM_NAMESPACE_LABEL]: claim.metadata.namespace!,
          [CLAIM_NAME_LABEL]: claim.metadata.name!,
        },
        ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      },
      spec: {
        ...configured,
        claimRef: claimRefOf(claim),
        rebindPolicy: (cls.rebindPolicy as RebindPolicy | undefined) ?? 'Delete',
        resourceClass: (cls.resourceClass as string | undefined) ?? cls.metadata.name,
        ...(cls.providerRef ? { providerRef: cls.providerRef } : {}),
        ...(cls.capabilities ? { capabilities: cls.capabilities } : {}),
      },
    };
    try {
      const created = await this.client.create(concrete.ref, obj, { fieldManager: FIELD_MANAGER });
      await recordEvent(this.client, claim, 'Normal', 'Provisioning', `provisioning ${obj.kind} ${obj.metadata.namespace}/${name} from class ${cand.namespace}/${cand.name}`);
      return { entry: concrete, resource: created };
    } catch (err) {
      if (!(isApiError(err) && err.reason === 'AlreadyExists')) throw err;
      return undefined; // made by an earlier attempt: found through the claim-uid index next time
    }
  }

  /** Writes the claim's side of a binding whose resource side is in place. */
  /** The claim's status once bound to `resource` (not yet ready). */
  private boundStatus(claim: KObject, resource: KObject, why?: string): Status {
    const label = resource.metadata.labels?.[CLASS_LABEL];
    const classRef = label ? { namespace: label.slice(0, label.indexOf('.')), name: label.slice(label.indexOf('.') + 1) } : undefined;
    const status: Status = {
      ...((claim.status ?? {}) as Status),
      phase: 'Bound',
      resourceRef: { apiVersion: resource.apiVersion, kind: resource.kind, namespace: resource.metadata.namespace, name: resource.metadata.name, uid: resource.metadata.uid },
      ...(classRef ? { classRef } : {}),
      observedGeneration: claim.metadata.generation,
    };
    // The scheduler's explanation (what fit, what was chosen and why, what was rejected) when
    // this reconcile made the choice; otherwise (finishing an earlier binding) just the result.
    const scheduled = why ?? `bound to ${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
    const prior = status.conditions?.find((c) => c.type === 'Scheduled' && c.status === 'True');
    if (!prior || why) status.conditions = setCondition(status.conditions, claim, 'Scheduled', 'True', 'Scheduled', scheduled);
    status.conditions = setCondition(status.conditions, claim, 'Bound', 'True', 'Bound', `bound to ${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`);
    const notReady = notReadyReason(resource);
    status.conditions = setCondition(status.conditions, claim, 'Ready', 'False', notReady.reason, notReady.message);
    return status;
  }

  /**
   * Writes the claim's side of a binding whose resource side is in place. When the resource is
   * already ready, the bound status and the published connection go out in one status write.
   */
  private async finishBinding(entry: ClaimKindEntry, claim: KObject, concrete: ConcreteKindEntry, resource: KObject, why?: string): Promise<{ requeueAfterMs?: number } | void> {
    const staged: KObject = { ...claim, status: this.boundStatus(claim, resource, why) };
    if (!isReady(resource)) {
      await this.client.updateStatus<KObject>(entry.def.ref, staged, { fieldManager: FIELD_MANAGER });
    }
    const boundTo = `bound to ${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
    if (!isReady(resource)) {
      await recordEvent(this.client, claim, 'Normal', 'Bound', boundTo);
      const notReady = notReadyReason(resource);
      if (notReady.failing) await recordEvent(this.client, claim, 'Warning', notReady.reason, notReady.message);
      return; // the resource becoming Ready (or its conditions changing) wakes the claim
    }
    try {
      // Bound and ready at once: one event tells both.
      return await this.syncBound(entry, staged, (staged.status as Status).resourceRef as ResourceRefLike, resource, boundTo);
    } catch (err) {
      // The connection could not be published yet: the binding itself still goes on record.
      await this.client.updateStatus<KObject>(entry.def.ref, staged, { fieldManager: FIELD_MANAGER });
      await recordEvent(this.client, claim, 'Normal', 'Bound', boundTo);
      throw err;
    }
  }

  private async markPending(entry: ClaimKindEntry, claim: KObject, why: string): Promise<void> {
    const old = (claim.status ?? {}) as Status;
    const status: Status = { ...old, phase: 'Pending', observedGeneration: claim.metadata.generation };
    status.conditions = setCondition(status.conditions, claim, 'Scheduled', 'False', 'Unschedulable', why);
    if (sameStatusIgnoringTransitionTimes(old, status)) return;
    await this.client.updateStatus(entry.def.ref, { ...claim, status }, { fieldManager: FIELD_MANAGER });
    await recordEvent(this.client, claim, 'Warning', 'FailedScheduling', why);
  }

  /** A bound claim: Lost when its resource is gone; otherwise publish the connection once ready. */
  private async syncBound(entry: ClaimKindEntry, claim: KObject, ref: ResourceRefLike, known?: KObject, justBound?: string): Promise<{ requeueAfterMs?: number } | void> {
    const old = (claim.status ?? {}) as Status;
    const verified = await this.verifiedResource(claim, ref, known);
    if (!verified) {
      // The resource the claim's status names does not bind this claim (gone, rebound, or the
      // status was written by someone else). A binding the resources do record wins.
      const truth = this.resourceBoundTo(claim);
      if (truth && !(truth.resource.metadata.uid === ref.uid && truth.resource.metadata.name === ref.name)) {
        return this.finishBinding(entry, claim, truth.entry, truth.resource);
      }
      // Gone or not ours read the same, so a claim's status cannot ask whether a resource exists.
      if (old.phase === 'Lost') return;
      const why = `${ref.kind} ${ref.namespace}/${ref.name} no longer exists or is not bound to this claim`;
      const status: Status = { ...old, phase: 'Lost' };
      status.conditions = setCondition(status.conditions, claim, 'Bound', 'False', 'ResourceLost', why);
      status.conditions = setCondition(status.conditions, claim, 'Ready', 'False', 'ResourceLost', why);
      await this.client.updateStatus(entry.def.ref, { ...claim, status }, { fieldManager: FIELD_MANAGER });
      await recordEvent(this.client, claim, 'Warning', 'ClaimLost', `the bound ${why}`);
      return;
    }
    const { entry: concrete, resource } = verified;
    if (!isReady(resource)) {
      const status: Status = { ...old };
      const why = notReadyReason(resource);
      status.conditions = setCondition(status.conditions, claim, 'Ready', 'False', why.reason, why.message);
      if (!sameStatusIgnoringTransitionTimes(old, status)) {
        await this.client.updateStatus(entry.def.ref, { ...claim, status }, { fieldManager: FIELD_MANAGER });
        if (why.failing) await recordEvent(this.client, claim, 'Warning', why.reason, why.message);
      }
      return;
    }
    const resized = await this.resize(entry, claim, concrete, resource);
    if (resized) return;
    const claimKind = { group: entry.def.group, kind: entry.def.kind };
    const impl = concrete.kind.implements.find((i) => i.claimKind.group === claimKind.group && i.claimKind.kind.toLowerCase() === claimKind.kind.toLowerCase());
    const raw = await this.connectionDetails(concrete, resource, claim);
    const details = impl ? impl.formatConnection(raw) : raw;
    const secretName = connectionSecretName(claim);
    try {
      await publishConnection(this.client, claim, secretName, details, impl?.connectionSecretKeys, justBound !== undefined);
    } catch (err) {
      if (!(err instanceof OwnershipConflictError)) throw err;
      // Another object's Secret (the developer's own, another claim's) is never overwritten.
      const status: Status = { ...old, phase: 'Bound' };
      status.conditions = setCondition(status.conditions, claim, 'Ready', 'False', 'ConnectionSecretConflict', err.message);
      if (!sameStatusIgnoringTransitionTimes(old, status)) {
        await this.client.updateStatus(entry.def.ref, { ...claim, status }, { fieldManager: FIELD_MANAGER });
        await recordEvent(this.client, claim, 'Warning', 'ConnectionSecretConflict', err.message);
      }
      return { requeueAfterMs: 10_000 }; // a previous claim of that name may still be being collected
    }
    const status: Status = { ...old, phase: 'Bound', connectionSecretRef: { name: secretName } };
    status.conditions = setCondition(status.conditions, claim, 'Ready', 'True', 'Available', `connection details are in Secret ${secretName}`);
    if (!sameStatusIgnoringTransitionTimes(old, status)) {
      await this.client.updateStatus(entry.def.ref, { ...claim, status }, { fieldManager: FIELD_MANAGER });
      if (justBound) {
        // Events are best effort (recordEvent never throws): the claim goes on without waiting.
        void recordEvent(this.client, claim, 'Normal', 'Bound', `${justBound}; connection details published to Secret ${secretName}`);
      } else if (old.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') {
        await recordEvent(this.client, claim, 'Normal', 'Ready', `connection details published to Secret ${secretName}`);
      }
    }
  }

  /** The raw details: the resource's own Secret (Exclusive) or this claim's binding (Shared). */
  private async connectionDetails(concrete: ConcreteKindEntry, resource: KObject, claim: KObject): Promise<ConnectionDetails> {
    // A kind that gives each claim its own credentials (a registered shared server) does so
    // even when one claim has the resource to itself.
    if (isExclusive(resource) && concrete.kind.sharing !== 'Shared') {
      const spec = (resource.spec ?? {}) as { writeConnectionSecretToRef?: { name?: string } };
      const name = spec.writeConnectionSecretToRef?.name || `${resource.metadata.name}-connection`;
      const secret = this.secrets.store.get(resource.metadata.namespace, name) ?? (await this.client.get<KObject>(builtinRefs.secrets, name, resource.metadata.namespace));
      return decodeSecretData(secret);
    }
    // Shared: each claim has its own credentials, kept in a Secret next to the resource so a
    // repeated reconcile hands the provider the same password back.
    const secretName = bindingSecretName(resource, claim);
    const readDetails = async (name: string): Promise<ConnectionDetails | undefined> => {
      try {
        return decodeSecretData(await this.client.get<KObject>(builtinRefs.secrets, name, resource.metadata.namespace));
      } catch (err) {
        if (!(isApiError(err) && err.code === 404)) throw err;
        return undefined;
      }
    };
    let previous = await readDetails(secretName);
    // A binding made by an earlier version kept its details under the unhashed name: carry
    // them over (the provider takes them back only for this claim's own user).
    const legacy = legacyBindingSecretName(resource, claim);
    let migrating = false;
    if (!previous && this.mayHaveLegacySecret(resource, claim, legacy)) {
      previous = await readDetails(legacy);
      migrating = previous !== undefined;
    }
    const external = await this.access.connect(concrete.kind, resource);
    try {
      if (!isSharedClient(external)) throw new Error(`${resource.kind} is Shared but its provider cannot bind claims`);
      const details = await external.bindClaim(resource, claim, previous);
      const broken = brokenShareOf(resource, claim);
      if (broken) {
        void recordEvent(this.client, claim, 'Normal', 'ShareRepaired', `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name} reported ${broken.missing} missing; recreated with the claim's credentials`);
      }
      if (migrating || !previous || !deepEqual(previous, details)) {
        const data = encodeSecretData(details);
        await upsertOwned(this.client, builtinRefs.secrets, resource.metadata.namespace!, secretName, { type: 'Opaque', data }, [controllerReference(resource)], (o) => deepEqual(o.data, data), true);
      }
      if (migrating && !this.legacyNameShared(resource, claim, legacy)) await this.deleteIgnoringMissing(builtinRefs.secrets, legacy, resource.metadata.namespace);
      return details;
    } finally {
      await external.close?.();
    }
  }

  /**
   * A bound claim asking for more than its resource has: grow the resource when it can
   * (Exclusive and provisioned from a class that allows the size; Shared with room left),
   * else say why on the claim. Returns true when it wrote something (the next reconcile goes on).
   */
  private async resize(entry: ClaimKindEntry, claim: KObject, concrete: ConcreteKindEntry, resource: KObject): Promise<boolean> {
    const requests = requestsOf(claim);
    const old = (claim.status ?? {}) as Status;
    let cannot: string | undefined;
    if (isExclusive(resource)) {
      const label = resource.metadata.labels?.[CLASS_LABEL];
      const cls = label ? this.classes.store.get(label.slice(0, label.indexOf('.')), label.slice(label.indexOf('.') + 1)) : undefined;
      const classCapacity = (cls?.capabilities as { capacity?: Record<string, string> } | undefined)?.capacity;
      const verdict = resizeExclusive(resource, requests, classCapacity, label !== undefined);
      if (verdict.type === 'grow') {
        await this.client.patch(concrete.ref, resource.metadata.name!, 'merge', {
          metadata: { resourceVersion: resource.metadata.resourceVersion },
          spec: { capabilities: { capacity: verdict.capacity } },
        }, { namespace: resource.metadata.namespace, fieldManager: FIELD_MANAGER });
        await recordEvent(this.client, claim, 'Normal', 'Resizing', `growing ${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name} to ${JSON.stringify(verdict.capacity)}`);
        return true;
      }
      if (verdict.type === 'cannot') cannot = verdict.reason;
    } else if (requests) {
      const st = (resource.status ?? {}) as Status & { bindings?: { claimRef: { uid?: string }; requests?: Record<string, string> }[] };
      const bindings = st.bindings ?? [];
      const mine = bindings.find((b) => b.claimRef.uid === claim.metadata.uid);
      if (mine && !deepEqual(mine.requests ?? {}, requests)) {
        const next = bindings.map((b) => (b === mine ? { ...b, requests } : b));
        const left = allocatable(resource, next);
        if (left && Object.values(left).some((v) => v.startsWith('-'))) {
          cannot = `asks for ${JSON.stringify(requests)} but ${resource.kind} ${resource.metadata.name} has only ${JSON.stringify(allocatable(resource, bindings.filter((b) => b !== mine)))} left`;
        } else {
          await this.client.updateStatus(concrete.ref, { ...resource, status: { ...st, bindings: next, ...(left ? { allocatable: left } : {}) } }, { fieldManager: FIELD_MANAGER });
          return true;
        }
      }
    }
    const status: Status = { ...old };
    if (cannot) status.conditions = setCondition(status.conditions, claim, 'Resized', 'False', 'ResizeNotPossible', cannot);
    else if (old.conditions?.some((c) => c.type === 'Resized')) status.conditions = setCondition(status.conditions, claim, 'Resized', 'True', 'Resized', 'the resource has the requested capacity');
    if (!sameStatusIgnoringTransitionTimes(old, status)) {
      await this.client.updateStatus(entry.def.ref, { ...claim, status }, { fieldManager: FIELD_MANAGER });
      if (cannot) await recordEvent(this.client, claim, 'Warning', 'ResizeNotPossible', cannot);
      return true;
    }
    return false;
  }

  // ------------------------------------------------------------------ release

  private async release(entry: ClaimKindEntry, claim: KObject): Promise<void> {
    const status = (claim.status ?? {}) as Status;
    const ref = status.resourceRef as ResourceRefLike | undefined;
    // Only a resource that records this claim is released, whatever the claim's status names.
    const found = (ref ? await this.verifiedResource(claim, ref) : undefined) ?? this.resourceBoundTo(claim);
    if (found) await this.releaseResource(found.entry, found.resource, claim);
    const finalizers = (claim.metadata.finalizers ?? []).filter((f) => f !== CLAIM_PROTECTION_FINALIZER);
    if (finalizers.length !== (claim.metadata.finalizers ?? []).length) {
      try {
        await this.client.patch(entry.def.ref, claim.metadata.name!, 'merge', {
          metadata: { resourceVersion: claim.metadata.resourceVersion, finalizers: finalizers.length ? finalizers : null },
        }, { namespace: claim.metadata.namespace, fieldManager: FIELD_MANAGER });
      } catch (err) {
        if (!(isApiError(err) && err.code === 404)) throw err;
      }
    }
  }

  private async releaseResource(concrete: ConcreteKindEntry, resource: KObject, claim: KObject): Promise<void> {
    const spec = (resource.spec ?? {}) as { rebindPolicy?: RebindPolicy; claimRef?: { uid?: string } };
    const policy: RebindPolicy = spec.rebindPolicy ?? 'Retain';
    const where = `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
    // Nothing is undone for a claim the resource does not record (see verifiedResource).
    if (!resourceNamesClaim(resource, claim)) return;
    if (!isExclusive(resource)) {
      await this.unbindExternal(concrete, resource, claim, policy);
      // The binding Secret goes before the binding: once the binding is gone, nothing here runs again.
      await this.deleteBindingSecrets(resource, claim);
      const fresh = await this.client.get<KObject>(concrete.ref, resource.metadata.name!, resource.metadata.namespace);
      const st = (fresh.status ?? {}) as Status & { bindings?: { claimRef: { namespace?: string; name?: string; uid?: string } }[] };
      const mine = bindingOf(fresh, claim);
      const bindings = (st.bindings ?? []).filter((b) => b !== mine);
      const left = allocatable(fresh, bindings as { requests?: Record<string, string> }[]);
      await this.client.updateStatus(concrete.ref, { ...fresh, status: { ...st, bindings, phase: bindings.length ? 'Bound' : 'Available', claim: bindings.length ? claimSummary(bindings.length, bindings[0]!.claimRef as never) : undefined, ...(left ? { allocatable: left } : {}) } }, { fieldManager: FIELD_MANAGER });
      await recordEvent(this.client, resource, 'Normal', 'Released', `claim ${claim.metadata.namespace}/${claim.metadata.name} released (${policy})`);
      return;
    }
    if (concrete.kind.sharing === 'Shared') {
      // The claim had its own database/user on the resource: drop, empty or keep it by policy.
      await this.unbindExternal(concrete, resource, claim, policy);
      await this.deleteBindingSecrets(resource, claim);
    }
    switch (policy) {
      case 'Retain':
        await this.setResourcePhase(concrete, resource, 'Released', undefined);
        await recordEvent(this.client, resource, 'Normal', 'Released', `claim ${claim.metadata.namespace}/${claim.metadata.name} released; ${where} is kept until an administrator deletes it or clears spec.claimRef`);
        return;
      case 'Delete':
        await this.deleteIgnoringMissing(concrete.ref, resource.metadata.name!, resource.metadata.namespace);
        return;
      case 'Recycle': {
        if (concrete.kind.sharing !== 'Shared') {
          // (A per-claim kind was emptied by unbindClaim above.)
          const external = await this.connectForRelease(concrete, resource, claim, `the data claim ${claim.metadata.namespace}/${claim.metadata.name} wrote on ${where}`);
          if (!external) {
            // Never handed to another claim unscrubbed: kept Released for an administrator.
            await this.setResourcePhase(concrete, resource, 'Released', undefined);
            return;
          }
          try {
            if (!external.scrub) throw new Error(`${resource.kind} cannot be recycled: its provider cannot scrub data`);
            await external.scrub(resource);
          } finally {
            await external.close?.();
          }
        }
        const cleared = await this.client.patch<KObject>(concrete.ref, resource.metadata.name!, 'merge', {
          metadata: { resourceVersion: resource.metadata.resourceVersion },
          spec: { claimRef: null },
        }, { namespace: resource.metadata.namespace, fieldManager: FIELD_MANAGER });
        await this.setResourcePhase(concrete, cleared, 'Available', undefined);
        await recordEvent(this.client, resource, 'Normal', 'Recycled', `data scrubbed after claim ${claim.metadata.namespace}/${claim.metadata.name} was released; ${where} is Available again`);
        return;
      }
      default: {
        const never: never = policy;
        throw new Error(`unknown rebind policy ${String(never)}`);
      }
    }
  }

  /** unbindExternal has the provider drop, empty or keep the claim's own share of the resource by policy. */
  private async unbindExternal(concrete: ConcreteKindEntry, resource: KObject, claim: KObject, policy: RebindPolicy): Promise<void> {
    const where = `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
    const external = await this.connectForRelease(concrete, resource, claim, `the user and data of claim ${claim.metadata.namespace}/${claim.metadata.name} on ${where} (rebindPolicy ${policy} not applied)`);
    if (!external) return;
    try {
      if (isSharedClient(external)) await external.unbindClaim(resource, { namespace: claim.metadata.namespace!, name: claim.metadata.name!, uid: claim.metadata.uid }, policy, await this.recordedDetails(resource, claim));
    } finally {
      await external.close?.();
    }
  }

  /**
   * connectForRelease connects to the provider for undoing what a claim holds on `resource`
   * (`left` says what that is, for people). A Provider that does not exist never keeps a claim
   * from going: when the provider cannot be reached without it, Warning Events on the claim
   * and the resource say what may be left, and the answer is undefined (the caller goes on
   * without the provider). A credentials Secret that does not exist keeps the release waiting,
   * as it keeps a managed resource's deletion waiting: a Warning Event says which Secret to
   * restore and what stays until then, and the error is thrown (retried with backoff).
   */
  private async connectForRelease(concrete: ConcreteKindEntry, resource: KObject, claim: KObject, left: string): Promise<ExternalClient | undefined> {
    const where = `${resource.kind} ${resource.metadata.namespace}/${resource.metadata.name}`;
    let got: ReleaseConnection;
    try {
      got = await this.access.connectForRelease(concrete.kind, resource);
    } catch (err) {
      if (err instanceof CredentialsNotFoundError) {
        await recordEvent(
          this.client,
          claim,
          'Warning',
          'CannotRelease',
          `cannot release ${where}: ${err.what} does not exist; restore it so the release can finish. Until then ${left} stays, and this claim waits`,
        );
      }
      throw err;
    }
    if ('external' in got) return got.external;
    const message =
      `${got.unreachable.what} named by ${where}'s spec.providerRef does not exist and the provider cannot be reached without it (${errorText(got.cause)}): ` +
      `${left} may be left behind; released the claim anyway — remove it by hand`;
    await recordEvent(this.client, claim, 'Warning', 'ExternalResourceLeft', message);
    await recordEvent(this.client, resource, 'Warning', 'ExternalResourceLeft', message);
    return undefined;
  }

  /**
   * deleteBindingSecrets removes the claim's binding Secret, and the one an earlier version
   * named without a hash unless another binding of the resource still records that name.
   */
  private async deleteBindingSecrets(resource: KObject, claim: KObject): Promise<void> {
    await this.deleteIgnoringMissing(builtinRefs.secrets, bindingSecretName(resource, claim), resource.metadata.namespace);
    const legacy = legacyBindingSecretName(resource, claim);
    if (this.mayHaveLegacySecret(resource, claim, legacy) && !this.legacyNameShared(resource, claim, legacy)) {
      await this.deleteIgnoringMissing(builtinRefs.secrets, legacy, resource.metadata.namespace);
    }
  }

  /**
   * recordedDetails are the details last published for the claim's share (its binding Secret,
   * or the one an earlier version named without a hash): they name a share an earlier
   * version made under older names, which the provider then releases instead of a new name.
   */
  private async recordedDetails(resource: KObject, claim: KObject): Promise<ConnectionDetails | undefined> {
    const read = async (name: string): Promise<ConnectionDetails | undefined> => {
      try {
        return decodeSecretData(await this.client.get<KObject>(builtinRefs.secrets, name, resource.metadata.namespace));
      } catch (err) {
        if (!(isApiError(err) && err.code === 404)) throw err;
        return undefined;
      }
    };
    const legacy = legacyBindingSecretName(resource, claim);
    return (await read(bindingSecretName(resource, claim))) ?? (this.mayHaveLegacySecret(resource, claim, legacy) ? await read(legacy) : undefined);
  }

  /** Whether the claim's binding may predate hashed names: its binding records the old name, or an Exclusive resource (which records none). */
  private mayHaveLegacySecret(resource: KObject, claim: KObject, legacy: string): boolean {
    return isExclusive(resource) || bindingOf<{ claimRef?: { uid?: string }; secretName?: string }>(resource, claim)?.secretName === legacy;
  }

  /** Whether a binding of another claim records `legacy` as its Secret (two claims' old names coincided). */
  private legacyNameShared(resource: KObject, claim: KObject, legacy: string): boolean {
    const bindings = ((resource.status ?? {}) as { bindings?: { claimRef?: { uid?: string }; secretName?: string }[] }).bindings ?? [];
    return bindings.some((b) => b.claimRef?.uid !== claim.metadata.uid && (b.secretName === legacy || b.secretName === undefined));
  }

  private async setResourcePhase(concrete: ConcreteKindEntry, resource: KObject, phase: string, claim: string | undefined): Promise<KObject> {
    const status: Status = { ...((resource.status ?? {}) as Status), phase };
    if (claim) status.claim = claim;
    else delete status.claim;
    return this.client.updateStatus<KObject>(concrete.ref, { ...resource, status }, { fieldManager: FIELD_MANAGER });
  }

  private async deleteIgnoringMissing(ref: ResourceRef, name: string, namespace: string | undefined): Promise<void> {
    try {
      await this.client.delete(ref, name, { namespace });
    } catch (err) {
      if (!(isApiError(err) && err.code === 404)) throw err;
    }
  }
}

// ------------------------------------------------------------------ helpers

function kindKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}

function claimQueueKey(kind: string, claim: KObject): string {
  return `${kind}|${claim.metadata.namespace}/${claim.metadata.name}`;
}

function parseClaimQueueKey(key: string): { kind: string; namespace: string; name: string } {
  const bar = key.indexOf('|');
  const slash = key.indexOf('/', bar);
  return { kind: key.slice(0, bar), namespace: key.slice(bar + 1, slash), name: key.slice(slash + 1) };
}

function claimRefOf(claim: KObject): { apiVersion: string; kind: string; namespace: string; name: string; uid: string } {
  return { apiVersion: claim.apiVersion, kind: claim.kind, namespace: claim.metadata.namespace!, name: claim.metadata.name!, uid: claim.metadata.uid! };
}

function claimSummary(count: number, ref: { namespace: string; name: string }): string {
  return count > 1 ? `${ref.namespace}/${ref.name} +${count - 1}` : `${ref.namespace}/${ref.name}`;
}

/** The uids of the claims a resource is bound to (Exclusive claimRef, Shared bindings). */
function claimUidsOf(resource: KObject): string[] {
  const spec = (resource.spec ?? {}) as { claimRef?: { uid?: string }; sharing?: { mode?: string } };
  const uids: string[] = [];
  if (spec.claimRef?.uid && spec.sharing?.mode !== 'Shared') uids.push(spec.claimRef.uid);
  const status = (resource.status ?? {}) as { bindings?: { claimRef?: { uid?: string } }[] };
  for (const b of status.bindings ?? []) if (b.claimRef?.uid) uids.push(b.claimRef.uid);
  return uids;
}


/** Sets one condition of a claim (transition time kept while its status stays). */
function setCondition(conds: Condition[] | undefined, obj: KObject, type: string, status: Condition['status'], reason: string, message: string): Condition[] {
  const observedGeneration = obj.metadata.generation;
  return setConditionIn(conds, { type, status, reason, message, ...(observedGeneration ? { observedGeneration } : {}) }, new Date());
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
