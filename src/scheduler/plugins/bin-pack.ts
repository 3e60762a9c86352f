import type { CandidateScore, PluginContext, ScorePlugin } from '../plugin.js';
import type { Candidate, ClaimInfo } from '../types.js';
import { providerLoad } from './provider-usage.js';

/**
 * A BinPackScore does prefer providers already serving more claims: 100 × usage ÷ the
 * busiest candidate provider's usage; all 0 while none serves any. Its opposite is Spread.
 */
export class BinPackScore implements ScorePlugin {
  static readonly pluginName = 'BinPack';
  readonly name = BinPackScore.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(_claim: ClaimInfo, feasible: readonly Candidate[]): CandidateScore {
    const { usage, max } = providerLoad(this.ctx, feasible);
    return (c) => (max === 0 ? 0 : Math.round((100 * usage(c)) / max));
  }
}
