import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import { normalizeRegion, regionMismatch } from '../region-hierarchy.js';
import type { ClaimInfo } from '../types.js';

/**
 * A RegionFilter does keep candidates in the asked region or below it in the hierarchy: a
 * claim asking `north-america` accepts `us-east-1`. A claim asking `us-east-1` does not accept
 * a candidate that only says `north-america` (it could be anywhere on the continent), unless
 * the configuration's regionMatch is `overlapping`. A candidate stating no region fits only
 * claims asking none.
 */
export class RegionFilter implements FilterPlugin {
  static readonly pluginName = 'Region';
  readonly name = RegionFilter.pluginName;
  readonly narrows = 'region' as const;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter | undefined {
    const accepts = this.regionCheck(claim);
    if (accepts === undefined) return undefined;
    const summary = regionMismatch(claim.requirements.region!);
    return (c) => {
      const r = c.capabilities.region;
      if (accepts(r)) return undefined;
      return { summary, detail: () => (r === undefined ? 'states no region' : `in ${r}`) };
    };
  }

  /** Whether a stated region is in the claim's region (a candidate is judged by its region alone); undefined when the claim asks none. */
  regionCheck(claim: ClaimInfo): ((region: string | undefined) => boolean) | undefined {
    const asked = claim.requirements.region;
    if (asked === undefined || asked.trim() === '') return undefined;
    const accepted = this.ctx.regions.accepted(asked, this.ctx.regionMatch);
    return (r) => r !== undefined && (accepted.has(r) || accepted.has(normalizeRegion(r)));
  }
}
