/**
 * cache.conductor.io/v1alpha1 — RedisCluster (docs/design.md 3.1).
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineClaimKind } from '../common/claim.js';
import { V1ALPHA1 } from '../well-known.js';

export const CACHE_GROUP = 'cache.conductor.io';

/** The portable keys of a RedisCluster's connection Secret: every implementation publishes at least these. */
export const REDIS_CONNECTION_KEYS = ['host', 'port', 'password', 'uri'] as const;

/** Redis's maxmemory policies. */
export const REDIS_EVICTION_POLICIES = [
  'noeviction',
  'allkeys-lru',
  'allkeys-lfu',
  'allkeys-random',
  'volatile-lru',
  'volatile-lfu',
  'volatile-random',
  'volatile-ttl',
] as const;

export const redisClusterKind = defineClaimKind({
  group: CACHE_GROUP,
  version: V1ALPHA1,
  kind: 'RedisCluster',
  plural: 'redisclusters',
  shortNames: ['redis'],
  description:
    'A RedisCluster claims a Redis cache. Its connection Secret has the keys host, port, password and uri; the concrete kind that serves it may add keys of its own, which its description names.',
  connectionKeys: REDIS_CONNECTION_KEYS,
  portable: {
    version: s.string().describe('A version or semver range, e.g. ">= 7"; loose versions are coerced.').optional(),
    evictionPolicy: s.enumOf(REDIS_EVICTION_POLICIES).describe('What Redis evicts when memory is full (maxmemory-policy).').optional(),
  },
});
export type RedisCluster = ObjectOf<typeof redisClusterKind>;

export const cacheKinds = [redisClusterKind] as const;

export const cacheRefs = { redisclusters: redisClusterKind.ref } as const;
