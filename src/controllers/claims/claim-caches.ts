/**
 * The caches every piece of the claim controller reads: one informer per claim kind and per
 * served concrete kind, and the ResourceClasses, Namespaces, SchedulerProfiles, connection
 * Secrets and ClaimQuotas — views of the process's shared informers when it shares them.
 * Also the lookups by binding record: which resource records a claim (by its uid index).
 */
import { builtinRefs, type Client, type ResourceRef } from '../../client/types.js';
import { cacheInformer, type CacheInformer, type SharedInformers } from '../../client/shared-informers.js';
import { parseApiVersion, type KObject } from '../../machinery/object.js';
import { apiRefs, type Claim, type ClaimQuota, type ConcreteResource, type KindDefinition, type Provider, type ResourceClass } from '../../apis/index.js';
import type { ConcreteKind, GroupKind } from '../../providers/spi.js';
import { CONNECTION_SECRET_SELECTOR } from '../managed/connection-secret.js';
import { resourceNamesClaim } from './binding-check.js';
import { classLabelOf, classOfLabel } from './labels.js';
import type { ServedKinds } from './served-kinds.js';

/** What the claim controller needs of a claim kind's definition (a built-in KindDefinition, or one read from a CRD). */
export type ClaimKindDef = Pick<KindDefinition, 'group' | 'version' | 'kind' | 'ref'>;

/** A claim kind with its informer. */
export interface ClaimKindEntry {
  readonly def: ClaimKindDef;
  readonly informer: CacheInformer<Claim>;
}

/** A served concrete kind with its informer. */
export interface ConcreteKindEntry {
  readonly kind: ConcreteKind;
  readonly ref: ResourceRef;
  readonly informer: CacheInformer<ConcreteResource>;
  /** The claim kinds it implements. */
  readonly implements: readonly GroupKind[];
  /**
   * Reconciled by a provider in another process (a kind read from its CRD): Conductor binds,
   * provisions, publishes and releases its resources through the API only, and writes the
   * phase that follows from a binding (Bound) itself.
   */
  readonly outOfProcess: boolean;
}

/** A resource found for a claim, with its kind's entry. */
export interface FoundResource {
  readonly entry: ConcreteKindEntry;
  readonly resource: ConcreteResource;
}

/** The key of a kind in the caches' maps: `group/Kind`. */
export function kindKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}

/**
 * claimUidsMentioned lists the uids of the claims a resource mentions: an Exclusive
 * resource's `spec.claimRef`, and every `status.bindings` entry (of a Shared resource, or left
 * on one whose mode changed). Wider than binding-check's claimUidsOf on purpose: it finds the
 * claims to wake and the candidates to check, and resourceNamesClaim then decides.
 */
export function claimUidsMentioned(resource: ConcreteResource): string[] {
  const uids: string[] = [];
  const claimRef = resource.spec?.claimRef;
  if (claimRef?.uid && resource.spec?.sharing?.mode !== 'Shared') uids.push(claimRef.uid);
  for (const b of resource.status?.bindings ?? []) if (b.claimRef?.uid) uids.push(b.claimRef.uid);
  return uids;
}

/** Index of claims by uid. */
const CLAIM_UID_INDEX = 'uid';
/** Index of concrete resources by the uids of the claims their record binds. */
const BOUND_CLAIM_UID_INDEX = 'claim-uid';
/** Index of concrete resources by the class that provisioned them (their CLASS_LABEL value). */
const CLASS_LABEL_INDEX = 'class-label';

export class ClaimCaches {
  /** Claim kinds by `kindKey`. */
  readonly claims = new Map<string, ClaimKindEntry>();
  /** Served concrete kinds by `kindKey`. */
  readonly concretes = new Map<string, ConcreteKindEntry>();
  readonly classes: CacheInformer<ResourceClass>;
  readonly namespaces: CacheInformer;
  /** SchedulerProfiles of the system namespace. */
  readonly profiles: CacheInformer;
  /** Connection Secrets (the resources' raw details and the claims' published ones). */
  readonly secrets: CacheInformer;
  readonly quotas: CacheInformer<ClaimQuota>;
  /** Providers of the system namespace: where a class naming none is placed (ProviderModule.placedAcrossProviders). */
  readonly providers: CacheInformer<Provider>;

  constructor(
    private readonly client: Client,
    private readonly informers: SharedInformers | undefined,
    kinds: ServedKinds,
    systemNamespace: string,
  ) {
    for (const def of kinds.claims) this.addClaimKind(def);
    for (const { kind, def } of kinds.concretes) this.addConcreteKind(kind, def.ref, false);
    this.classes = cacheInformer<ResourceClass>(client, informers, apiRefs.resourceclasses);
    this.namespaces = cacheInformer(client, informers, builtinRefs.namespaces);
    this.profiles = cacheInformer(client, informers, apiRefs.schedulerprofiles, { namespace: systemNamespace });
    this.secrets = cacheInformer(client, informers, builtinRefs.secrets, { fieldSelector: CONNECTION_SECRET_SELECTOR });
    this.quotas = cacheInformer<ClaimQuota>(client, informers, apiRefs.claimquotas);
    this.providers = cacheInformer<Provider>(client, informers, apiRefs.providers, { namespace: systemNamespace });
  }

