import type { CandidateFilter, FilterFailure, FilterPlugin, PluginContext } from '../plugin.js';
import { formatMoney } from '../prices.js';
import type { Candidate, ClaimInfo } from '../types.js';

/**
 * A CostFilter does keep candidates the claim can afford, in two ways the claim may ask:
 *
 * - `requirements.cost`, a tier: candidates at or below it in the administrator's ordered
 *   costTiers (cheapest first). Tiers not in the list only match the same name; a candidate
 *   stating no cost tier does not fit a claim that asks for one.
 * - `requirements.maxMonthlyPrice`, an amount: candidates whose monthly price for this claim
 *   (PluginContext.priceOf) is at most the amount. Prices are compared in the same currency
 *   only: a candidate priced in another currency, or with no price, does not fit.
 */
export class CostFilter implements FilterPlugin {
  static readonly pluginName = 'Cost';
  readonly name = CostFilter.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter | undefined {
    const tier = this.tierFilter(claim);
    const price = this.priceFilter(claim);
    if (tier === undefined || price === undefined) return tier ?? price;
    return (c) => tier(c) ?? price(c);
  }

  private tierFilter(claim: ClaimInfo): CandidateFilter | undefined {
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

  private priceFilter(claim: ClaimInfo): CandidateFilter | undefined {
    const limit = claim.requirements.maxMonthlyPrice;
    if (limit === undefined) return undefined;
    const allows = formatMoney(limit);
    const above = `monthly price above ${allows}`;
    const none = `no monthly price (the claim allows ${allows})`;
    return (c: Candidate): FilterFailure | undefined => {
      const p = this.ctx.priceOf(claim, c);
      if (p.amount === undefined) return { summary: none, detail: p.note };
      if (p.currency !== limit.currency) {
        return {
          summary: `priced in ${p.currency}, the claim's limit is in ${limit.currency}`,
          detail: `costs ${p.amount.toFixed(2)} ${p.currency}/month; prices are compared in one currency only`,
        };
      }
      if (p.amount <= limit.amount) return undefined;
      return { summary: above, detail: () => `costs ${p.amount.toFixed(2)} ${p.currency}/month; the claim allows ${allows}` };
    };
  }
}
