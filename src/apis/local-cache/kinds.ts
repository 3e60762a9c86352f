/**
 * cache.local.conductor.io/v1alpha1 — the `local` provider's Redis kinds (DESIGN 3.2, 3.7):
 * RedisServer, an existing Redis server an administrator registers (each bound claim gets
 * its own ACL user limited to its own key prefix), and LocalRedisInstance, a dedicated
 * redis-server process on this machine per claim. Both implement RedisCluster claims.
 */
import { s } from '../schema/builder.js';
import type { ObjectOf } from '../schema/kind.js';
import { defineConcreteKind } from '../common/concrete.js';
import { REDIS_EVICTION_POLICIES } from '../cache/kinds.js';
import { V1ALPHA1 } from '../well-known.js';

export const LOCAL_CACHE_GROUP = 'cache.local.conductor.io';

/** The claim kinds both Redis kinds implement (CRD annotation conductor.io/implements). */
export const REDIS_CLAIM_KINDS = ['redisclusters.cache.conductor.io'];

const tcpPort = () => s.integer({ minimum: 1, maximum: 65535 });

export const redisServerKind = defineConcreteKind({
  group: LOCAL_CACHE_GROUP,
  version: V1ALPHA1,
  kind: 'RedisServer',
  plural: 'redisservers',
  shortNames: ['redisserver'],
  description:
    'A RedisServer registers an existing Redis server (6 or later) that several claims share: each bound claim gets its own ACL user that may only touch keys and channels under its own prefix.',
  implements: REDIS_CLAIM_KINDS,
  sharingDefault: { mode: 'Shared' },
  fields: {
    host: s.string({ minLength: 1 }).describe('Host name or IP address of the server.'),
    port: tcpPort().withDefault(6379).describe('TCP port of the server.').optional(),
    adminCredentialsSecretRef: s
      .object({
        name: s.string({ minLength: 1 }).describe('Name of the Secret, in the same namespace; whoever sets it must be allowed to read that Secret.'),
        usernameKey: s.string({ minLength: 1 }).withDefault('username').describe('The key holding the admin user name; the user "default" when the Secret lacks it.').optional(),
        passwordKey: s.string({ minLength: 1 }).withDefault('password').describe('The key holding the admin password.').optional(),
      })
      .describe('The Secret with the credentials of a user that may run ACL commands and delete any key.'),
    version: s.string().describe('The server\'s Redis version, matched against claims\' version ranges; observed when absent.').optional(),
  },
});
export type RedisServer = ObjectOf<typeof redisServerKind>;

export const localRedisInstanceKind = defineConcreteKind({
  group: LOCAL_CACHE_GROUP,
  version: V1ALPHA1,
  kind: 'LocalRedisInstance',
  plural: 'localredisinstances',
  shortNames: ['localredis'],
  description:
    'A LocalRedisInstance is a dedicated redis-server process on the machine Conductor runs on (127.0.0.1, password required), with its data under the data directory.',
  implements: REDIS_CLAIM_KINDS,
  fields: {
    version: s.string().describe('A Redis version range the installed redis-server must satisfy, e.g. ">= 7".').optional(),
    port: tcpPort().describe('The port to listen on (127.0.0.1); a free one is chosen and kept when absent.').optional(),
    evictionPolicy: s.enumOf(REDIS_EVICTION_POLICIES).describe('maxmemory-policy of the server; noeviction when absent.').optional(),
    maxMemory: s.string({ pattern: '^[0-9]+(b|kb|mb|gb)?$' }).describe('maxmemory of the server in Redis units, e.g. "256mb"; unlimited when absent.').optional(),
  },
});
export type LocalRedisInstance = ObjectOf<typeof localRedisInstanceKind>;

export const localCacheKinds = [redisServerKind, localRedisInstanceKind] as const;

export const localCacheRefs = {
  redisservers: redisServerKind.ref,
  localredisinstances: localRedisInstanceKind.ref,
} as const;
