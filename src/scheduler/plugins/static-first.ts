import type { CandidateScore, PluginContext, ScorePlugin } from '../plugin.js';

/** A StaticFirstScore does prefer existing resources (100) over classes that would create one (0). */
export class StaticFirstScore implements ScorePlugin {
  static readonly pluginName = 'StaticFirst';
  readonly name = StaticFirstScore.pluginName;

  constructor(_ctx: PluginContext) {}

  prepare(): CandidateScore {
    return (c) => (c.type === 'resource' ? 100 : 0);
  }
}
