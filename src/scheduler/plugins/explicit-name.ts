import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/**
 * An ExplicitNameFilter does honour `spec.resourceName`: only concrete resources of that name
 * are candidates (classes are not). The Selector filter steps aside for such claims; every
 * other filter still applies, so a named resource that cannot serve the claim leaves it
 * pending with the reason.
 */
export class ExplicitNameFilter implements FilterPlugin {
  static readonly pluginName = 'ExplicitName';
  readonly name = ExplicitNameFilter.pluginName;
  readonly narrows = 'name' as const;

  constructor(_ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter | undefined {
    const want = claim.resourceName;
    if (want === undefined || want === '') return undefined;
    const failure = { summary: `not the named resource ${JSON.stringify(want)}` };
    return (c) => (c.type === 'resource' && c.name === want ? undefined : failure);
  }
}
