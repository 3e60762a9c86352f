/**
 * The matcher and configurator of HostPathPool for Volume claims.
 */
import type { JsonObject, KObject } from '../../../machinery/object.js';
import { doesNotFit, fits, type MatchCandidate, type MatchResult } from '../../spi.js';
import { volumeClaimSpec, type HostPathPool } from './kinds.js';

/**
 * matchHostPathPool judges a Volume claim against a HostPathPool. Both access modes fit (a
 * directory can be opened by any number of local consumers). A claim naming a filesystem
 * fits only a pool that declares the same one. Classes cannot create pools (they are
 * registered, not provisioned).
 */
export function matchHostPathPool(claim: KObject, candidate: MatchCandidate<HostPathPool>): MatchResult {
  if (candidate.type === 'class') return doesNotFit('HostPathPool registers an existing directory; a class cannot provision one');
  const wanted = volumeClaimSpec(claim).filesystem;
  if (!wanted) return fits;
  const offered = candidate.resource.spec.filesystem;
  if (!offered) return doesNotFit(`claim wants filesystem "${wanted}" but the pool declares none`);
  return offered.toLowerCase() === wanted.toLowerCase() ? fits : doesNotFit(`pool filesystem is "${offered}", claim wants "${wanted}"`);
}

/** configureHostPathPool refuses: pools are registered, never provisioned. */
export function configureHostPathPool(): JsonObject {
  throw new Error('HostPathPool cannot be provisioned from a class: it registers an existing directory');
}
