import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/**
 * A PerformanceFilter does keep candidates at or above the asked performance tier, in the
 * administrator's ordered performanceTiers (slowest first). Tiers not in the list only match
 * the same name; a candidate stating no tier does not fit a claim that asks for one.
 */
export class PerformanceFilter implements FilterPlugin {
  static readonly pluginName = 'Performance';
  readonly name = PerformanceFilter.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter | undefined {
    const asked = claim.requirements.performance;
    if (asked === undefined || asked.trim() === '') return undefined;
    const summary = `performance below ${asked}`;
    return (c) => {
      const have = c.capabilities.performance;
      const cmp = this.ctx.performanceTiers.compare(have, asked);
      if (cmp !== undefined && cmp >= 0) return undefined;
      return { summary, detail: () => (have === undefined ? 'states no performance tier' : `performs at ${have}`) };
    };
  }
}
