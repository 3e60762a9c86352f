import type { CandidateScore, PluginContext, ScorePlugin } from '../plugin.js';
import type { Candidate, ClaimInfo } from '../types.js';
import { providerLoad } from './provider-usage.js';

/**
 * A SpreadScore does prefer providers serving fewer claims: 100 × (1 − usage ÷ the busiest
 * candidate provider's usage); all 100 while none serves any. Its opposite is BinPack;
 * choose between them by weight.
 */
export class SpreadScore implements ScorePlugin {
  static readonly pluginName = 'Spread';
  readonly name = SpreadScore.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(_claim: ClaimInfo, feasible: readonly Candidate[]): CandidateScore {
    const { usage, max } = providerLoad(this.ctx, feasible);
    return (c) => (max === 0 ? 100 : Math.round(100 * (1 - usage(c) / max)));
  }
}
