/**
 * Defaults of the scheduler's configuration and their resolution.
 */
import type { RegionMatch, SchedulerConfig } from './types.js';

/**
 * The filters, in the order they run. The ones the index stands in for (KindCompatible,
 * ExplicitName, ProfileMatch, Phase, Region) always run first in this order, whatever order
 * a profile lists them in (see effectiveOrder in scheduler.ts).
 */
export const DEFAULT_FILTERS: readonly string[] = Object.freeze([
  'KindCompatible',
  'ExplicitName',
  'ProfileMatch',
  'Phase',
  'Region',
  'Selector',
  'Capacity',
  'Cost',
  'Performance',
  'PortableConfig',
  'NamespacePolicy',
  'Quota',
]);

/**
 * The score weights. StaticFirst outweighs all the others together (100 × 100 against at
 * most 100 × 8), so an existing resource always beats creating one, as docs/design.md 3.6 wants;
 * BinPack is off (Spread is its opposite).
 */
export const DEFAULT_SCORE_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({
  StaticFirst: 100,
  LeastWaste: 3,
  LowestCost: 2,
  Locality: 2,
  Spread: 1,
});

/** With no feasibleCandidatesToFind configured, a decision looks for at least this many feasible resources... */
export const MIN_FEASIBLE_TO_FIND = 100;
/** ...or this percentage of the resources the index lets through, whichever is more. */
export const FEASIBLE_PERCENT_TO_FIND = 5;

/**
 * feasibleToFind is how many feasible resources a decision looks for among `searchable`
 * ones before it stops: the configured number (0: all, Infinity), else
 * max(MIN_FEASIBLE_TO_FIND, FEASIBLE_PERCENT_TO_FIND% of searchable).
 */
export function feasibleToFind(configured: number | undefined, searchable: number): number {
  if (configured === undefined) return Math.max(MIN_FEASIBLE_TO_FIND, Math.ceil((searchable * FEASIBLE_PERCENT_TO_FIND) / 100));
  return configured === 0 ? Infinity : configured;
}

/** A ResolvedConfig is a SchedulerConfig with every default filled in. */
export interface ResolvedConfig {
  readonly regions: Readonly<Record<string, readonly string[]>>;
  readonly regionMatch: RegionMatch;
  readonly costTiers: readonly string[];
  readonly performanceTiers: readonly string[];
  readonly filters: readonly string[];
  readonly scoreWeights: Readonly<Record<string, number>>;
  readonly extenders: NonNullable<NonNullable<SchedulerConfig['profile']>['extenders']>;
  /** Absent: the adaptive default (see feasibleToFind). */
  readonly feasibleCandidatesToFind?: number;
}

/** resolveConfig fills in defaults; it throws when a weight is negative or not a number, or feasibleCandidatesToFind is not a whole number ≥ 0. */
export function resolveConfig(config: SchedulerConfig = {}): ResolvedConfig {
  const profile = config.profile ?? {};
  const toFind = config.feasibleCandidatesToFind;
  if (toFind !== undefined && !(Number.isInteger(toFind) && toFind >= 0)) {
    throw new Error(`feasibleCandidatesToFind is ${String(toFind)}: expected a whole number ≥ 0 (0 checks every candidate)`);
  }
  const scoreWeights = profile.scoreWeights ?? DEFAULT_SCORE_WEIGHTS;
  for (const [name, w] of Object.entries(scoreWeights)) {
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0) throw new Error(`score weight of ${name} is ${String(w)}: expected a number ≥ 0`);
  }
  for (const e of profile.extenders ?? []) {
    if (e.weight !== undefined && (!Number.isFinite(e.weight) || e.weight < 0))
      throw new Error(`extender ${e.name} has weight ${e.weight}: expected a number ≥ 0`);
  }
  return {
    regions: config.regions ?? {},
    regionMatch: config.regionMatch ?? 'contained',
    costTiers: config.costTiers ?? [],
    performanceTiers: config.performanceTiers ?? [],
    filters: profile.filters ?? DEFAULT_FILTERS,
    scoreWeights,
    extenders: profile.extenders ?? [],
    ...(toFind === undefined ? {} : { feasibleCandidatesToFind: toFind }),
  };
}
