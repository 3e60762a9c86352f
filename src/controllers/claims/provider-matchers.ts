/**
 * The scheduler's PortableConfig filter asks a matcher per (claim kind, concrete kind)
 * whether a candidate honours the claim's portable fields. providerMatchers registers every
 * provider's own matcher (the SPI's `ClaimImplementation.match`), which knows what the
 * built-in version check cannot: an observed server version, MariaDB's numbering, binaries
 * missing on this machine, features a kind cannot offer. Pairs no provider serves keep the
 * built-in matchers.
 */
import type { JsonObject, KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { ClaimImplementation, ConcreteKind, MatchCandidate } from '../../providers/spi.js';
import type { PortableMatcherRegistry } from '../../scheduler/index.js';
import { builtinPortableMatchers, type Candidate, type ClaimInfo, type PortableMatch, type PortableMatcher } from '../../scheduler/index.js';

/** providerMatchers returns the built-in matchers with every provider kind's own registered over them. */
export function providerMatchers(kinds: readonly ConcreteKind[]): PortableMatcherRegistry {
  const registry = builtinPortableMatchers();
  for (const kind of kinds) registerKindMatchers(registry, kind);
  return registry;
}

/** registerKindMatchers registers a concrete kind's matcher for every claim kind it implements. */
export function registerKindMatchers(registry: PortableMatcherRegistry, kind: ConcreteKind): void {
  for (const impl of kind.implements) registry.register(impl.claimKind, { group: kind.group, kind: kind.kind }, adapt(kind, impl));
}

/** unregisterKindMatchers removes what registerKindMatchers registered. */
export function unregisterKindMatchers(registry: PortableMatcherRegistry, kind: ConcreteKind): void {
  for (const impl of kind.implements) registry.unregister(impl.claimKind, { group: kind.group, kind: kind.kind });
}

function adapt(kind: ConcreteKind, impl: ClaimImplementation): PortableMatcher {
  const judge = (claim: KObject, c: Candidate): PortableMatch => {
    let result;
    try {
      result = impl.match(claim, matchCandidate(kind, c));
    } catch (err) {
      return { fits: false, reason: `${kind.kind} cannot judge the claim: ${err instanceof Error ? err.message : String(err)}` };
    }
    return result.fits ? FITS : { fits: false, reason: result.reason };
  };
  const matcher = (claim: ClaimInfo, c: Candidate) => judge(claimObject(claim), c);
  return Object.assign(matcher, {
    prepare: (claim: ClaimInfo) => {
      const obj = claimObject(claim);
      return (c: Candidate) => judge(obj, c);
    },
  });
}

const FITS: PortableMatch = Object.freeze({ fits: true });

/** The claim as an object: the one it was read from, or one rebuilt from what the scheduler knows. */
export function claimObject(claim: ClaimInfo): KObject {
  if (claim.source) return claim.source;
  return {
    apiVersion: `${claim.kind.group}/v1alpha1`,
    kind: claim.kind.kind,
    metadata: { namespace: claim.namespace, name: claim.name, uid: claim.uid },
    spec: { ...claim.portable },
  };
}

/** The candidate as the SPI's MatchCandidate: the resource or class it was read from, or a rebuilt one. */
export function matchCandidate(kind: ConcreteKind, c: Candidate): MatchCandidate {
  if (c.type === 'resource') {
    const resource: KObject = c.source ?? {
      apiVersion: `${kind.group}/${kind.version}`,
      kind: kind.kind,
      metadata: { namespace: c.namespace, name: c.name, labels: { ...c.labels } },
      spec: { ...c.portable },
    };
    return { type: 'resource', resource };
  }
  const cls: KObject = c.source ?? { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { namespace: c.namespace, name: c.name } };
  const t = isPlainObject(cls['template']) ? cls['template'] : {};
  return {
    type: 'class',
    resourceClass: cls,
    template: {
      apiVersion: typeof t['apiVersion'] === 'string' ? t['apiVersion'] : `${kind.group}/${kind.version}`,
      kind: typeof t['kind'] === 'string' ? t['kind'] : kind.kind,
      ...(isPlainObject(t['metadata']) ? { metadata: t['metadata'] } : {}),
      spec: (isPlainObject(t['spec']) ? t['spec'] : { ...c.portable }) as JsonObject,
    },
  };
}
