import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import { kindKey } from '../keys.js';
import { concreteKind, prepareMatcher, type PreparedPortableMatch } from '../portable-matchers.js';
import type { ClaimInfo, GroupKind } from '../types.js';

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
    // The matcher of each concrete kind, prepared for this claim once (null: no matcher).
    const byKind = new Map<string, PreparedPortableMatch | null>();
    // Candidates mostly share one concrete kind (often one GroupKind object, see convert.ts):
    // remember the last one, skipping its key.
    let last: GroupKind | undefined;
    let lastMatch: PreparedPortableMatch | null = null;
    return (c) => {
      const concrete = concreteKind(c);
      let match: PreparedPortableMatch | null | undefined;
      if (concrete === last || (last !== undefined && concrete.kind === last.kind && concrete.group === last.group)) {
        match = lastMatch;
      } else {
        const k = kindKey(concrete);
        match = byKind.get(k);
        if (match === undefined) {
          const matcher = registry.lookup(claim.kind, concrete);
          byKind.set(k, (match = matcher === undefined ? null : prepareMatcher(matcher, claim)));
        }
        last = concrete;
        lastMatch = match;
      }
      if (match === null) return undefined;
      const m = match(c);
      return m.fits ? undefined : { summary: m.reason, ...(m.detail === undefined ? {} : { detail: m.detail }) };
    };
  }
}