  /** Starts every informer and waits for their first lists: the claims last, so every candidate is known before the first claim. */
  async start(): Promise<void> {
    const others: { start(): void; waitForSync(): Promise<boolean> }[] = [
      this.classes,
      this.namespaces,
      this.profiles,
      this.secrets,
      this.quotas,
      this.providers,
      ...[...this.concretes.values()].map((e) => e.informer),
    ];
    for (const i of others) i.start();
    await Promise.all(others.map((i) => i.waitForSync()));
    for (const e of this.claims.values()) e.informer.start();
    await Promise.all([...this.claims.values()].map((e) => e.informer.waitForSync()));
  }

  /** addClaimKind caches a claim kind (its informer not started yet) and returns its entry. */
  addClaimKind(def: ClaimKindDef): ClaimKindEntry {
    const informer = cacheInformer<Claim>(this.client, this.informers, def.ref);
    if (!informer.store.hasIndexer(CLAIM_UID_INDEX)) informer.addIndexer(CLAIM_UID_INDEX, (o) => [o.metadata.uid ?? '']);
    const entry = { def, informer };
    this.claims.set(kindKey(def.group, def.kind), entry);
    return entry;
  }

  /** removeClaimKind stops caching a claim kind; returns its entry (its cache as it was last). */
  removeClaimKind(key: string): ClaimKindEntry | undefined {
    const entry = this.claims.get(key);
    if (!entry) return undefined;
    this.claims.delete(key);
    entry.informer.stop();
    return entry;
  }

  /** addConcreteKind caches a concrete kind (its informer not started yet) and returns its entry. */
  addConcreteKind(kind: ConcreteKind, ref: ResourceRef, outOfProcess: boolean): ConcreteKindEntry {
    const informer = cacheInformer<ConcreteResource>(this.client, this.informers, ref);
    if (!informer.store.hasIndexer(BOUND_CLAIM_UID_INDEX)) informer.addIndexer(BOUND_CLAIM_UID_INDEX, (o) => claimUidsMentioned(o));
    if (!informer.store.hasIndexer(CLASS_LABEL_INDEX)) {
      informer.addIndexer(CLASS_LABEL_INDEX, (o) => {
        const label = classLabelOf(o);
        return label ? [label] : [];
      });
    }
    const entry = { kind, ref, informer, implements: kind.implements.map((i) => i.claimKind), outOfProcess };
    this.concretes.set(kindKey(kind.group, kind.kind), entry);
    return entry;
  }

  /** removeConcreteKind stops caching a concrete kind; returns its entry (its cache as it was last). */
  removeConcreteKind(key: string): ConcreteKindEntry | undefined {
    const entry = this.concretes.get(key);
    if (!entry) return undefined;
    this.concretes.delete(key);
    entry.informer.stop();
    return entry;
  }

  stop(): void {
    for (const e of this.claims.values()) e.informer.stop();
    for (const e of this.concretes.values()) e.informer.stop();
    this.classes.stop();
    this.namespaces.stop();
    this.profiles.stop();
    this.secrets.stop();
    this.quotas.stop();
    this.providers.stop();
  }

  /** The served concrete kind of an apiVersion and kind, if served. */
  concreteOf(apiVersion: string, kind: string): ConcreteKindEntry | undefined {
    return this.concretes.get(kindKey(parseApiVersion(apiVersion).group, kind));
  }

  /** Claims (of every kind) with this uid. */
  claimsWithUid(uid: string): { kind: string; claim: Claim }[] {
    const out: { kind: string; claim: Claim }[] = [];
    for (const [kind, entry] of this.claims) for (const claim of entry.informer.store.byIndex(CLAIM_UID_INDEX, uid)) out.push({ kind, claim });
    return out;
  }

  /** Every claim of every kind in a namespace. */
  claimsIn(namespace: string): Claim[] {
    return [...this.claims.values()].flatMap((e) => e.informer.store.list(namespace));
  }

  /** The resource whose own record (claimRef or bindings) names the claim by namespace, name and uid. */
  resourceBoundTo(claim: KObject): FoundResource | undefined {
    const uid = claim.metadata.uid!;
    for (const entry of this.concretes.values()) {
      const found = entry.informer.store.byIndex(BOUND_CLAIM_UID_INDEX, uid).find((r) => resourceNamesClaim(r, claim));
      if (found) return { entry, resource: found };
    }
    return undefined;
  }

  /** The ResourceClass a resource was provisioned from (its CLASS_LABEL), if cached. */
  classOf(resource: KObject): ResourceClass | undefined {
    const cls = classOfLabel(classLabelOf(resource));
    return cls ? this.classes.store.get(cls.namespace, cls.name) : undefined;
  }

  /** How many resources of every served kind a class has provisioned (counted by index, not by reading them). */
  instanceCount(cls: KObject): number {
    const label = `${cls.metadata.namespace}.${cls.metadata.name}`;
    let n = 0;
    for (const e of this.concretes.values()) n += e.informer.store.countByIndex(CLASS_LABEL_INDEX, label);
    return n;
  }
}
