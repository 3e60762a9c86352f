import type { CandidateScore, PluginContext, ScorePlugin } from '../plugin.js';
import { normalizeRegion } from '../region-hierarchy.js';
import type { ClaimInfo } from '../types.js';

/**
 * A LocalityScore does prefer the exact region asked for: 100 for the region itself,
 * 100 ÷ (1 + d) for a region d levels below it (a child 50), and with `overlapping` region
 * matching 50 ÷ (1 + d) for one d levels above (a parent 25); 0 otherwise. Claims asking no
 * region are not scored.
 */
export class LocalityScore implements ScorePlugin {
  static readonly pluginName = 'Locality';
  readonly name = LocalityScore.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateScore | undefined {
    const asked = claim.requirements.region;
    if (asked === undefined || asked.trim() === '') return undefined;
    const accepted = this.ctx.regions.accepted(asked, this.ctx.regionMatch);
    return (c) => {
      const r = c.capabilities.region;
      const d = r === undefined ? undefined : (accepted.get(r) ?? accepted.get(normalizeRegion(r)));
      if (d === undefined) return 0;
      if (d === 0) return 100;
      return d > 0 ? Math.round(100 / (1 + d)) : Math.round(50 / (1 - d));
    };
  }
}
