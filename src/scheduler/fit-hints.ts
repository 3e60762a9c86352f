/**
 * What a claim that fits nowhere could change, in the claim's own terms: for a capacity it asks
 * too much of, the largest offered; for a region no candidate serves, the regions served; for a
 * profile no candidate has (or no default class when it names none), the profiles offered.
 * Computed only when nothing fits, over the candidates of the claim's kind.
 */
import type { Quantity } from '../machinery/quantity/index.js';
import { CapacityFilter, available, own } from './plugins/capacity.js';
import { claimProfile, resourceProfile } from './profiles.js';
import { regionMismatch } from './region-hierarchy.js';
import type { Candidate, ClaimInfo, FailureCount } from './types.js';

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

/**
 * What the hints need to know of a kind's candidates, whatever the claim: the regions stated (one
 * candidate per region, for the claim's Region filter to judge), the profiles offered, whether a
 * class is the default, and — asked per dimension, then remembered — the largest amount offered.
 * The scheduler keeps one per kind until the index changes, so claims that fit nowhere do not
 * each go through thousands of candidates.
 */
export class KindSummary {
  /** One candidate per distinct stated region ('' for those stating none). */
  readonly byRegion = new Map<string, Candidate>();
  readonly profiles = new Set<string>();
  readonly hasDefaultClass: boolean;
  private readonly amounts = new Map<string, { largest: Quantity | undefined; unlimited: boolean }>();

  constructor(private readonly candidates: readonly Candidate[]) {
    let hasDefault = false;
    for (const c of candidates) {
      const region = c.capabilities.region ?? '';
      if (!this.byRegion.has(region)) this.byRegion.set(region, c);
      const profile = c.type === 'class' ? c.profile : resourceProfile(c);
      if (profile !== '') this.profiles.add(profile);
      if (c.type === 'class' && c.isDefault) hasDefault = true;
    }
    this.hasDefaultClass = hasDefault;
  }

  /** The largest amount of `dim` offered, and whether a class offers any (states none). */
  amount(dim: string): { largest: Quantity | undefined; unlimited: boolean } {
    let a = this.amounts.get(dim);
    if (a === undefined) {
      let largest: Quantity | undefined;
      let unlimited = false;
      for (const c of this.candidates) {
        const have = available(c, dim);
        if (have === undefined) {
          if (c.type === 'class') unlimited = true;
          continue;
        }
        if (largest === undefined || have.cmp(largest) > 0) largest = have;
      }
      a = { largest, unlimited };
      this.amounts.set(dim, a);
    }
    return a;
  }
}

/** The capacity hints: for each dimension the Capacity filter rejected on, the largest amount offered. */
function capacityHints(claim: ClaimInfo, kind: KindSummary, failures: readonly FailureCount[]): string[] {
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
function regionHint(claim: ClaimInfo, kind: KindSummary, failures: readonly FailureCount[], inRegion: InRegion): string | undefined {
  const asked = claim.requirements.region;
  if (asked === undefined || asked.trim() === '' || !rejectedBy(failures, REGION_PLUGIN, regionMismatch(asked))) return undefined;
  // The Region filter judges a candidate by its stated region only: one per region stands for all.
  if ([...kind.byRegion.values()].some(inRegion)) return undefined; // served, by candidates rejected for something else
  const served = [...kind.byRegion.keys()].filter((r) => r !== '');
  return served.length === 0
    ? `region ${asked}: no class or resource states a region`
    : `region ${asked}: no class or resource serves it; regions served: ${listNames(served)}`;
}

/** The profile hint, when the ProfileMatch filter rejected candidates and no candidate has the claim's profile. */
function profileHint(claim: ClaimInfo, kind: KindSummary, failures: readonly FailureCount[]): string | undefined {
  if (!rejectedBy(failures, PROFILE_PLUGIN)) return undefined;
  const asked = claimProfile(claim);
  const offeredText = kind.profiles.size === 0 ? '' : `; set spec.resourceClass to one of: ${listNames(kind.profiles)}`;
  if (asked === '') return kind.hasDefaultClass ? undefined : `profile: the claim names none and no class is the default${offeredText}`;
  return kind.profiles.has(asked) ? undefined : `profile ${JSON.stringify(asked)}: no class or resource offers it${offeredText}`;
}

/**
 * Whether any hint can apply: each is about a rejection by the Capacity, Region or ProfileMatch
 * filter, so a claim rejected only for something else needs no candidates looked at.
 */
export function fitHintsMayApply(failures: readonly FailureCount[]): boolean {
  return failures.some((f) => f.plugin === CapacityFilter.pluginName || f.plugin === REGION_PLUGIN || f.plugin === PROFILE_PLUGIN);
}

/** Whether a candidate is in the claim's region (the Region filter lets it through). */
export type InRegion = (c: Candidate) => boolean;

/**
 * fitHints says what the claim could change to fit, given every candidate of its kind (or their
 * KindSummary), the rejections of its decision and the Region filter's verdict; empty when no
 * hint applies (e.g. every candidate is bound, or those with enough storage are in another region).
 */
export function fitHints(claim: ClaimInfo, candidates: readonly Candidate[] | KindSummary, failures: readonly FailureCount[], inRegion: InRegion): string[] {
  const kind = candidates instanceof KindSummary ? candidates : new KindSummary(candidates);
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
