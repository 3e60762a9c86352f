import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/** The label every namespace carries with its own name, also assumed when the binder's labels lack it. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * A NamespacePolicyFilter does apply a class's `allowedNamespaces` selector to the labels of
 * the claim's namespace (which always include `kubernetes.io/metadata.name`). Classes without
 * one, and concrete resources, pass.
 */
export class NamespacePolicyFilter implements FilterPlugin {
  static readonly pluginName = 'NamespacePolicy';
  readonly name = NamespacePolicyFilter.pluginName;

  constructor(_ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter {
    const labels = { ...claim.namespaceLabels, [NAMESPACE_NAME_LABEL]: claim.namespace };
    const failure = { summary: `namespace ${JSON.stringify(claim.namespace)} not allowed by the class` };
    return (c) => (c.type === 'class' && c.allowedNamespaces !== undefined && !c.allowedNamespaces.matches(labels) ? failure : undefined);
  }
}
