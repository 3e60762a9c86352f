/**
 * Builders of claims and candidates for tests (this folder's and the binder's): each takes
 * the fields a test cares about and fills in the rest. Capacities are written as strings.
 */
import { parseQuantity, type Quantity } from '../../machinery/quantity/index.js';
import type { LabelSelector } from '../../machinery/selectors/index.js';
import type { PluginContext, QuotaCheck } from '../plugin.js';
import { builtinPortableMatchers, type PortableMatcherRegistry } from '../portable-matchers.js';
import { RegionHierarchy } from '../region-hierarchy.js';
import { TierOrder } from '../tier-order.js';
import { PriceMemo } from '../prices.js';
import type {
  CandidatePricer,
  Capabilities,
  ClaimInfo,
  ClaimRef,
  ClassCandidate,
  GroupKind,
  Money,
  RegionMatch,
  ResourceCandidate,
  ResourcePhase,
  Sharing,
} from '../types.js';

export const MYSQL: GroupKind = { group: 'storage.conductor.io', kind: 'MySQLInstance' };
export const POSTGRES: GroupKind = { group: 'storage.conductor.io', kind: 'PostgreSQLInstance' };
export const RDS: GroupKind = { group: 'database.aws.conductor.io', kind: 'RDSInstance' };
export const CLOUDSQL: GroupKind = { group: 'database.gcp.conductor.io', kind: 'CloudSQLInstance' };

/** caps turns `{storage: '25Gi'}` into a ResourceList. */
export function caps(list: Readonly<Record<string, string>> = {}): Record<string, Quantity> {
  const out: Record<string, Quantity> = {};
  for (const [k, v] of Object.entries(list)) out[k] = parseQuantity(v);
  return out;
}

/** The capability fields of a builder: capacity as strings. */
export interface CapsSpec {
  capacity?: Record<string, string>;
  region?: string;
  cost?: string;
  performance?: string;
}

function capabilities(c: CapsSpec = {}): Capabilities {
  return {
    capacity: caps(c.capacity),
    ...(c.region === undefined ? {} : { region: c.region }),
    ...(c.cost === undefined ? {} : { cost: c.cost }),
    ...(c.performance === undefined ? {} : { performance: c.performance }),
  };
}

/** ClaimSpec is what a test says about a claim. */
export interface ClaimSpec extends CapsSpec {
  namespace?: string;
  name?: string;
  uid?: string;
  kind?: GroupKind;
  resourceClass?: string;
  resourceName?: string;
  resourceSelector?: LabelSelector;
  portable?: Record<string, unknown>;
  namespaceLabels?: Record<string, string>;
  /** `requirements.maxMonthlyPrice`, e.g. `{amount: 50, currency: 'USD'}`. */
  maxMonthlyPrice?: Money;
}

/** claim builds a MySQLInstance claim `app/db` unless told otherwise. */
export function claim(s: ClaimSpec = {}): ClaimInfo {
  return {
    namespace: s.namespace ?? 'app',
    name: s.name ?? 'db',
    uid: s.uid ?? 'uid-app-db',
    kind: s.kind ?? MYSQL,
    requirements: s.maxMonthlyPrice === undefined ? capabilities(s) : { ...capabilities(s), maxMonthlyPrice: s.maxMonthlyPrice },
    ...(s.resourceClass === undefined ? {} : { resourceClass: s.resourceClass }),
    ...(s.resourceName === undefined ? {} : { resourceName: s.resourceName }),
    ...(s.resourceSelector === undefined ? {} : { resourceSelector: s.resourceSelector }),
    portable: s.portable ?? {},
    namespaceLabels: s.namespaceLabels ?? {},
  };
}

/** ResourceSpec is what a test says about a concrete resource. */
export interface ResourceSpec extends CapsSpec {
  name: string;
  namespace?: string;
  kind?: GroupKind;
  labels?: Record<string, string>;
  profile?: string;
  phase?: ResourcePhase;
  sharing?: Sharing;
  boundCount?: number;
  allocatable?: Record<string, string>;
  implements?: GroupKind[];
  portable?: Record<string, unknown>;
  provider?: string;
  claimRef?: ClaimRef;
  deleting?: boolean;
}

