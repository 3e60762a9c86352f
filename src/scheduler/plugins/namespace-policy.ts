import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo } from '../types.js';

/** The label every namespace carries with its own name, also assumed when the binder's labels lack it. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * A NamespacePolicyFilter does keep a claim to the classes and resources its namespace may
 * use. A class's `allowedNamespaces` selector is matched against the labels of the claim's
 * namespace (which always include `kubernetes.io/metadata.name`). A class without one serves
 * every namespace when it lives in the system namespace, and only its own namespace's claims
 * when it lives elsewhere (a class in a tenant's namespace is that tenant's). Concrete
 * resources pass: they live in administrators' namespaces (DESIGN 3.2), and what a class
 * provisions goes to the system namespace whatever the class's own.
 */
export class NamespacePolicyFilter implements FilterPlugin {
  static readonly pluginName = 'NamespacePolicy';
  readonly name = NamespacePolicyFilter.pluginName;
  readonly conceals = true;

  constructor(private readonly ctx: PluginContext) {}

  prepare(claim: ClaimInfo): CandidateFilter {
    const labels = { ...claim.namespaceLabels, [NAMESPACE_NAME_LABEL]: claim.namespace };
    const system = this.ctx.systemNamespace;
    const notAllowed = { summary: `namespace ${JSON.stringify(claim.namespace)} not allowed by the class` };
    const otherNamespace = (c: { namespace: string }) => c.namespace !== system && c.namespace !== claim.namespace;
    return (c) => {
      if (c.type === 'class') {
        if (c.allowedNamespaces !== undefined) return c.allowedNamespaces.matches(labels) ? undefined : notAllowed;
        return otherNamespace(c) ? { summary: 'class of another namespace', detail: () => `the class lives in ${JSON.stringify(c.namespace)} and names no allowedNamespaces` } : undefined;
      }
      return undefined;
    };
  }
}
