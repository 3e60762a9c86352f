/**
 * The `local` provider: infrastructure on this machine. Its kinds, one engine per folder:
 * PostgreSQL (PostgreSQLServer, a registered shared server; LocalPostgreSQLInstance, a
 * dedicated server process per claim), MySQL/MariaDB (MySQLServer, LocalMySQLInstance), Redis
 * (RedisServer, LocalRedisInstance), NATS (NATSServer), S3 (S3Server), host directories
 * (HostPathPool) and load balancers (LocalPortForwarder, HAProxyLoadBalancer).
 *
 * `localProvider` is the provider's one value: the kinds' definitions (available without
 * starting anything) and `start`, which finds the programs the kinds need and starts their
 * supervisors (createLocalProvider).
 */
import { join } from 'node:path';
import { silentProviderLogger, type ProviderLogger, type ProviderModule, type ProviderStartOptions } from '../spi.js';
import { resolveBinaries, type PostgresBinaries } from './postgresql/binaries.js';
import { localPostgreSQLInstanceConcreteKind } from './postgresql/local-instance.js';
import { LocalServers } from './postgresql/local-servers.js';
import { resolveRunAs } from './process/run-as.js';
import { postgresqlServerConcreteKind } from './postgresql/shared-server.js';
import { createMySqlKinds } from './mysql/setup.js';
import { createLoadBalancerKinds } from './loadbalancer/load-balancers.js';
import { createRedisKinds } from './redis/redis-kinds.js';
import { createNatsKinds } from './nats/nats-kinds.js';
import { createS3Kinds } from './s3/s3-kinds.js';
import { hostPathPoolConcreteKind } from './hostpath/host-path-pool.js';
import { checkLocalPrograms } from './provider-check.js';

/** The environment variable naming where dedicated PostgreSQL instances keep their data. */
export { instancesDirEnv } from './provider.js';
import { instancesDirEnv } from './provider.js';
import { withOwnMachinePrice } from '../prices.js';

export interface LocalProviderOptions extends ProviderStartOptions {
  /** Conductor's data directory; instances live under `<dataDir>/providers/local/postgresql/`. */
  dataDir: string;
  /** Another directory for dedicated instances (or `CONDUCTOR_POSTGRES_INSTANCES_DIR`). */
  instancesDir?: string;
  /** A directory with initdb and postgres (or `CONDUCTOR_POSTGRES_BIN`); default: embedded, then system. */
  postgresBin?: string;
  /** When Conductor is root, the user servers run as (or `CONDUCTOR_POSTGRES_USER`). */
  postgresUser?: string;
  env?: NodeJS.ProcessEnv;
  logger?: ProviderLogger;
  /** How long a server start may take; default 60 s. */
  startTimeoutMs?: number;
  /** initdb without fsync (tests). */
  fastInitdb?: boolean;
}

/** A LocalProvider is the local provider module plus what it runs on this machine. */
export interface LocalProvider extends ProviderModule {
  readonly type: 'local';
  /** The binaries dedicated instances use, when any were found. */
  readonly postgresBinaries: PostgresBinaries | undefined;
  /** Why dedicated instances are unavailable, when they are. */
  readonly postgresUnavailable: string | undefined;
  /** The supervisor of dedicated instances, when available. */
  readonly postgresServers: LocalServers | undefined;
  /** stopAll stops every server process the provider started or adopted (on shutdown). */
  stopAll(): Promise<void>;
}

/**
 * createLocalProvider finds the PostgreSQL binaries and the user to run them as; without
 * binaries the LocalPostgreSQLInstance kind stays registered but reports why it cannot work.
 */
export async function createLocalProvider(options: LocalProviderOptions): Promise<LocalProvider> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentProviderLogger;
  let binaries: PostgresBinaries | undefined;
  let servers: LocalServers | undefined;
  let unavailable: string | undefined;
  try {
    binaries = await resolveBinaries({ binDir: options.postgresBin, env });
    const runAs = await resolveRunAs({ user: options.postgresUser, env });
    servers = new LocalServers({
      root: options.instancesDir ?? env[instancesDirEnv] ?? join(options.dataDir, 'providers', 'local', 'postgresql'),
      binaries,
      runAs,
      logger,
      startTimeoutMs: options.startTimeoutMs,
      fastInitdb: options.fastInitdb,
    });
    logger.info({ binaries: binaries.dir, version: binaries.version, source: binaries.source, runAs: runAs?.name }, 'local PostgreSQL instances enabled');
  } catch (err) {
    unavailable = (err as Error).message;
    logger.warn({ err: unavailable }, 'local PostgreSQL instances unavailable');
  }
  const mysql = await createMySqlKinds({
    dataDir: options.dataDir,
    postgresInstancesDir: options.instancesDir,
    env,
    logger,
    startTimeoutMs: options.startTimeoutMs,
  });
  const loadBalancers = await createLoadBalancerKinds({ dataDir: options.dataDir, env, logger });
  const redis = await createRedisKinds({ dataDir: options.dataDir, env, logger });
  const nats = await createNatsKinds({ dataDir: options.dataDir, env, logger });
  const s3 = await createS3Kinds({ dataDir: options.dataDir, env, logger });
  const stopAll = async (): Promise<void> => {
    await loadBalancers.stopAll();
    await redis.stopAll();
    await nats.stopAll();
    await s3.stopAll();
    await servers?.stopAll();
    await mysql.stopAll();
  };
  return {
    type: 'local',
    // What runs here costs nothing more a month unless a class says so (providers/prices.ts).
    kinds: withOwnMachinePrice([
      postgresqlServerConcreteKind,
      localPostgreSQLInstanceConcreteKind(servers, binaries, unavailable),
      ...mysql.kinds,
      ...loadBalancers.kinds,
      ...redis.kinds,
      ...nats.kinds,
      ...s3.kinds,
      hostPathPoolConcreteKind,
    ]),
    postgresBinaries: binaries,
    postgresUnavailable: unavailable,
    postgresServers: servers,
    stop: stopAll,
    stopAll,
    check: (_provider, context) => checkLocalPrograms({ env, postgresBin: options.postgresBin }, context.signal),
  };
}
