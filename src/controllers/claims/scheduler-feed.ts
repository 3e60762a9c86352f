/**
 * A SchedulerFeed keeps the scheduler's candidates in step with the caches: every served
 * concrete resource (a resource candidate) and every ResourceClass (a class candidate that
 * counts what it provisioned), and the default SchedulerProfile's configuration. The
 * providers' matchers judge portable configuration; the namespaces' ClaimQuotas judge what a
 * class would cost. Waking claims is the controller's business, not the feed's.
 */
import type { Logger } from 'pino';
import { isPlainObject, type KObject } from '../../machinery/object.js';
import {
  classCandidateFromObject,
  classKey,
  placedClassCandidates,
  providerTargetFromObject,
  resourceCandidateFromObject,
  resourceKey,
  Scheduler,
  schedulerConfigFromProfileSpec,
  type PortableMatcherRegistry,
  type ProviderTarget,
} from '../../scheduler/index.js';
import type { ConcreteKind, ProviderType } from '../../providers/spi.js';
import { kindKey, type ClaimCaches, type ConcreteKindEntry } from './claim-caches.js';
import { candidatePricer } from './candidate-prices.js';
import { providerMatchers, registerKindMatchers, unregisterKindMatchers } from './provider-matchers.js';
import { classQuotaCheck } from './quota-check.js';
import { classLabelOf, classOfLabel } from './labels.js';
import { errorText } from './claim-status.js';

/** The name of the SchedulerProfile the scheduler follows. */
export const DEFAULT_PROFILE = 'default';

export class SchedulerFeed {
  readonly scheduler: Scheduler;
  private readonly matchers: PortableMatcherRegistry;

  /** The concrete kinds served, by kindKey: whose price hooks price candidates. */
  private readonly kinds = new Map<string, ConcreteKind>();

  /** The candidate keys of each class placed across Providers, by its classKey. */
  private readonly placed = new Map<string, Set<string>>();

  constructor(
    private readonly caches: ClaimCaches,
    concreteKinds: readonly ConcreteKind[],
    private readonly systemNamespace: string,
    private readonly log: Logger,
    /** The provider type whose Providers a class of this concrete kind naming none is placed across (ProviderAccess.placedAcross). */
    private readonly placedAcross: (group: string, kind: string) => ProviderType | undefined = () => undefined,
  ) {
    this.matchers = providerMatchers(concreteKinds);
    for (const k of concreteKinds) this.kinds.set(kindKey(k.group, k.kind), k);
    this.scheduler = new Scheduler({
      systemNamespace,
      portableMatchers: this.matchers,
      pricer: candidatePricer({
        kind: (group, kind) => this.kinds.get(kindKey(group, kind)),
        provider: (namespace, name) => caches.providers.store.get(namespace, name),
        systemNamespace,
      }),
      quota: classQuotaCheck({
        quotasIn: (ns) => caches.quotas.store.list(ns),
        claimsIn: (ns) => caches.claimsIn(ns),
        classes: () => caches.classes.store.list(),
        classOf: (c) => caches.classes.store.get(c.namespace, c.name),
        boundTo: (c) => (c.metadata.uid ? caches.resourceBoundTo(c)?.resource : undefined),
      }),
    });
  }

  /** A concrete kind is served from now on (an out-of-process provider's): its matchers judge claims. */
  addKind(kind: ConcreteKind): void {
    registerKindMatchers(this.matchers, kind);
    this.kinds.set(kindKey(kind.group, kind.kind), kind);
  }

  /** A concrete kind is no longer served (its resources are removed one by one by the caller). */
  removeKind(kind: ConcreteKind): void {
    unregisterKindMatchers(this.matchers, kind);
    if (this.kinds.get(kindKey(kind.group, kind.kind)) === kind) this.kinds.delete(kindKey(kind.group, kind.kind));
  }

  /** A resource was added or changed: its candidate is (re)read from its own record. */
  resource(entry: ConcreteKindEntry, o: KObject): void {
    try {
      this.scheduler.upsert(resourceCandidateFromObject(o, { implements: entry.implements }));
    } catch (err) {
      this.log.warn(
        { kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, err: errorText(err) },
        'cannot schedule onto a resource with an unreadable spec',
      );
    }
  }

