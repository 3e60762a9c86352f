/**
 * Clusters (and other Providers) as scheduling targets: a class that names no Provider, of a
 * provider type that places classes across its Providers, becomes one candidate per Provider
 * of that type — each with the Provider's region and capabilities, narrowed by the class's
 * own — so the filters and scores choose the Provider as they choose between classes.
 */
import { compareQuantities, type Quantity } from '../machinery/quantity/index.js';
import type { ProviderTarget } from './convert.js';
import type { Capabilities, ClassCandidate } from './types.js';

/** The Phase filter's summary for a target Provider whose Ready condition is not True. */
export const TARGET_NOT_READY = 'Provider not Ready';

/**
 * placedClassCandidates places `cls` on each Provider of `type` in `providers` (the system
 * namespace's). Providers not Ready stay candidates, rejected as `Provider not Ready`, so the
 * explanation counts them; with no Provider of the type at all the class is one candidate
 * rejected as `no <type> Provider in <namespace>`.
 */
export function placedClassCandidates(cls: ClassCandidate, type: string, providers: readonly ProviderTarget[], namespace: string): ClassCandidate[] {
  const targets = providers.filter((p) => p.type === type && p.namespace === namespace).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (targets.length === 0) return [{ ...cls, unavailable: `no ${type} Provider in ${namespace}` }];
  return targets.map((p) => ({
    ...cls,
    capabilities: narrowed(p.capabilities, cls.capabilities),
    provider: `${p.namespace}/${p.name}`,
    target: p.name,
    ...(p.ready ? {} : { unavailable: TARGET_NOT_READY }),
  }));
}

/**
 * narrowed is what a class offers on a Provider: the class's region, cost and performance
 * where it states them, else the Provider's; each capacity dimension the smaller of the two
 * where both state it.
 */
export function narrowed(provider: Capabilities, cls: Capabilities): Capabilities {
  const capacity: Record<string, Quantity> = { ...provider.capacity };
  for (const [dim, q] of Object.entries(cls.capacity)) {
    const p = capacity[dim];
    capacity[dim] = p === undefined || compareQuantities(q, p) < 0 ? q : p;
  }
  const region = cls.region ?? provider.region;
  const cost = cls.cost ?? provider.cost;
  const performance = cls.performance ?? provider.performance;
  return {
    capacity,
    ...(region === undefined ? {} : { region }),
    ...(cost === undefined ? {} : { cost }),
    ...(performance === undefined ? {} : { performance }),
  };
}
