/**
 * The shapes of the local provider's Redis kinds, as far as this provider reads them. The
 * CRDs themselves (and their full schemas) live in src/apis/local-cache.
 */
import type { KObject } from '../../../machinery/object.js';
import type { GroupKind } from '../../spi.js';

export const localCacheGroup = 'cache.local.conductor.io';
export const localCacheVersion = 'v1alpha1';

/** The claim kind both Redis kinds implement. */
export const redisClusterClaim: GroupKind = { group: 'cache.conductor.io', kind: 'RedisCluster' };

/**
 * The connection secret keys of a RedisCluster claim on the local provider: the documented
 * `host port password uri` (DESIGN.md 3.1) plus `username` (the ACL user) and `keyPrefix`
 * (what every key and channel of the claim must start with; absent on a dedicated instance).
 */
export const redisSecretKeys = ['host', 'port', 'username', 'password', 'keyPrefix', 'uri'] as const;

/** The environment variable naming the redis-server program. */
export const redisBinEnv = 'CONDUCTOR_REDIS_BIN';

/** A RedisServerSpec registers an existing server shared by many claims. */
export interface RedisServerSpec {
  host: string;
  port?: number;
  /** The Secret (in the resource's namespace) holding the admin user's credentials. */
  adminCredentialsSecretRef?: { name: string; usernameKey?: string; passwordKey?: string };
  version?: string;
  [field: string]: unknown;
}

/** A LocalRedisInstanceSpec asks for a dedicated redis-server on this machine. */
export interface LocalRedisInstanceSpec {
  version?: string;
  port?: number;
  evictionPolicy?: string;
  maxMemory?: string;
  [field: string]: unknown;
}

/** A ClaimRefLike is a claim reference as concrete resources record it. */
export interface ClaimRefLike {
  namespace?: string;
  name?: string;
  uid?: string;
  [field: string]: unknown;
}

export interface RedisServer extends KObject {
  spec: RedisServerSpec & { claimRef?: ClaimRefLike };
  status?: {
    atProvider?: { version?: string; evictionPolicy?: string; [field: string]: unknown };
    bindings?: { claimRef: ClaimRefLike; [field: string]: unknown }[];
    [field: string]: unknown;
  };
}

export interface LocalRedisInstance extends KObject {
  spec: LocalRedisInstanceSpec;
  status?: { atProvider?: { version?: string; [field: string]: unknown }; [field: string]: unknown };
}

/** The portable fields of a RedisCluster claim this provider reads. */
export interface RedisClaimSpec {
  version?: string;
  evictionPolicy?: string;
  requirements?: { capacity?: Record<string, string | number>; region?: string; cost?: string; performance?: string };
  [field: string]: unknown;
}

/** redisClaimSpec reads a claim's spec as a RedisCluster spec (an absent spec is empty). */
export function redisClaimSpec(claim: KObject): RedisClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? (spec as RedisClaimSpec) : {};
}

/** Redis's own default eviction policy. */
/** The maxmemory-policy values redis-server accepts (the only words written into redis.conf for it). */
export const redisEvictionPolicies = ['noeviction', 'allkeys-lru', 'allkeys-lfu', 'allkeys-random', 'volatile-lru', 'volatile-lfu', 'volatile-random', 'volatile-ttl'] as const;

export const defaultEvictionPolicy = 'noeviction';
