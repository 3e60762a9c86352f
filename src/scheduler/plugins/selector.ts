import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/**
 * A SelectorFilter does apply the claim's `resourceSelector` to concrete resources' labels.
 * Classes are not filtered by it, and it steps aside when the claim names its resource
 * (`resourceName`).
 */
export class SelectorFilter implements FilterPlugin {
  static readonly pluginName = 'Selector';
  readonly name = SelectorFilter.pluginName;

  constructor(_ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter | undefined {
    const sel = claim.resourceSelector;
    if (sel === undefined || sel.empty || (claim.resourceName !== undefined && claim.resourceName !== '')) return undefined;
    const failure = { summary: 'not selected by the resourceSelector', detail: `selector ${sel.toString() || '(matches nothing)'}` };
    return (c) => (c.type === 'class' || sel.matches(c.labels) ? undefined : failure);
  }
}
