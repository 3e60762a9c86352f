/**
 * Matchers and configurators of the two Redis kinds for RedisCluster claims: whether a
 * server (or a class that would create one) honours a claim's version range and eviction
 * policy, and how a class template becomes a dedicated instance's spec.
 */
import { deepCopy, type JsonObject, type KObject } from '../../../machinery/object.js';
import { doesNotFit, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../../spi.js';
import { versionMismatch } from '../postgresql/version.js';
import { defaultEvictionPolicy, redisClaimSpec, type LocalRedisInstance, type RedisServer } from './kinds.js';
import { capabilitiesWithRequirements } from '../../requirements.js';
import { atProviderString, specString, versionVerdict } from '../match-helpers.js';

const versionResult = (wanted: string | undefined, offered: string | undefined, exact: boolean) =>
  versionVerdict(versionMismatch, wanted, offered, exact, 'Redis version not yet known');

/**
 * matchRedisServer judges a claim against a registered RedisServer: its version (observed,
 * else the one the admin wrote) must satisfy the claim's range, and its eviction policy —
 * server-wide, so not changed for one claim — must be the one the claim asks for.
 */
export function matchRedisServer(claim: KObject, candidate: MatchCandidate<RedisServer>): MatchResult {
  if (candidate.type === 'class') return doesNotFit('RedisServer registers an existing server; a class cannot provision one');
  const wanted = redisClaimSpec(claim);
  const resource = candidate.resource;
  if (wanted.evictionPolicy) {
    const policy = atProviderString(resource, 'evictionPolicy');
    if (!policy) return doesNotFit('eviction policy of the server not yet known');
    if (policy !== wanted.evictionPolicy) return doesNotFit(`server evicts by "${policy}", claim wants "${wanted.evictionPolicy}"`);
  }
  const observed = atProviderString(resource, 'version');
  if (observed) return versionResult(wanted.version, observed, true);
  return versionResult(wanted.version, specString(resource.spec, 'version'), false);
}

/** configureRedisServer refuses: shared servers are registered, never provisioned. */
export function configureRedisServer(): JsonObject {
  throw new Error('RedisServer cannot be provisioned from a class: it registers an existing server');
}

/**
 * localRedisMatcher judges a claim against a LocalRedisInstance or a class that creates one.
 * `binaryVersion` is the version of this machine's redis-server (undefined when there is none).
 */
export function localRedisMatcher(binaryVersion: string | undefined) {
  return function matchLocalRedis(claim: KObject, candidate: MatchCandidate<LocalRedisInstance>): MatchResult {
    const wanted = redisClaimSpec(claim);
    if (candidate.type === 'class') {
      if (!binaryVersion) return doesNotFit('no redis-server on this machine');
      const pinned = specString(candidate.template.spec, 'version');
      if (pinned && versionMismatch(pinned, binaryVersion, true)) {
        return doesNotFit(`class pins version "${pinned}" but this machine runs Redis ${binaryVersion}`);
      }
      // The claim's eviction policy overrides the template's.
      return versionResult(wanted.version, binaryVersion, true);
    }
    const spec = candidate.resource.spec;
    const policy = spec.evictionPolicy || defaultEvictionPolicy;
    if (wanted.evictionPolicy && wanted.evictionPolicy !== policy) {
      return doesNotFit(`instance evicts by "${policy}", claim wants "${wanted.evictionPolicy}"`);
    }
    return versionResult(wanted.version, atProviderString(candidate.resource, 'version') ?? binaryVersion, true);
  };
}

/**
 * configureLocalRedis builds a LocalRedisInstance spec from a class template: the claim's
 * eviction policy replaces the template's; the template's version stays when it fits the
 * claim's range, else the claim's range is used; the claim's capacity requests replace the
 * template's, and its region and tiers fill in what the template leaves open.
 */
export function configureLocalRedis(claim: KObject, template: ResourceTemplate): JsonObject {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const wanted = redisClaimSpec(claim);
  if (wanted.version) {
    const pinned = specString(spec, 'version');
    if (!pinned || versionMismatch(wanted.version, pinned, false)) spec.version = wanted.version;
  }
  if (wanted.evictionPolicy) spec.evictionPolicy = wanted.evictionPolicy;
  if (wanted.requirements) spec.capabilities = capabilitiesWithRequirements(spec.capabilities, wanted.requirements);
  return spec;
}
