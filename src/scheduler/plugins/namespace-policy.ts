import { reservedFor } from '../availability.js';
import type { CandidateFilter, FilterPlugin, PluginContext } from '../plugin.js';
import type { ClaimInfo, ClassCandidate } from '../types.js';

/** The label every namespace carries with its own name, also assumed when the binder's labels lack it. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';
/** The label (`<namespace>.<name>`) the binder and the pool manager put on what a class made. */
export const CLASS_LABEL = 'conductor.io/resource-class';

/**
 * A NamespacePolicyFilter does keep a claim to the classes its namespace may use. A class's
 * `allowedNamespaces` selector is matched against the labels of the claim's namespace (which
 * always include `kubernetes.io/metadata.name`). A class without one serves every namespace
 * when it lives in the system namespace, and only its own namespace's claims when it lives
 * elsewhere (a class in a tenant's namespace is that tenant's). A resource a class made (its
 * `conductor.io/resource-class` label: a warm pool member, a recycled resource) is judged as
 * its class, unless it is reserved for the claim; other concrete resources pass: they live in
 * administrators' namespaces (docs/design.md 3.2).
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
    const otherNamespace = { summary: 'class of another namespace' };
    /** Why the class (its namespace, and its allowedNamespaces when known) refuses the claim. */
    const refusal = (namespace: string, cls: ClassCandidate | undefined) => {
      if (cls?.allowedNamespaces !== undefined) return cls.allowedNamespaces.matches(labels) ? undefined : notAllowed;
      return namespace !== system && namespace !== claim.namespace ? otherNamespace : undefined;
    };
    return (c) => {
      if (c.type === 'class') return refusal(c.namespace, c);
      const label = c.labels[CLASS_LABEL];
      if (label === undefined || reservedFor(c, claim)) return undefined;
      const dot = label.indexOf('.');
      if (dot <= 0) return undefined;
      const namespace = label.slice(0, dot);
      return refusal(namespace, this.ctx.classOf?.(namespace, label.slice(dot + 1)));
    };
  }
}
