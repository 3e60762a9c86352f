import type { CandidateScore, PluginContext, ScorePlugin } from '../plugin.js';
import type { Candidate, ClaimInfo } from '../types.js';

/**
 * A LowestCostScore does prefer cheaper candidates. When every candidate compared has a
 * monthly price for the claim (PluginContext.priceOf) in one currency, by price: the cheapest
 * scores 100, the dearest 0, linearly between (all 100 when they cost the same). Otherwise by
 * tier: the first of costTiers scores 100, the last 0, evenly between; a candidate whose tier
 * is not in the list scores 0. Without prices or tiers it does not score.
 */
export class LowestCostScore implements ScorePlugin {
  static readonly pluginName = 'LowestCost';
  readonly name = LowestCostScore.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo, feasible: readonly Candidate[]): CandidateScore | undefined {
    return this.byPrice(claim, feasible) ?? this.byTier();
  }

  private byPrice(claim: ClaimInfo, feasible: readonly Candidate[]): CandidateScore | undefined {
    if (!this.ctx.pricing || feasible.length === 0) return undefined;
    let currency: string | undefined;
    let min = Infinity;
    let max = -Infinity;
    for (const c of feasible) {
      const p = this.ctx.priceOf(claim, c);
      if (p.amount === undefined || (currency !== undefined && p.currency !== currency)) return undefined;
      currency = p.currency;
      if (p.amount < min) min = p.amount;
      if (p.amount > max) max = p.amount;
    }
    if (max === min) return () => 100;
    const span = max - min;
    // Not rounded: a cent's difference still decides between two otherwise equal candidates.
    return (c) => (100 * (max - (this.ctx.priceOf(claim, c).amount ?? max))) / span;
  }

  private byTier(): CandidateScore | undefined {
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
