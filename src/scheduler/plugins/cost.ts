import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/**
 * A CostFilter does keep candidates at or below the asked cost tier, in the administrator's
 * ordered costTiers (cheapest first). Tiers not in the list only match the same name; a
 * candidate stating no cost tier does not fit a claim that asks for one.
 */
export class CostFilter implements FilterPlugin {
  static readonly pluginName = 'Cost';
  readonly name = CostFilter.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter | undefined {
    const asked = claim.requirements.cost;
    if (asked === undefined || asked.trim() === '') return undefined;
    const summary = `cost above ${asked}`;
    return (c) => {
      const have = c.capabilities.cost;
      const cmp = this.ctx.costTiers.compare(have, asked);
      if (cmp !== undefined && cmp <= 0) return undefined;
      return { summary, detail: () => (have === undefined ? 'states no cost tier' : `costs ${have}`) };
    };
  }
}
