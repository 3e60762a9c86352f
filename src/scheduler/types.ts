/**
 * The scheduler's data model: what a claim asks for (ClaimInfo), what may satisfy it
 * (Candidate: an existing concrete resource or a ResourceClass that can create one), how
 * the scheduler is configured (SchedulerConfig, SchedulerProfile, ExtenderConfig) and what
 * it answers (ScheduleResult). Everything here is plain data: the binder builds these from
 * informer caches (see convert.ts) and the scheduler never calls the API.
 */
import type { KObject } from '../machinery/object.js';
import type { Quantity } from '../machinery/quantity/index.js';
import type { LabelSelector } from '../machinery/selectors/index.js';

/** A GroupKind names a kind without its version, e.g. `{group: 'storage.conductor.io', kind: 'MySQLInstance'}`. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** A ResourceList maps a capacity dimension (`storage`, `connections`, ...) to an amount. */
export type ResourceList = Readonly<Record<string, Quantity>>;

/**
 * Requirements are what a claim asks for, and Capabilities what a candidate offers, in the
 * generic terms every kind shares (docs/design.md 3.1/3.2).
 */
export interface Requirements {
  readonly capacity: ResourceList;
  readonly region?: string;
  readonly cost?: string;
  readonly performance?: string;
  /** Claims only (`spec.requirements.maxMonthlyPrice`): the most a candidate may cost a month, compared in its currency only. */
  readonly maxMonthlyPrice?: Money;
}

/** Capabilities are what a resource or class provides, in the terms of Requirements (a price limit is the claim's alone). */
export type Capabilities = Omit<Requirements, 'maxMonthlyPrice'>;

/** Money is an amount in a currency (an ISO 4217 code such as USD). */
export interface Money {
  readonly amount: number;
  readonly currency: string;
}

/**
 * A CandidatePrice is what a candidate would cost a month for one claim (a class: the
 * resource it would make for the claim's size and region), or why it has no price.
 */
export type CandidatePrice =
  | { readonly amount: number; readonly currency: string; readonly basis?: string; readonly note?: undefined }
  | { readonly amount?: undefined; readonly note: string };

/**
 * A CandidatePricer prices a candidate for a claim (the binder's: the class's
 * `conductor.io/monthly-cost`, else the provider kind's own price hook). The scheduler
 * remembers each answer per candidate and (claim kind, capacity, region), so it must depend on
 * nothing else of the claim.
 */
export type CandidatePricer = (claim: ClaimInfo, candidate: Candidate) => CandidatePrice;

/** A ClaimRef points a concrete resource at the claim it is reserved for or bound to. */
export interface ClaimRef {
  readonly namespace: string;
  readonly name: string;
  /** When set, only the claim with this uid matches (a re-created claim of the same name does not). */
  readonly uid?: string;
  /** When set, only a claim of this kind matches. */
  readonly kind?: GroupKind;
}

/** A ClaimInfo is one claim as the scheduler sees it. */
export interface ClaimInfo {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The claim's kind, e.g. MySQLInstance in storage.conductor.io. */
  readonly kind: GroupKind;
  readonly requirements: Requirements;
  /** The profile asked for (`spec.resourceClass`); absent means "no profile": unprofiled resources and the default class. */
  readonly resourceClass?: string;
  /** An explicit binding (`spec.resourceName`): only concrete resources of this name are candidates. */
  readonly resourceName?: string;
  /** A label filter on concrete resources (`spec.resourceSelector`); absent means no filter. */
  readonly resourceSelector?: LabelSelector;
  /** The kind-specific portable fields (`version`, `masterUsername`, ...), read by PortableConfig matchers. */
  readonly portable: Readonly<Record<string, unknown>>;
  /** The labels of the claim's namespace, read by NamespacePolicy. */
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /** The claim object this was read from (by reference, never changed), for providers' matchers. */
  readonly source?: KObject;
}

/** The phases of a concrete resource (docs/design.md 3.2). */
export type ResourcePhase = 'Pending' | 'Available' | 'Bound' | 'Released' | 'Failed';

/** Sharing says whether a resource serves one claim or several (up to maxClaims; unlimited when absent). */
export type Sharing = { readonly mode: 'Exclusive' } | { readonly mode: 'Shared'; readonly maxClaims?: number };

