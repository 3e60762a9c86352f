/**
 * createRedisKinds builds the local provider's Redis kinds: RedisServer always, and
 * LocalRedisInstance around a supervisor when redis-server is found (otherwise the kind
 * stays registered and says why it cannot work).
 */
import { resolveServerRunAs, serverRootKeepingLegacy } from '../process/run-as.js';
import { silentProviderLogger, type ConcreteKind, type ProviderLogger } from '../../spi.js';
import { resolveRedisBinary, type RedisBinary } from './binaries.js';
import { localRedisInstanceConcreteKind } from './local-instance.js';
import { RedisServers } from './local-servers.js';
import { redisServerConcreteKind } from './shared-server.js';

/** The environment variable naming where dedicated Redis instances keep their data. */
export const redisInstancesDirEnv = 'CONDUCTOR_REDIS_INSTANCES_DIR';

export interface RedisKindsOptions {
  /** Conductor's data directory; instances live under `<dataDir>/providers/local/redis/`. */
  dataDir: string;
  /** The redis-server program (or `CONDUCTOR_REDIS_BIN`); default: found on PATH or in /usr/bin, /usr/sbin, ... */
  redisBin?: string;
  /** Another directory for dedicated instances (or `CONDUCTOR_REDIS_INSTANCES_DIR`). */
  instancesDir?: string;
  env?: NodeJS.ProcessEnv;
  logger?: ProviderLogger;
}

/** RedisKinds are the Redis kinds and what runs them. */
export interface RedisKinds {
  kinds: ConcreteKind[];
  binary: RedisBinary | undefined;
  unavailable: string | undefined;
  servers: RedisServers | undefined;
  stopAll(): Promise<void>;
}

export async function createRedisKinds(options: RedisKindsOptions): Promise<RedisKinds> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentProviderLogger;
  let binary: RedisBinary | undefined;
  let servers: RedisServers | undefined;
  let unavailable: string | undefined;
  try {
    binary = await resolveRedisBinary({ path: options.redisBin, env });
    const runAs = await resolveServerRunAs('redis', { env });
    servers = new RedisServers({
      root: options.instancesDir ?? env[redisInstancesDirEnv] ?? (await serverRootKeepingLegacy('redis', options.dataDir, runAs)),
      binary,
      logger,
      runAs,
    });
    logger.info({ binary: binary.path, version: binary.version, root: servers.root, runAs: runAs?.name }, 'local Redis instances enabled');
  } catch (err) {
    unavailable = (err as Error).message;
    logger.warn({ err: unavailable }, 'local Redis instances unavailable');
  }
  return {
    kinds: [redisServerConcreteKind, localRedisInstanceConcreteKind(servers, binary, unavailable)],
    binary,
    unavailable,
    servers,
    stopAll: async () => {
      await servers?.stopAll();
    },
  };
}
