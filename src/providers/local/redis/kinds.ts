/**
 * cache.local.conductor.io/v1alpha1 — the `local` provider's Redis kinds (docs/design.md 3.2, 3.7),
 * defined once: CRD, ResourceRef and TypeScript type. RedisServer is an existing Redis server
 * an administrator registers (each bound claim gets its own ACL user limited to its own key
 * prefix); LocalRedisInstance is a dedicated redis-server process on this machine per claim.
 * Both implement RedisCluster claims.
 */
import type { KObject } from '../../../machinery/object.js';
import { s } from '../../../apis/schema/builder.js';
import type { ObjectOf } from '../../../apis/schema/kind.js';
import { REDIS_CONNECTION_KEYS, REDIS_EVICTION_POLICIES, redisClusterKind, type RedisCluster } from '../../../apis/cache/kinds.js';
import { V1ALPHA1 } from '../../../apis/well-known.js';
import type { GroupKind } from '../../spi.js';
import { defineProviderKind } from '../../kind-definition.js';

export const LOCAL_CACHE_GROUP = 'cache.local.conductor.io';

/** The claim kind both Redis kinds implement. */
export const redisClusterClaim: GroupKind = { group: redisClusterKind.group, kind: redisClusterKind.kind };

/**
 * The connection secret keys of a RedisCluster claim on a RedisServer: the claim kind's
 * `host port password uri` plus `username` (the claim's ACL user) and `keyPrefix` (what every
 * key and channel of the claim must start with).
 */
export const redisSecretKeys = ['host', 'port', 'username', 'password', 'keyPrefix', 'uri'] as const;

/** The connection secret keys on a LocalRedisInstance: a whole server has no key prefix. */
export const localRedisInstanceSecretKeys = ['host', 'port', 'username', 'password', 'uri'] as const;

const tcpPort = () => s.integer({ minimum: 1, maximum: 65535 });

export const redisServerKind = defineProviderKind({
  group: LOCAL_CACHE_GROUP,
  version: V1ALPHA1,
  kind: 'RedisServer',
  plural: 'redisservers',
  shortNames: ['redisserver'],
  description:
    'A RedisServer registers an existing Redis server (6 or later) that several claims share: each bound claim gets its own ACL user that may only touch keys and channels under its own prefix.',
  sharing: 'Shared',
  lifecycle: 'Registered',
  implements: [{ claim: redisClusterKind, portableKeys: REDIS_CONNECTION_KEYS, connectionSecretKeys: redisSecretKeys }],
  fields: {
    host: s.string({ minLength: 1 }).describe('Host name or IP address of the server.'),
    port: tcpPort().withDefault(6379).describe('TCP port of the server.').optional(),
    adminCredentialsSecretRef: s
      .object({
        name: s.string({ minLength: 1 }).describe('Name of the Secret, in the same namespace; whoever sets it must be allowed to read that Secret.'),
        usernameKey: s
          .string({ minLength: 1 })
          .withDefault('username')
          .describe('The key holding the admin user name; the user "default" when the Secret lacks it.')
          .optional(),
        passwordKey: s.string({ minLength: 1 }).withDefault('password').describe('The key holding the admin password.').optional(),
      })
      .describe('The Secret with the credentials of a user that may run ACL commands and delete any key.'),
    version: s.string().describe("The server's Redis version, matched against claims' version ranges; observed when absent.").optional(),
  },
});
export type RedisServer = ObjectOf<typeof redisServerKind>;

export const localRedisInstanceKind = defineProviderKind({
  group: LOCAL_CACHE_GROUP,
  version: V1ALPHA1,
  kind: 'LocalRedisInstance',
  plural: 'localredisinstances',
  shortNames: ['localredis'],
  description:
    'A LocalRedisInstance is a dedicated redis-server process on the machine Conductor runs on (127.0.0.1, password required), with its data under the data directory.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: redisClusterKind, portableKeys: REDIS_CONNECTION_KEYS, connectionSecretKeys: localRedisInstanceSecretKeys }],
  fields: {
    version: s.string().describe('A Redis version range the installed redis-server must satisfy, e.g. ">= 7".').optional(),
    port: tcpPort().describe('The port to listen on (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    evictionPolicy: s.enumOf(REDIS_EVICTION_POLICIES).describe('maxmemory-policy of the server; noeviction when absent.').optional(),
    maxMemory: s
      .string({ pattern: '^[0-9]+(b|kb|mb|gb)?$' })
      .describe('maxmemory of the server in Redis units, e.g. "256mb"; unlimited when absent.')
      .optional(),
  },
});
export type LocalRedisInstance = ObjectOf<typeof localRedisInstanceKind>;

/** The Redis kinds' ResourceRefs, by plural. */
export const redisRefs = {
  redisservers: redisServerKind.ref,
  localredisinstances: localRedisInstanceKind.ref,
} as const;

/** The environment variable naming the redis-server program. */
export const redisBinEnv = 'CONDUCTOR_REDIS_BIN';

/** The portable fields of a RedisCluster claim (an absent spec reads as empty). */
export type RedisClaimSpec = Partial<RedisCluster['spec']>;

/** redisClaimSpec reads a claim's spec as a RedisCluster spec (an absent spec is empty). */
export function redisClaimSpec(claim: KObject): RedisClaimSpec {
  const spec = claim.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? spec : {};
}

/** The maxmemory-policy values redis-server accepts (the only words written into redis.conf for it). */
export const redisEvictionPolicies = REDIS_EVICTION_POLICIES;

/** Redis's own default eviction policy. */
export const defaultEvictionPolicy = 'noeviction';
