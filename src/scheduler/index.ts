/**
 * The claim scheduler: place claims on concrete resources or on classes that create them
 * (docs/design.md 3.5). See README.md.
 */
export * from './types.js';
export { Scheduler, compareCandidates, effectiveOrder } from './scheduler.js';
export type { CandidateVerdict, ScheduleOptions, SchedulerOptions } from './scheduler.js';
export { CandidateIndex, forEachInKeyOrder, lookupCandidates, lookupSize } from './candidate-index.js';
export type { Exclusion, Lookup, Narrowing, SortedRun, Universe } from './candidate-index.js';
export { ArrayRun } from './sorted-runs.js';
export { ChunkedSortedMap } from './chunked-sorted-map.js';
export type { SortedCursor } from './chunked-sorted-map.js';
export { DEFAULT_FILTERS, DEFAULT_SCORE_WEIGHTS, FEASIBLE_PERCENT_TO_FIND, MIN_FEASIBLE_TO_FIND, feasibleToFind, resolveConfig } from './config.js';
export type { ResolvedConfig } from './config.js';
export { PluginRegistry, defaultRegistry } from './registry.js';
export { failureDetail } from './plugin.js';
export type {
  CandidateFilter,
  CandidateScore,
  FilterFailure,
  FilterPlugin,
  FilterPluginClass,
  IndexNarrowing,
  PluginContext,
  QuotaCheck,
  ScorePlugin,
  ScorePluginClass,
} from './plugin.js';
export * from './plugins/index.js';
export { BUILTIN_MATCHED_KINDS, PortableMatcherRegistry, builtinPortableMatchers, concreteKind, versionedMatcher } from './portable-matchers.js';
export type { PortableMatch, PortableMatcher, VersionedMatcherOptions } from './portable-matchers.js';
export { coerceVersion, parseVersionRange, versionInRange } from './version-range.js';
export { RegionHierarchy, normalizeRegion } from './region-hierarchy.js';
export { TierOrder } from './tier-order.js';
export { availabilityGroup, reservedFor, type AvailabilityGroup } from './availability.js';
export { HttpExtender, candidateToJson, claimToJson, DEFAULT_EXTENDER_TIMEOUT_MS } from './extender.js';
export { describeCandidate } from './explanation.js';
export { MAX_LISTED_PRICES, PriceMemo, candidateName, formatMoney, formatPrice, pricesMessage } from './prices.js';
export { RESOURCE_CLASS_KIND, candidateKey, classKey, claimKey, formatKind, kindKey, parseSupportedResource, resourceKey } from './keys.js';
export {
  CLAIM_COMMON_FIELDS,
  CONCRETE_COMMON_FIELDS,
  DEFAULT_CLASS_ANNOTATION,
  DEFAULT_CURRENCY,
  MONTHLY_PRICE_PATTERN,
  parseMoney,
  claimInfoFromObject,
  classCandidateFromObject,
  implementsFromAnnotation,
  namespaceLabelsOf,
  providerTargetFromObject,
  resourceCandidateFromObject,
  schedulerConfigFromProfileSpec,
} from './convert.js';
export type { ClaimOptions, ClassOptions, ProviderTarget, ResourceOptions } from './convert.js';
export { TARGET_NOT_READY, narrowed, placedClassCandidates } from './placed-classes.js';
