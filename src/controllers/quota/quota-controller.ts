/**
 * A QuotaController keeps every ClaimQuota's status current: `status.hard` mirrors
 * `spec.hard` and `status.used` is what the namespace's claims use, by the same keys
 * (arithmetic in `usage.ts`). It works from informer caches only: one informer per claim
 * kind (discovered from CRDs in the `claim` category or labelled `conductor.io/abstract`,
 * so kinds added later are counted too), one for ClaimQuotas, one for ResourceClasses
 * (their prices feed `cost.monthly`) and one per concrete kind (CRDs in the `managed`
 * category): a claim's price comes from the resource whose own record binds it and that
 * resource's class label, never from the claim's status.
 *
 * A quota is recomputed when it is created, when its `spec.hard` and `status.hard` differ,
 * when a claim of its namespace is added, changed or deleted, when a class changes (for
 * quotas with `cost.monthly`), when a claim kind comes or goes, and on a periodic resync.
 * Changes to `status.used` alone (the admission plugin's bookkeeping) do not wake it: the
 * next claim event or resync brings the recorded usage back to what the claims use.
 */
import type { ControllerMetrics } from '../metrics.js';
import type { Logger } from 'pino';
import type { Client, ResourceRef } from '../../client/types.js';
import { builtinRefs } from '../../client/types.js';
import { cacheInformer, type CacheInformer, type SharedInformers } from '../../client/shared-informers.js';
import { WorkQueue } from '../../client/work-queue.js';
import { splitKey } from '../../client/object-cache.js';
import { isConflict, isNotFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { deepEqual, isPlainObject } from '../../machinery/object.js';
import { apiRefs } from '../../apis/index.js';
import { definesClaimKind, definesConcreteKind, servedKindOf } from '../../apis/index.js';
import { needsPrices, quotaStatusFor, RESOURCE_CLASS_LABEL } from '../../apis/quota/usage.js';
import { boundResourceIndex, claimUidsOf } from '../claims/binding-check.js';

const FIELD_MANAGER = 'conductor-quota-controller';

export interface QuotaControllerOptions {
  metrics?: ControllerMetrics;
  logger: Logger;
  /** Workers recomputing quotas in parallel (each quota by one worker at a time). Default 2. */
  workers?: number;
  /** Every quota is recomputed this often, whatever happened. Default 5 minutes. */
  resyncMs?: number;
  /** Informers shared with the process's other controllers; default private ones. */
  informers?: SharedInformers;
}

interface ClaimKindEntry {
  ref: ResourceRef;
  informer: CacheInformer;
}

export class QuotaController {
  private readonly log: Logger;
  private readonly queue: WorkQueue;
  private readonly crds: CacheInformer;
  private readonly quotas: CacheInformer;
  private readonly classes: CacheInformer;
  /** Claim kinds by CRD name. */
  private readonly claimKinds = new Map<string, ClaimKindEntry>();
  /** Concrete kinds by CRD name: their records say which resource (and so which class) binds a claim. */
  private readonly concreteKinds = new Map<string, ClaimKindEntry>();
  private stopped = false;

  constructor(
    private readonly client: Client,
    private readonly opts: QuotaControllerOptions,
  ) {
    this.log = opts.logger;
    this.queue = new WorkQueue({ name: 'claim-quotas', qps: 100, burst: 500, metrics: opts.metrics?.queues });
    this.crds = cacheInformer(client, opts.informers, builtinRefs.customresourcedefinitions, {}, this.log);
    this.quotas = cacheInformer(client, opts.informers, apiRefs.claimquotas, { resyncMs: opts.resyncMs ?? 5 * 60_000 }, this.log);
    this.classes = cacheInformer(client, opts.informers, apiRefs.resourceclasses, {}, this.log);
  }

  async start(): Promise<void> {
    this.crds.addHandler({
      onAdd: (crd) => this.crdChanged(crd),
      onUpdate: (_old, crd) => this.crdChanged(crd),
      onDelete: (crd) => this.dropClaimKind(crd.metadata.name ?? ''),
    });
    this.quotas.addHandler({
      onAdd: (q) => this.enqueue(q),
      onUpdate: (old, q) => {
        // A resync delivers (q, q); a spec change or a status.hard out of step needs work.
        const spec = isPlainObject(q.spec) ? q.spec : {};
        const status = isPlainObject(q.status) ? q.status : {};
        if (old === q || !deepEqual(old.spec, q.spec) || !deepEqual(status.hard, spec.hard) || status.used === undefined) this.enqueue(q);
      },
    });
    this.classes.addHandler({
      onAdd: () => this.classesChanged(),
      onUpdate: (old, c) => {
        if (
          !deepEqual(old.metadata.annotations, c.metadata.annotations) ||
          !deepEqual(old['resourceClass'], c['resourceClass']) ||
          !deepEqual(old['supportedResources'], c['supportedResources'])
        )
          this.classesChanged();
      },
      onDelete: () => this.classesChanged(),
    });
    const base = [this.crds, this.quotas, this.classes];
    for (const i of base) i.start();
    await Promise.all(base.map((i) => i.waitForSync()));
    await Promise.all([...this.claimKinds.values(), ...this.concreteKinds.values()].map((e) => e.informer.waitForSync()));
    void this.queue.runWorkers(this.opts.workers ?? 2, (key) => this.reconcile(key), {
      onError: (key, err) =>
        this.log.warn({ quota: key, err: err instanceof Error ? err.message : String(err) }, 'cannot update ClaimQuota status; retrying with backoff'),
    });
  }

  stop(): void {
    this.stopped = true;
    this.queue.shutDown();
    this.crds.stop();
    this.quotas.stop();
    this.classes.stop();
    for (const e of this.claimKinds.values()) e.informer.stop();
    this.claimKinds.clear();
    for (const e of this.concreteKinds.values()) e.informer.stop();
    this.concreteKinds.clear();
  }

  // ------------------------------------------------------------------ claim kinds

  private crdChanged(crd: KObject): void {
    this.concreteCrdChanged(crd);
    const name = crd.metadata.name ?? '';
    const ref = claimRefOf(crd);
    if (!ref) {
      this.dropClaimKind(name);
      return;
    }
    const current = this.claimKinds.get(name);
    if (current && deepEqual(current.ref, ref)) return;
    if (current) this.dropClaimKind(name);
    if (this.stopped) return;
    const informer = cacheInformer(this.client, this.opts.informers, ref, {}, this.log);
    informer.addHandler({
      onAdd: (c) => this.claimChanged(c),
      onUpdate: (old, c) => {
        if (!deepEqual(old.spec, c.spec) || !deepEqual(old.status, c.status)) this.claimChanged(c);
      },
      onDelete: (c) => this.claimChanged(c),
    });
    this.claimKinds.set(name, { ref, informer });
    informer.start();
    this.log.debug({ kind: ref.kind, group: ref.group }, 'counting claims of a claim kind');
  }

  /** Follows a CRD of a concrete kind: bindings and class labels of its resources price claims. */
  private concreteCrdChanged(crd: KObject): void {
    const name = crd.metadata.name ?? '';
    const ref = concreteRefOf(crd);
    const current = this.concreteKinds.get(name);
    if (current && ref && deepEqual(current.ref, ref)) return;
    if (current) {
      this.concreteKinds.delete(name);
      current.informer.stop();
      this.pricesChanged();
    }
    if (!ref || this.stopped) return;
    const informer = cacheInformer(this.client, this.opts.informers, ref, {}, this.log);
    informer.addHandler({
      onAdd: (r) => this.resourceChanged(undefined, r),
      onUpdate: (old, r) => this.resourceChanged(old, r),
      onDelete: (r) => this.resourceChanged(undefined, r),
    });
    this.concreteKinds.set(name, { ref, informer });
    informer.start();
  }

  /** A resource's bindings or class label changed: the quotas with cost.monthly of the claims it binds (or bound) are recomputed. */
  private resourceChanged(old: KObject | undefined, r: KObject): void {
    if (old && deepEqual(claimUidsOf(old), claimUidsOf(r)) && old.metadata.labels?.[RESOURCE_CLASS_LABEL] === r.metadata.labels?.[RESOURCE_CLASS_LABEL]) return;
    if (claimUidsOf(r).length === 0 && (!old || claimUidsOf(old).length === 0)) return;
    this.pricesChanged();
  }

  private dropClaimKind(crdName: string): void {
    const entry = this.claimKinds.get(crdName);
    if (!entry) return;
    this.claimKinds.delete(crdName);
    entry.informer.stop();
    // The kind's claims no longer count.
    const namespaces = new Set(entry.informer.store.list().map((c) => c.metadata.namespace ?? ''));
    for (const ns of namespaces) this.enqueueNamespace(ns);
  }

  // ------------------------------------------------------------------ events

  private enqueue(q: KObject): void {
    this.queue.add(`${q.metadata.namespace ?? ''}/${q.metadata.name ?? ''}`);
  }

  private enqueueNamespace(ns: string): void {
    for (const q of this.quotas.store.list(ns)) this.enqueue(q);
  }

  private claimChanged(claim: KObject): void {
    this.enqueueNamespace(claim.metadata.namespace ?? '');
  }

  private pricesChanged(): void {
    this.classesChanged();
  }

  private classesChanged(): void {
    for (const q of this.quotas.store.list()) {
      const hard = isPlainObject(q.spec) && isPlainObject(q.spec.hard) ? Object.keys(q.spec.hard) : [];
      if (needsPrices(hard)) this.enqueue(q);
    }
  }

  // ------------------------------------------------------------------ reconcile

  private async reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const { namespace, name } = splitKey(key);
    const quota = this.quotas.store.get(namespace, name);
    if (!quota) return;
    // Counting from a cache that is still filling would under-report.
    if ([...this.claimKinds.values(), ...this.concreteKinds.values()].some((e) => !e.informer.hasSynced()) || !this.classes.hasSynced())
      return { requeueAfterMs: 200 };
    const claims: KObject[] = [];
    for (const e of this.claimKinds.values()) claims.push(...e.informer.store.list(namespace));
    // Claims are priced by the records of the resources binding them, never by their status.
    const bound = () => boundResourceIndex([...this.concreteKinds.values()].flatMap((e) => e.informer.store.list()));
    const want = quotaStatusFor(
      quota,
      claims,
      () => this.classes.store.list(),
      (message) => this.log.warn({ namespace, name }, message),
      bound,
    );
    const have = isPlainObject(quota.status) ? quota.status : {};
    if (deepEqual(have.hard, want.hard) && deepEqual(have.used, want.used)) return;
    try {
      await this.client.updateStatus(apiRefs.claimquotas, { ...quota, status: { ...have, ...want } }, { fieldManager: FIELD_MANAGER });
    } catch (err) {
      if (isNotFound(err)) return;
      // Someone else (the admission plugin) wrote first: look again with the fresh object.
      if (isConflict(err)) return { requeueAfterMs: 20 };
      throw err;
    }
  }
}

/** The ResourceRef of a CRD's concrete kind (in the `managed` category or annotated `conductor.io/implements`), or undefined. */
export function concreteRefOf(crd: KObject): ResourceRef | undefined {
  return definesConcreteKind(crd) ? servedKindOf(crd)?.ref : undefined;
}

/** The ResourceRef of a CRD's claim kind, or undefined when the CRD does not define one that is served. */
export function claimRefOf(crd: KObject): ResourceRef | undefined {
  return definesClaimKind(crd) ? servedKindOf(crd)?.ref : undefined;
}
