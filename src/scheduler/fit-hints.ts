/**
 * What a claim that fits nowhere could change, in the claim's own terms: for a capacity it asks
 * too much of, the largest offered; for a region no candidate serves, the regions served; for a
 * profile no candidate has (or no default class when it names none), the profiles offered.
 * Computed only when nothing fits, over the candidates of the claim's kind.
 */
import { CapacityFilter, own } from './plugins/capacity.js';
import { claimProfile } from './profiles.js';
import type { KindView } from './kind-facts.js';
import { regionMismatch } from './region-hierarchy.js';
import type { ClaimInfo, FailureCount } from './types.js';

/** How many regions or profiles a hint lists before it counts the rest. */
export const MAX_LISTED_NAMES = 6;

/** The plugin names whose rejections a hint explains (see plugins/region.ts and plugins/profile-match.ts). */
const REGION_PLUGIN = 'Region';
const PROFILE_PLUGIN = 'ProfileMatch';

/** listNames prints sorted names, at most MAX_LISTED_NAMES, e.g. `eu, us (and 3 more)`. */
export function listNames(names: Iterable<string>): string {
  const all = [...new Set(names)].sort();
  const shown = all.slice(0, MAX_LISTED_NAMES).join(', ');
  return all.length > MAX_LISTED_NAMES ? `${shown} (and ${all.length - MAX_LISTED_NAMES} more)` : shown;
}

function rejectedBy(failures: readonly FailureCount[], plugin: string, summary?: string): boolean {
  return failures.some((f) => f.plugin === plugin && (summary === undefined || f.summary === summary));
}

/** The capacity hints: for each dimension the Capacity filter rejected on, the largest amount offered. */
function capacityHints(claim: ClaimInfo, kind: KindView, failures: readonly FailureCount[]): string[] {
  const hints: string[] = [];
  for (const dim of Object.keys(claim.requirements.capacity).sort()) {
    const want = own(claim.requirements.capacity, dim)!;
    if (!rejectedBy(failures, CapacityFilter.pluginName, `insufficient ${dim} (want ${want.format()})`)) continue;
    const { largest, unlimited } = kind.amount(dim);
    // A class stating no amount creates what is asked, and a candidate with enough was rejected
    // for something else: either way the amount is not what is missing.
    if (unlimited || (largest !== undefined && largest.cmp(want) >= 0)) continue;
    hints.push(
      largest === undefined
        ? `${dim}: wants ${want.format()}; no resource or class states any ${dim}`
        : `${dim}: wants ${want.format()}; the largest offered is ${largest.format()}`,
    );
  }
  return hints;
}

/** The region hint, when the Region filter rejected candidates for the claim's region and none serves it. */
function regionHint(claim: ClaimInfo, kind: KindView, failures: readonly FailureCount[], inRegion: InRegion): string | undefined {
  const asked = claim.requirements.region;
  if (asked === undefined || asked.trim() === '' || !rejectedBy(failures, REGION_PLUGIN, regionMismatch(asked))) return undefined;
  const stated = [...kind.regions()];
  if (stated.some((r) => inRegion(r === '' ? undefined : r))) return undefined; // served, by candidates rejected for something else
  const served = stated.filter((r) => r !== '');
  return served.length === 0
    ? `region ${asked}: no class or resource states a region`
    : `region ${asked}: no class or resource serves it; regions served: ${listNames(served)}`;
}

/** The profile hint, when the ProfileMatch filter rejected candidates and no candidate has the claim's profile. */
function profileHint(claim: ClaimInfo, kind: KindView, failures: readonly FailureCount[]): string | undefined {
  if (!rejectedBy(failures, PROFILE_PLUGIN)) return undefined;
  const asked = claimProfile(claim);
  const offered = [...kind.profiles()];
  const offeredText = offered.length === 0 ? '' : `; set spec.resourceClass to one of: ${listNames(offered)}`;
  if (asked === '') return kind.hasDefaultClass() ? undefined : `profile: the claim names none and no class is the default${offeredText}`;
  return kind.hasProfile(asked) ? undefined : `profile ${JSON.stringify(asked)}: no class or resource offers it${offeredText}`;
}

/**
 * Whether any hint can apply: each is about a rejection by the Capacity, Region or ProfileMatch
 * filter, so a claim rejected only for something else needs no candidates looked at.
 */
export function fitHintsMayApply(failures: readonly FailureCount[]): boolean {
  return failures.some((f) => f.plugin === CapacityFilter.pluginName || f.plugin === REGION_PLUGIN || f.plugin === PROFILE_PLUGIN);
}

/** Whether a stated region (undefined: none stated) is one the claim's Region filter lets through. */
export type InRegion = (region: string | undefined) => boolean;

/**
 * fitHints says what the claim could change to fit, given what its kind's candidates offer
 * (kind-facts.ts, kept by the index), the rejections of its decision and the Region filter's
 * verdict; empty when no hint applies (e.g. every candidate is bound, or those with enough
 * storage are in another region).
 */
export function fitHints(claim: ClaimInfo, kind: KindView, failures: readonly FailureCount[], inRegion: InRegion): string[] {
  const hints = capacityHints(claim, kind, failures);
  const region = regionHint(claim, kind, failures, inRegion);
  if (region !== undefined) hints.push(region);
  const profile = profileHint(claim, kind, failures);
  if (profile !== undefined) hints.push(profile);
  return hints;
}

/** withHints appends the hints to an unschedulable message: `0/3 candidates: …; to fit: storage: wants …`. */
export function withHints(message: string, hints: readonly string[]): string {
  return hints.length === 0 ? message : `${message}; to fit: ${hints.join('; ')}`;
}