/** A ResourceCandidate is an existing concrete resource. */
export interface ResourceCandidate {
  readonly type: 'resource';
  /** The concrete kind, e.g. RDSInstance in database.aws.conductor.io. */
  readonly kind: GroupKind;
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The profile the resource belongs to (`spec.resourceClass`); absent when it has none. */
  readonly profile?: string;
  readonly phase: ResourcePhase;
  readonly capabilities: Capabilities;
  readonly sharing: Sharing;
  /** How many claims are bound to it (0 or 1 for Exclusive). */
  readonly boundCount: number;
  /**
   * Being deleted (`metadata.deletionTimestamp` set): it takes no new claim, whatever its
   * phase, since its deletion waits for every claim bound to it.
   */
  readonly deleting?: boolean;
  /** For Shared resources: capacity minus the bound claims' requests (`status.allocatable`). */
  readonly allocatable?: ResourceList;
  /** The claim kinds this concrete kind implements (from the CRD's `conductor.io/implements`). */
  readonly implements: readonly GroupKind[];
  /** The provider-specific configuration (`spec` without the generic fields), read by PortableConfig matchers. */
  readonly portable: Readonly<Record<string, unknown>>;
  /** The provider serving it, `namespace/name` of its Provider; Spread and BinPack group by it. */
  readonly provider?: string;
  /** The claim it is bound to or reserved for (`spec.claimRef`); Exclusive resources only. */
  readonly claimRef?: ClaimRef;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
  /** The resource object this was read from (by reference, never changed), for providers' matchers. */
  readonly source?: KObject;
}

/** A ClassCandidate is a ResourceClass: a virtual candidate that creates a resource when chosen. */
export interface ClassCandidate {
  readonly type: 'class';
  readonly namespace: string;
  readonly name: string;
  /** The profile it serves (`resourceClass`, default its name). */
  readonly profile: string;
  readonly capabilities: Capabilities;
  /** The claim kinds it can serve (from `supportedResources`). */
  readonly supportedResources: readonly GroupKind[];
  /** Which claim namespaces may use it; absent means all. */
  readonly allowedNamespaces?: LabelSelector;
  /** Annotated `conductor.io/is-default-class: "true"`. */
  readonly isDefault: boolean;
  /** Being deleted (`metadata.deletionTimestamp` set): it provisions nothing more. */
  readonly deleting?: boolean;
  /** The most instances it may have (`pool.maxInstances`); 0 means unlimited. */
  readonly maxInstances: number;
  /** How many instances it has now. */
  readonly instanceCount: number;
  /** The concrete kind its template creates. */
  readonly templateKind: GroupKind;
  /** The template's spec, read by PortableConfig matchers. */
  readonly portable: Readonly<Record<string, unknown>>;
  /** The provider its template uses, `namespace/name`. */
  readonly provider?: string;
  /**
   * The Provider (its name, in the system namespace) this candidate provisions on, when the
   * class names none and is placed on each Provider of its kind's type (clusters as scheduling
   * targets): one candidate per Provider, with the Provider's region and capabilities.
   */
  readonly target?: string;
  /** Why it cannot provision now, whatever the claim (its target Provider is not Ready, or there is none); the Phase filter rejects it with this. */
  readonly unavailable?: string;
  readonly createdAt: number;
  /** The ResourceClass object this was read from (by reference, never changed), for providers' matchers. */
  readonly source?: KObject;
}

/** A Candidate is what a claim may be scheduled onto. */
export type Candidate = ResourceCandidate | ClassCandidate;

/** How a claim's region relates to candidates' regions; see README "Regions". */
export type RegionMatch = 'contained' | 'overlapping';

/** A SchedulerConfig is everything that tunes decisions; all fields have defaults (config.ts). */
export interface SchedulerConfig {
  /** The region hierarchy: parent → children, e.g. `{'north-america': ['us-east-1', 'us-west-2']}`. */
  readonly regions?: Readonly<Record<string, readonly string[]>>;
  /** `contained` (default): a candidate must be in the asked region or below it. `overlapping`: above it is also accepted. */
  readonly regionMatch?: RegionMatch;
  /** Cost tiers, cheapest first. */
  readonly costTiers?: readonly string[];
  /** Performance tiers, slowest first. */
  readonly performanceTiers?: readonly string[];
  /**
   * How many feasible resources a decision looks for before it stops running filters on
   * the rest (like kube-scheduler's percentageOfNodesToScore): only those found are scored.
   * Absent: max(100, 5% of the resources the index lets through); 0: all of them. Classes
   * and resources reserved for the claim are always evaluated, and a decision finding
   * nothing has run every filter on every candidate.
   */
  readonly feasibleCandidatesToFind?: number;
  readonly profile?: SchedulerProfile;
}

