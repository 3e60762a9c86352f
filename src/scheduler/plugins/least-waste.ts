import type { CandidateScore, PluginContext, ScorePlugin } from '../plugin.js';
import type { ClaimInfo } from '../types.js';
import { available, own } from './capacity.js';

/**
 * A LeastWasteScore does prefer the smallest fit: the mean over requested dimensions of
 * requested ÷ available, as 0–100 (an exact fit is 100). A class scores 100: what it creates
 * is sized to the claim. Claims requesting no capacity are not scored.
 */
export class LeastWasteScore implements ScorePlugin {
  static readonly pluginName = 'LeastWaste';
  readonly name = LeastWasteScore.pluginName;

  constructor(_ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateScore | undefined {
    const wants = Object.keys(claim.requirements.capacity)
      .map((dim) => ({ dim, want: own(claim.requirements.capacity, dim)! }))
      .filter((w) => w.want.sign() > 0)
      .map((w) => ({ ...w, wantNanos: Number(w.want.nanos) }));
    if (wants.length === 0) return undefined;
    return (c) => {
      if (c.type === 'class') return 100;
      let sum = 0;
      for (const { dim, want, wantNanos } of wants) {
        const have = available(c, dim);
        if (have === undefined || have.sign() <= 0) continue;
        sum += have.cmp(want) <= 0 ? 1 : wantNanos / Number(have.nanos);
      }
      return Math.round((100 * sum) / wants.length);
    };
  }
}
