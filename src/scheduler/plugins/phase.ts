import { availabilityGroup, availabilitySummary, classHasRoom, isClaimSpecific, reservedFor } from '../availability.js';
import type { CandidateFilter, FilterFailure, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/**
 * A PhaseFilter does keep candidates that can take one more claim: Available resources,
 * Shared resources with a free slot, resources whose claimRef names this claim, and classes
 * below their instance limit. Resources and classes being deleted are never kept.
 */
export class PhaseFilter implements FilterPlugin {
  static readonly pluginName = 'Phase';
  readonly name = PhaseFilter.pluginName;
  readonly narrows = 'availability' as const;
  readonly conceals = true;

  constructor(_ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter {
    return (c): FilterFailure | undefined => {
      if (c.type === 'class') {
        if (c.deleting === true) return { summary: availabilitySummary('deleting'), detail: () => 'class being deleted' };
        if (c.unavailable !== undefined) return { summary: c.unavailable, detail: () => c.unavailable! };
        return classHasRoom(c) ? undefined : { summary: 'class at its instance limit', detail: () => `${c.instanceCount}/${c.maxInstances} instances` };
      }
      const g = availabilityGroup(c);
      if (g === 'open') return undefined;
      if (isClaimSpecific(g) && reservedFor(c, claim)) return undefined;
      return { summary: availabilitySummary(g), detail: () => (g === 'deleting' ? `being deleted (phase ${c.phase})` : `phase ${c.phase}`) };
    };
  }
}