/** A SchedulerProfile chooses the plugins: filters in order, score weights and HTTP extenders. */
export interface SchedulerProfile {
  readonly name?: string;
  /** Filter plugins by name, in the order they run; default DEFAULT_FILTERS. */
  readonly filters?: readonly string[];
  /** Score plugins by name with their weights; a plugin with weight 0 or absent does not run. Default DEFAULT_SCORE_WEIGHTS. */
  readonly scoreWeights?: Readonly<Record<string, number>>;
  readonly extenders?: readonly ExtenderConfig[];
}

/** An ExtenderConfig is an out-of-process filter and/or score webhook. */
export interface ExtenderConfig {
  readonly name: string;
  /** POST {claim, candidates} → {filtered?: [key], failed?: {key: reason}}. */
  readonly filterUrl?: string;
  /** POST {claim, candidates} → {scores: {key: 0..100}}. */
  readonly scoreUrl?: string;
  /** Weight of its scores; default 1. */
  readonly weight?: number;
  /** Per call; default 5000 ms. */
  readonly timeoutMs?: number;
  /** When true, an unreachable or failing extender is skipped; otherwise it fails every candidate. */
  readonly ignorable?: boolean;
  /** PEM CA bundle to trust for an https URL. */
  readonly caPem?: string;
  readonly insecureSkipTlsVerify?: boolean;
}

/** A Decision is where the claim goes. */
export type Decision =
  | { readonly type: 'resource'; readonly candidate: ResourceCandidate }
  | { readonly type: 'class'; readonly candidate: ClassCandidate }
  | { readonly type: 'none' };

/** A FailureCount is how many candidates one filter rejected for one reason. */
export interface FailureCount {
  readonly plugin: string;
  readonly summary: string;
  readonly count: number;
}

/** A PluginScore is one score plugin's part of the winner's total. */
export interface PluginScore {
  readonly plugin: string;
  /** 0–100. */
  readonly score: number;
  readonly weight: number;
}

/** An Explanation says why: counts of rejections over all candidates, and the winner's scores. */
export interface Explanation {
  /** One line for the claim's Scheduled condition, e.g. `0/12 candidates: 5 insufficient storage (want 25Gi), ...`. */
  readonly message: string;
  /** Candidates considered: those of the claim's kind, or those of the explicit name. */
  readonly total: number;
  /** Candidates that passed every filter (of those checked: see `unchecked`). */
  readonly feasible: number;
  /**
   * Candidates the filters did not run on because enough feasible ones were found first
   * (SchedulerConfig.feasibleCandidatesToFind); absent when every candidate was checked.
   * total = feasible + the failures' counts + unchecked.
   */
  readonly unchecked?: number;
  /** Rejections grouped by reason, most frequent first. */
  readonly failures: readonly FailureCount[];
  /**
   * The monthly prices compared for this claim (by the Cost filter and the LowestCost score),
   * the chosen candidate first, then at most MAX_LISTED_PRICES others, cheapest first (the
   * message says how many more were priced); absent when none was priced.
   */
  readonly prices?: readonly ComparedPrice[];
  /** For a decision: the winner's score per plugin, and their weighted sum. */
  readonly scores?: readonly PluginScore[];
  readonly totalScore?: number;
  /** The winner was reserved for this claim (its claimRef names it), which outranks scores. */
  readonly reserved?: boolean;
  /** Extenders that failed and were skipped (ignorable), and similar remarks. */
  readonly notes?: readonly string[];
  /**
   * When nothing fits: what the claim could change, in its own terms (`storage: wants 100Ti;
   * the largest offered is 500Gi`); the message ends with them after `; to fit: `.
   */
  readonly hints?: readonly string[];
}

/** A ComparedPrice is one candidate's monthly price as a decision compared it. */
export interface ComparedPrice {
  /** `namespace/name` of the class or resource (`…@<Provider>` for a class placed on a Provider). */
  readonly candidate: string;
  readonly type: 'resource' | 'class';
  readonly price: CandidatePrice;
  /** It was chosen. */
  readonly chosen?: boolean;
}

/** A ScheduleResult is a decision and its explanation. */
export interface ScheduleResult {
  readonly decision: Decision;
  readonly explanation: Explanation;
}
