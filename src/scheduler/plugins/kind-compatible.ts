import { kindKey } from '../keys.js';
import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/**
 * A KindCompatibleFilter does keep only candidates that can serve the claim's kind: concrete
 * kinds that implement it and classes that list it in supportedResources (case-insensitive).
 */
export class KindCompatibleFilter implements FilterPlugin {
  static readonly pluginName = 'KindCompatible';
  readonly name = KindCompatibleFilter.pluginName;
  readonly narrows = 'kind' as const;
  readonly conceals = true;

  constructor(_ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter {
    const want = kindKey(claim.kind);
    const summary = `not an implementation of ${claim.kind.kind}`;
    return (c) => {
      const kinds = c.type === 'resource' ? c.implements : c.supportedResources;
      for (const gk of kinds) if (kindKey(gk) === want) return undefined;
      return {
        summary,
        detail: () =>
          c.type === 'resource'
            ? `${c.kind.kind} implements ${kinds.map((k) => k.kind).join(', ') || 'nothing'}`
            : `class supports ${kinds.map((k) => k.kind).join(', ') || 'nothing'}`,
      };
    };
  }
}