  /** A resource was deleted. */
  resourceRemoved(entry: ConcreteKindEntry, o: KObject): void {
    this.scheduler.remove(resourceKey(entry.kind, o.metadata.namespace ?? '', o.metadata.name ?? ''));
  }

  /** A class was added or changed (or the count of what it provisioned did). */
  class(o: KObject): void {
    const key = classKey(o.metadata.namespace ?? '', o.metadata.name ?? '');
    try {
      const candidate = classCandidateFromObject(o, { instanceCount: this.caches.instanceCount(o) });
      const type = candidate.provider === undefined ? this.placedAcross(candidate.templateKind.group, candidate.templateKind.kind) : undefined;
      if (type === undefined) {
        this.removePlaced(key);
        this.scheduler.upsert(candidate);
        return;
      }
      this.scheduler.remove(key);
      const keys = new Set<string>();
      const targets = this.providerTargets();
      for (const c of placedClassCandidates(candidate, type, targets, this.systemNamespace)) keys.add(this.scheduler.upsert(c));
      for (const k of this.placed.get(key) ?? []) if (!keys.has(k)) this.scheduler.remove(k);
      this.placed.set(key, keys);
    } catch (err) {
      this.log.warn({ class: `${o.metadata.namespace}/${o.metadata.name}`, err: errorText(err) }, 'cannot schedule with a ResourceClass that cannot be read');
    }
  }

  /** A class was deleted. */
  classRemoved(o: KObject): void {
    const key = classKey(o.metadata.namespace ?? '', o.metadata.name ?? '');
    this.scheduler.remove(key);
    this.removePlaced(key);
  }

  /** The system namespace's Providers as targets; one whose spec cannot be read is left out (and logged). */
  private providerTargets(): ProviderTarget[] {
    const targets: ProviderTarget[] = [];
    for (const p of this.caches.providers.store.list(this.systemNamespace)) {
      try {
        targets.push(providerTargetFromObject(p));
      } catch (err) {
        this.log.warn(
          { provider: `${p.metadata.namespace}/${p.metadata.name}`, err: errorText(err) },
          'cannot place classes on a Provider whose spec cannot be read',
        );
      }
    }
    return targets;
  }

  private removePlaced(key: string): void {
    for (const k of this.placed.get(key) ?? []) this.scheduler.remove(k);
    this.placed.delete(key);
  }

  /**
   * A Provider of the system namespace came, went or changed: the classes placed across
   * Providers are placed again. True when there are such classes (pending claims may fit now).
   */
  providersChanged(): boolean {
    if (this.placed.size === 0) return false;
    for (const cls of this.caches.classes.store.list()) {
      if (this.placed.has(classKey(cls.metadata.namespace ?? '', cls.metadata.name ?? ''))) this.class(cls);
    }
    return true;
  }

  /**
   * A resource of a class came or went (or moved from the class of `previous` to its own): the
   * instance count of each class concerned is read again. True when one of them is known.
   */
  classCountChanged(resource: KObject, previous?: KObject): boolean {
    let known = false;
    for (const r of previous ? [resource, previous] : [resource]) {
      const ref = classOfLabel(classLabelOf(r));
      const cls = ref ? this.caches.classes.store.get(ref.namespace, ref.name) : undefined;
      if (!cls) continue;
      this.class(cls);
      known = true;
    }
    return known;
  }

  /** A SchedulerProfile changed: true when it is the default one and its configuration was taken. */
  profile(o: KObject): boolean {
    if (o.metadata.name !== DEFAULT_PROFILE) return false;
    try {
      this.scheduler.setConfig(schedulerConfigFromProfileSpec(isPlainObject(o.spec) ? o.spec : {}));
      return true;
    } catch (err) {
      this.log.warn({ err: errorText(err) }, 'the default SchedulerProfile cannot be read; keeping the previous configuration');
      return false;
    }
  }
}
