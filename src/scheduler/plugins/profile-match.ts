import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import { claimProfile, classProfileMismatch, resourceProfile, resourceProfileMismatch } from '../profiles.js';
import type { ClaimInfo } from '../types.js';

/**
 * A ProfileMatchFilter does match profiles (docs/design.md 3.5): a claim naming a profile takes only
 * resources and classes of that profile; a claim naming none takes resources without a
 * profile and the default classes of its kind.
 */
export class ProfileMatchFilter implements FilterPlugin {
  static readonly pluginName = 'ProfileMatch';
  readonly name = ProfileMatchFilter.pluginName;
  readonly narrows = 'profile' as const;
  readonly conceals = true;

  constructor(_ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter {
    const want = claimProfile(claim);
    const summary = resourceProfileMismatch(claim);
    return (c) => {
      if (c.type === 'class') {
        const why = classProfileMismatch(claim, c);
        return why === undefined ? undefined : { summary: why, detail: () => `serves profile ${JSON.stringify(c.profile)}` };
      }
      const have = resourceProfile(c);
      return have === want ? undefined : { summary, detail: () => (have === '' ? 'in no profile' : `in profile ${JSON.stringify(have)}`) };
    };
  }
}
