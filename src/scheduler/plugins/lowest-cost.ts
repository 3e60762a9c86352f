import type { CandidateScore, PluginContext, ScorePlugin } from '../plugin.js';

/**
 * A LowestCostScore does prefer cheaper tiers: the first of costTiers scores 100, the last 0,
 * evenly between; a candidate whose tier is not in the list scores 0. Without tiers it does
 * not score.
 */
export class LowestCostScore implements ScorePlugin {
  static readonly pluginName = 'LowestCost';
  readonly name = LowestCostScore.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(): CandidateScore | undefined {
    const tiers = this.ctx.costTiers;
    const n = tiers.size;
    if (n === 0) return undefined;
    return (c) => {
      const r = tiers.rank(c.capabilities.cost);
      if (r === undefined) return 0;
      return n === 1 ? 100 : Math.round((100 * (n - 1 - r)) / (n - 1));
    };
  }
}
