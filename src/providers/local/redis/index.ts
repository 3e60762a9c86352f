export {
  LOCAL_CACHE_GROUP,
  localRedisInstanceKind,
  redisServerKind,
  redisRefs,
  redisClusterClaim,
  redisSecretKeys,
  localRedisInstanceSecretKeys,
  redisBinEnv,
  redisClaimSpec,
  type LocalRedisInstance,
  type RedisServer,
  type RedisClaimSpec,
} from './kinds.js';
export { redisServerConcreteKind, redisServerConnector, RedisServerClient, redisShare, type RedisShare } from './shared-server.js';
export { localRedisInstanceConcreteKind, LocalRedisClient, maxMemoryBytes } from './local-instance.js';
export {
  RedisServers,
  renderRedisConfig,
  type RedisInstanceState,
  type RedisInstanceStatus,
  type RedisServersOptions,
  type RedisSettings,
} from './local-servers.js';
export { resolveRedisBinary, parseRedisVersion, type RedisBinary } from './binaries.js';
export { formatRedisConnection, redisUri, redisEndpointDetails, type RedisEndpoint } from './connection.js';
export { matchRedisServer, localRedisMatcher, configureLocalRedis } from './matchers.js';
export { withRedis, derivePassword, aclRules, type RedisLogin, type RedisCommands } from './admin.js';
export { createRedisKinds, redisInstancesDirEnv, type RedisKinds, type RedisKindsOptions } from './redis-kinds.js';