/** resource builds an Available, Exclusive RDSInstance implementing MySQLInstance in conductor-system. */
export function resource(s: ResourceSpec): ResourceCandidate {
  return {
    type: 'resource',
    kind: s.kind ?? RDS,
    namespace: s.namespace ?? 'conductor-system',
    name: s.name,
    labels: s.labels ?? {},
    ...(s.profile === undefined ? {} : { profile: s.profile }),
    phase: s.phase ?? 'Available',
    capabilities: capabilities(s),
    sharing: s.sharing ?? { mode: 'Exclusive' },
    boundCount: s.boundCount ?? 0,
    ...(s.deleting === true ? { deleting: true } : {}),
    ...(s.allocatable === undefined ? {} : { allocatable: caps(s.allocatable) }),
    implements: s.implements ?? [MYSQL],
    portable: s.portable ?? {},
    ...(s.provider === undefined ? {} : { provider: s.provider }),
    ...(s.claimRef === undefined ? {} : { claimRef: s.claimRef }),
    createdAt: 0,
  };
}

/** ClassSpec is what a test says about a ResourceClass. */
export interface ClassSpec extends CapsSpec {
  name: string;
  namespace?: string;
  profile?: string;
  supportedResources?: GroupKind[];
  allowedNamespaces?: LabelSelector;
  isDefault?: boolean;
  maxInstances?: number;
  instanceCount?: number;
  templateKind?: GroupKind;
  portable?: Record<string, unknown>;
  provider?: string;
  deleting?: boolean;
}

/** resourceClass builds a class serving MySQLInstance with an RDSInstance template; its profile defaults to its name. */
export function resourceClass(s: ClassSpec): ClassCandidate {
  return {
    type: 'class',
    namespace: s.namespace ?? 'conductor-system',
    name: s.name,
    profile: s.profile ?? s.name,
    capabilities: capabilities(s),
    supportedResources: s.supportedResources ?? [MYSQL],
    ...(s.allowedNamespaces === undefined ? {} : { allowedNamespaces: s.allowedNamespaces }),
    isDefault: s.isDefault ?? false,
    maxInstances: s.maxInstances ?? 0,
    ...(s.deleting === true ? { deleting: true } : {}),
    instanceCount: s.instanceCount ?? 0,
    templateKind: s.templateKind ?? RDS,
    portable: s.portable ?? {},
    ...(s.provider === undefined ? {} : { provider: s.provider }),
    createdAt: 0,
  };
}

/** ContextSpec is what a plugin test configures. */
export interface ContextSpec {
  regions?: Record<string, string[]>;
  regionMatch?: RegionMatch;
  costTiers?: string[];
  performanceTiers?: string[];
  portableMatchers?: PortableMatcherRegistry;
  quota?: QuotaCheck;
  providerUsage?: Record<string, number>;
  systemNamespace?: string;
  /** Classes `classOf` finds. */
  classes?: ClassCandidate[];
  /** Prices candidates (through a PriceMemo, as the Scheduler does); without one none has a price. */
  pricer?: CandidatePricer;
}

/** pluginContext builds the context a plugin is constructed with. */
export function pluginContext(s: ContextSpec = {}): PluginContext {
  const usage = s.providerUsage ?? {};
  const prices = new PriceMemo(s.pricer);
  return {
    systemNamespace: s.systemNamespace ?? 'conductor-system',
    regions: new RegionHierarchy(s.regions ?? {}),
    regionMatch: s.regionMatch ?? 'contained',
    costTiers: new TierOrder(s.costTiers ?? []),
    performanceTiers: new TierOrder(s.performanceTiers ?? []),
    portableMatchers: s.portableMatchers ?? builtinPortableMatchers(),
    ...(s.quota === undefined ? {} : { quota: s.quota }),
    pricing: prices.enabled,
    priceOf: (claim, c) => prices.priceOf(claim, c),
    providerUsage: (p) => usage[p] ?? 0,
    classOf: (namespace, name) => s.classes?.find((c) => c.namespace === namespace && c.name === name),
  };
}
