import type { Quantity } from '../../machinery/quantity/index.js';
import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { Candidate, ClaimInfo, ResourceList } from '../types.js';

/** The amount of `dim` a candidate can give: a Shared resource's allocatable, else its capacity. */
export function available(c: Candidate, dim: string): Quantity | undefined {
  if (c.type === 'resource' && c.sharing.mode === 'Shared' && c.allocatable !== undefined) {
    const a = own(c.allocatable, dim);
    if (a !== undefined) return a;
  }
  return own(c.capabilities.capacity, dim);
}

/** own reads a dimension of a ResourceList without touching inherited properties. */
export function own(list: ResourceList, dim: string): Quantity | undefined {
  return Object.prototype.hasOwnProperty.call(list, dim) ? list[dim] : undefined;
}

/**
 * A CapacityFilter does compare requested amounts with what a candidate has (a Shared
 * resource's allocatable, else its capacity), with Kubernetes quantities. A resource that
 * states no amount for a requested dimension does not fit; a class that states none has no
 * limit there (it creates what is asked), and one that does caps what it can create.
 */
export class CapacityFilter implements FilterPlugin {
  static readonly pluginName = 'Capacity';
  readonly name = CapacityFilter.pluginName;

  constructor(_ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter | undefined {
    const wants = Object.keys(claim.requirements.capacity)
      .sort()
      .map((dim) => {
        const want = own(claim.requirements.capacity, dim)!;
        return { dim, want, summary: `insufficient ${dim} (want ${want.format()})` };
      });
    if (wants.length === 0) return undefined;
    return (c) => {
      for (const { dim, want, summary } of wants) {
        const have = available(c, dim);
        if (have === undefined) {
          if (c.type === 'class') continue;
          return { summary, detail: () => `states no ${dim}` };
        }
        if (have.cmp(want) < 0) return { summary, detail: () => `has ${have.format()}` };
      }
      return undefined;
    };
  }
}
