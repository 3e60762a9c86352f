import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import { concreteKind } from '../portable-matchers.js';
import type { ClaimInfo } from '../types.js';

/**
 * A PortableConfigFilter does ask the matcher registered for (claim kind, concrete kind)
 * whether the candidate's configuration honours the claim's portable fields (version range,
 * username...). A pair without a matcher passes.
 */
export class PortableConfigFilter implements FilterPlugin {
  static readonly pluginName = 'PortableConfig';
  readonly name = PortableConfigFilter.pluginName;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter {
    const registry = this.ctx.portableMatchers;
    return (c) => {
      const matcher = registry.lookup(claim.kind, concreteKind(c));
      if (matcher === undefined) return undefined;
      const m = matcher(claim, c);
      return m.fits ? undefined : { summary: m.reason, ...(m.detail === undefined ? {} : { detail: m.detail }) };
    };
  }
}
