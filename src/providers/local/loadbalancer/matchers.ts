/**
 * Matchers and the configurator of the listener kinds for LoadBalancer claims: whether a
 * listener (or a class that would create one) can serve a claim's portable fields — ports,
 * protocol, targets, tls — and how a class template becomes a listener's spec.
 */
import { deepCopy, isPlainObject, type JsonObject, type KObject } from '../../../machinery/object.js';
import { doesNotFit, fits, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../../spi.js';
import type { ListenerProtocol, ListenerTarget, LocalListener } from './kinds.js';
import { describeTarget, targetKey } from './targets.js';
import { capabilitiesWithRequirements } from '../../requirements.js';
import type { LoadBalancer } from '../../../apis/network/kinds.js';

/** A LoadBalancerClaimSpec is what this provider reads of a LoadBalancer claim (the claim kind's own fields). */
export type LoadBalancerClaimSpec = Pick<Partial<LoadBalancer['spec']>, 'ports' | 'protocol' | 'targets' | 'tls' | 'requirements'>;

/** loadBalancerClaimSpec reads a claim's spec defensively (an absent spec is empty). */
export function loadBalancerClaimSpec(claim: KObject): LoadBalancerClaimSpec {
  const spec = isPlainObject(claim.spec) ? claim.spec : {};
  const out: LoadBalancerClaimSpec = {};
  if (Array.isArray(spec.ports)) out.ports = spec.ports.filter((p): p is number => typeof p === 'number');
  if (typeof spec.protocol === 'string') out.protocol = spec.protocol as LoadBalancerClaimSpec['protocol'];
  if (Array.isArray(spec.targets)) out.targets = spec.targets.filter(isPlainObject);
  if (isPlainObject(spec.tls)) out.tls = spec.tls;
  if (isPlainObject(spec.requirements)) out.requirements = spec.requirements;
  return out;
}

/** What a listener kind can do, for its matcher. */
export interface ListenerMatcherOptions {
  /** The kind's name, for reasons. */
  kind: string;
  /** True when the resource's protocol must equal the claim's (HAProxy's modes differ); false when bytes are forwarded either way. */
  strictProtocol: boolean;
  /** Why the kind cannot work on this machine (e.g. no haproxy binary), if it cannot. */
  unavailable?: string;
}

function sortedKeys(targets: readonly ListenerTarget[] | undefined, namespace: string | undefined): string[] {
  return (targets ?? []).map((t) => targetKey(t, namespace)).sort();
}

function sameTargets(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/**
 * listenerMatcher builds the matcher of a listener kind. TLS termination is not offered:
 * claims asking for HTTPS or tls do not fit (they stay Pending with that reason). An existing
 * listener fits only a claim with the same targets, because binding does not rewrite a
 * resource's spec.
 */
export function listenerMatcher(options: ListenerMatcherOptions) {
  return function matchListener(claim: KObject, candidate: MatchCandidate<LocalListener>): MatchResult {
    if (options.unavailable) return doesNotFit(`${options.kind} is unavailable on this machine: ${options.unavailable}`);
    const wanted = loadBalancerClaimSpec(claim);
    if (wanted.protocol === 'HTTPS' || wanted.tls) {
      return doesNotFit(`${options.kind} does not terminate TLS: ask for protocol TCP or HTTP without tls`);
    }
    if (candidate.type === 'class') return fits;
    const spec = candidate.resource.spec;
    const protocol: ListenerProtocol = spec.protocol ?? 'TCP';
    if (options.strictProtocol && wanted.protocol && wanted.protocol !== protocol) {
      return doesNotFit(`${options.kind} speaks ${protocol}, claim wants ${wanted.protocol}`);
    }
    const have = sortedKeys(spec.targets, candidate.resource.metadata.namespace);
    const want = sortedKeys(wanted.targets, claim.metadata.namespace);
    if (!sameTargets(have, want)) {
      const show = (ts: readonly ListenerTarget[] | undefined) => (ts && ts.length ? ts.map(describeTarget).join(', ') : 'nothing');
      return doesNotFit(`${options.kind} forwards to ${show(spec.targets)}, claim wants ${show(wanted.targets)}`);
    }
    return fits;
  };
}

function withNamespace(target: ListenerTarget, namespace: string | undefined): ListenerTarget {
  const copy = deepCopy(target as unknown as JsonObject) as unknown as ListenerTarget;
  if (!namespace) return copy;
  if (copy.claimRef && !copy.claimRef.namespace) copy.claimRef.namespace = namespace;
  if (copy.serviceRef && !copy.serviceRef.namespace) copy.serviceRef.namespace = namespace;
  return copy;
}

/**
 * configureListener builds a listener spec from a class template: the claim's first port
 * becomes the preferred port, its protocol and targets (references completed with the
 * claim's namespace) replace the template's, and its requirements fill in capabilities.
 */
export function configureListener(claim: KObject, template: ResourceTemplate): JsonObject {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const wanted = loadBalancerClaimSpec(claim);
  if (wanted.ports && wanted.ports.length > 0) spec.port = wanted.ports[0]!;
  if (wanted.protocol === 'TCP' || wanted.protocol === 'HTTP') spec.protocol = wanted.protocol;
  if (wanted.targets) {
    spec.targets = wanted.targets.map((t) => withNamespace(t, claim.metadata.namespace));
  }
  if (wanted.requirements) spec.capabilities = capabilitiesWithRequirements(spec.capabilities, wanted.requirements);
  return spec;
}
