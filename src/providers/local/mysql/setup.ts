/**
 * createMySqlKinds builds the local provider's MySQL kinds: MySQLServer always, and
 * LocalMySQLInstance around a supervisor of dedicated MariaDB servers when the binaries are
 * found (without them the kind stays registered and says why it cannot work).
 */
import { resolveServerRunAs, serverRootFor, type RunAs } from '../process/run-as.js';
import { basename, dirname, join } from 'node:path';
import { silentProviderLogger, type ConcreteKind, type ProviderLogger } from '../../spi.js';
import { resolveMariaDbBinaries, type MariaDbBinaries } from './binaries.js';
import { localMySQLInstanceConcreteKind } from './local-instance.js';
import { MariaDbServers } from './local-servers.js';
import { mysqlServerConcreteKind } from './shared-server.js';

/** The environment variable naming where dedicated MariaDB instances keep their data. */
export const mariadbInstancesDirEnv = 'CONDUCTOR_MARIADB_INSTANCES_DIR';
const postgresInstancesDirEnv = 'CONDUCTOR_POSTGRES_INSTANCES_DIR';

export interface MySqlKindsOptions {
  /** Conductor's data directory. */
  dataDir: string;
  /** Where dedicated PostgreSQL instances live, when not under the data directory. */
  postgresInstancesDir?: string;
  /** Where dedicated MariaDB instances live (or `CONDUCTOR_MARIADB_INSTANCES_DIR`). */
  instancesDir?: string;
  /** A directory with mariadbd and mariadb-install-db (or `CONDUCTOR_MARIADB_BIN`). */
  mariadbBin?: string;
  env?: NodeJS.ProcessEnv;
  logger?: ProviderLogger;
  startTimeoutMs?: number;
  /** Extra mariadbd options (tests keep servers small). */
  serverArgs?: string[];
}

/** MySqlKinds are the kinds and what runs behind them. */
export interface MySqlKinds {
  readonly kinds: ConcreteKind[];
  readonly binaries: MariaDbBinaries | undefined;
  readonly unavailable: string | undefined;
  readonly servers: MariaDbServers | undefined;
  stopAll(): Promise<void>;
}

/**
 * mysqlInstancesRoot is where dedicated MariaDB instances live: the directory given (option,
 * then environment); else beside the PostgreSQL instances when those live elsewhere (their
 * directory's name with "postgres" replaced by "mysql", e.g. /var/tmp/conductor-mysql-<hash>);
 * else `<dataDir>/providers/local/mysql`, or `/var/tmp/conductor-mysql-<hash>` when the servers
 * run as another user (Conductor is root), who cannot enter the private data dir.
 */
export function mysqlInstancesRoot(options: Pick<MySqlKindsOptions, 'dataDir' | 'instancesDir' | 'postgresInstancesDir' | 'env'>, runAs?: RunAs): string {
  const env = options.env ?? process.env;
  const explicit = options.instancesDir ?? env[mariadbInstancesDirEnv];
  if (explicit) return explicit;
  const postgres = options.postgresInstancesDir ?? env[postgresInstancesDirEnv];
  if (postgres) {
    const name = basename(postgres);
    const sibling = /postgres(ql)?/i.test(name) ? name.replace(/postgres(ql)?/i, 'mysql') : `${name}-mysql`;
    return join(dirname(postgres), sibling);
  }
  return serverRootFor('mysql', options.dataDir, runAs);
}

export async function createMySqlKinds(options: MySqlKindsOptions): Promise<MySqlKinds> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentProviderLogger;
  let binaries: MariaDbBinaries | undefined;
  let servers: MariaDbServers | undefined;
  let unavailable: string | undefined;
  try {
    binaries = await resolveMariaDbBinaries({ binDir: options.mariadbBin, env });
    const runAs = await resolveServerRunAs('mariadb', { env });
    servers = new MariaDbServers({
      root: mysqlInstancesRoot(options, runAs),
      runAs,
      binaries,
      logger,
      startTimeoutMs: options.startTimeoutMs,
      serverArgs: options.serverArgs,
    });
    logger.info(
      { server: binaries.server, version: binaries.version, source: binaries.source, root: servers.root, runAs: runAs?.name },
      'local MariaDB instances enabled',
    );
  } catch (err) {
    unavailable = (err as Error).message;
    logger.warn({ err: unavailable }, 'local MariaDB instances unavailable');
  }
  return {
    kinds: [mysqlServerConcreteKind, localMySQLInstanceConcreteKind(servers, binaries, unavailable)] as ConcreteKind[],
    binaries,
    unavailable,
    servers,
    async stopAll() {
      await servers?.stopAll();
    },
  };
}
