/**
 * createS3Kinds builds the local provider's S3Server kind around a supervisor when the s3rver
 * package is found (otherwise the kind stays registered and says why it cannot work).
 */
import { resolveServerRunAs, serverRootKeepingLegacy } from '../process/run-as.js';
import { silentProviderLogger, type ConcreteKind, type ProviderLogger } from '../../spi.js';
import { s3ServerConcreteKind } from './s3-server.js';
import { resolveS3rver, s3ServersDirEnv, S3Servers } from './s3-servers.js';

export interface S3KindsOptions {
  /** Conductor's data directory; servers live under `<dataDir>/providers/local/s3/`. */
  dataDir: string;
  /** Another directory for the servers' files (or `CONDUCTOR_S3_SERVERS_DIR`). */
  serversDir?: string;
  env?: NodeJS.ProcessEnv;
  logger?: ProviderLogger;
  /** How long a start may take; default 30 s. */
  startTimeoutMs?: number;
}

/** S3Kinds are the S3 kinds and what runs them. */
export interface S3Kinds {
  kinds: ConcreteKind[];
  unavailable: string | undefined;
  servers: S3Servers | undefined;
  stopAll(): Promise<void>;
}

export async function createS3Kinds(options: S3KindsOptions): Promise<S3Kinds> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentProviderLogger;
  let servers: S3Servers | undefined;
  let unavailable: string | undefined;
  try {
    const program = await resolveS3rver();
    const runAs = await resolveServerRunAs('s3', { env });
    servers = new S3Servers({
      root: options.serversDir ?? env[s3ServersDirEnv] ?? (await serverRootKeepingLegacy('s3', options.dataDir, runAs)),
      program,
      logger,
      startTimeoutMs: options.startTimeoutMs,
      runAs,
    });
    logger.info({ s3rver: program.script, version: program.version }, 'local S3 servers enabled');
  } catch (err) {
    unavailable = (err as Error).message;
    logger.warn({ err: unavailable }, 'local S3 servers unavailable');
  }
  return {
    kinds: [s3ServerConcreteKind(servers, unavailable)],
    unavailable,
    servers,
    stopAll: async () => {
      await servers?.stopAll();
    },
  };
}
