import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/**
 * A QuotaFilter does ask the binder's quota callback whether creating one more instance from
 * a class would exceed the claim namespace's ClaimQuota, handing it the class's monthly price
 * for this claim when candidates are priced. Existing resources are not checked
 * here (admission counts claims); without a callback every candidate passes.
 */
export class QuotaFilter implements FilterPlugin {
  static readonly pluginName = 'Quota';
  readonly name = QuotaFilter.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter | undefined {
    const check = this.ctx.quota;
    if (check === undefined) return undefined;
    return (c) => {
      if (c.type !== 'class') return undefined;
      const why = check(claim, c, this.ctx.pricing ? this.ctx.priceOf(claim, c) : undefined);
      return why === undefined ? undefined : { summary: `quota exceeded: ${why}` };
    };
  }
}
