/**
 * The plugin contract. A filter or score plugin is a class constructed once per
 * configuration with a PluginContext; for each claim its `prepare` does the per-claim work
 * once (parse a range, look up a tier) and returns the per-candidate function, or undefined
 * when the plugin has nothing to say about this claim.
 */
import type { PortableMatcherRegistry } from './portable-matchers.js';
import type { RegionHierarchy } from './region-hierarchy.js';
import type { TierOrder } from './tier-order.js';
import type { Candidate, CandidatePrice, ClaimInfo, ClassCandidate, RegionMatch } from './types.js';

/** A FilterFailure is why a filter rejected a candidate: a summary shared by like rejections, and an optional detail. */
export interface FilterFailure {
  /** Counted over candidates in the explanation, e.g. `insufficient storage (want 25Gi)`. */
  readonly summary: string;
  /** This candidate's side, e.g. `has 10Gi`; a function when it costs something to word (only explain() asks). */
  readonly detail?: string | (() => string);
}

/** failureDetail words a failure's detail. */
export function failureDetail(f: FilterFailure): string | undefined {
  return typeof f.detail === 'function' ? f.detail() : f.detail;
}

/** A CandidateFilter rejects a candidate with a reason, or returns undefined to let it pass. */
export type CandidateFilter = (c: Candidate) => FilterFailure | undefined;

/**
 * What the candidate index may do on a filter's behalf. The built-in filters carrying one
 * reject exactly what the index's narrowing excludes (they share availability.ts,
 * profiles.ts and region-hierarchy.ts); a replacement plugin must not claim one unless it
 * does the same.
 */
export type IndexNarrowing = 'kind' | 'name' | 'profile' | 'availability' | 'region';

/** A FilterPlugin decides which candidates may take a claim. */
export interface FilterPlugin {
  readonly name: string;
  readonly narrows?: IndexNarrowing;
  /**
   * Its rejections mean the claim may not use the candidate at all (another kind, another
   * profile, bound to someone else, a namespace not allowed). A claim naming a resource
   * (`resourceName`) is told nothing of a named resource such a filter rejects: it reads as
   * "no resource named", so a name cannot be used to learn what exists or who holds it.
   */
  readonly conceals?: boolean;
  prepare(claim: ClaimInfo): CandidateFilter | undefined;
}

/** A CandidateScore rates a feasible candidate from 0 (worst) to 100 (best). */
export type CandidateScore = (c: Candidate) => number;

/** A ScorePlugin ranks the candidates that passed every filter. */
export interface ScorePlugin {
  readonly name: string;
  /** `feasible` are the candidates to be ranked, for plugins that score relative to each other. */
  prepare(claim: ClaimInfo, feasible: readonly Candidate[]): CandidateScore | undefined;
}

/**
 * A QuotaCheck is the binder's quota: why creating one more instance from this class for this
 * claim would exceed the claim namespace's ClaimQuota (a short summary such as
 * `requests.storage 480Gi + 25Gi > 500Gi`), or undefined when it fits. `price` is what the class
 * would cost a month for this claim (PluginContext.priceOf), when candidates are priced.
 */
export type QuotaCheck = (claim: ClaimInfo, candidate: ClassCandidate, price?: CandidatePrice) => string | undefined;

/** A PluginContext is what plugins may read: the configuration and live figures of the candidate set. */
export interface PluginContext {
  /** The administrators' namespace (default `conductor-system`): classes elsewhere serve only their own namespace's claims. */
  readonly systemNamespace: string;
  readonly regions: RegionHierarchy;
  readonly regionMatch: RegionMatch;
  readonly costTiers: TierOrder;
  readonly performanceTiers: TierOrder;
  readonly portableMatchers: PortableMatcherRegistry;
  readonly quota?: QuotaCheck;
  /** Whether candidates can be priced (a CandidatePricer was given); without one priceOf says every candidate has no price. */
  readonly pricing: boolean;
  /** What the candidate would cost a month for this claim, asked once per candidate and claim size (see PriceMemo). */
  priceOf(claim: ClaimInfo, c: Candidate): CandidatePrice;
  /** Claims bound to the provider's resources now (Spread, BinPack); 0 for an unknown provider. */
  providerUsage(provider: string): number;
  /** The class `namespace/name` among the candidates, if any (NamespacePolicy judges what a class made by it). */
  classOf?(namespace: string, name: string): ClassCandidate | undefined;
}

/** A FilterPluginClass is how filters are registered: a class with a static name. */
export interface FilterPluginClass {
  readonly pluginName: string;
  new (ctx: PluginContext): FilterPlugin;
}

/** A ScorePluginClass is how score plugins are registered: a class with a static name. */
export interface ScorePluginClass {
  readonly pluginName: string;
  new (ctx: PluginContext): ScorePlugin;
}
