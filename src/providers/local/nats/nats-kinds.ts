/**
 * createNatsKinds builds the local provider's NATS kind: NATSServer around a supervisor when
 * nats-server is found (otherwise the kind stays registered and says why it cannot work).
 */
import { resolveServerRunAs, serverRootKeepingLegacy } from '../process/run-as.js';
import { silentProviderLogger, type ConcreteKind, type ProviderLogger } from '../../spi.js';
import { resolveNatsBinary, type NatsBinary } from './binaries.js';
import { natsServerConcreteKind } from './nats-server.js';
import { NatsServers } from './nats-servers.js';

/** The environment variable naming where NATSServer processes keep their files. */
export const natsServersDirEnv = 'CONDUCTOR_NATS_SERVERS_DIR';

export interface NatsKindsOptions {
  /** Conductor's data directory; servers live under `<dataDir>/providers/local/nats/`. */
  dataDir: string;
  /** The nats-server program (or `CONDUCTOR_NATS_BIN`); default: found on PATH or in /usr/sbin, /usr/bin, ... */
  natsBin?: string;
  /** Another directory for the servers' files (or `CONDUCTOR_NATS_SERVERS_DIR`). */
  serversDir?: string;
  env?: NodeJS.ProcessEnv;
  logger?: ProviderLogger;
}

/** NatsKinds are the NATS kinds and what runs them. */
export interface NatsKinds {
  kinds: ConcreteKind[];
  binary: NatsBinary | undefined;
  unavailable: string | undefined;
  servers: NatsServers | undefined;
  stopAll(): Promise<void>;
}

export async function createNatsKinds(options: NatsKindsOptions): Promise<NatsKinds> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentProviderLogger;
  let binary: NatsBinary | undefined;
  let servers: NatsServers | undefined;
  let unavailable: string | undefined;
  try {
    binary = await resolveNatsBinary({ path: options.natsBin, env });
    const runAs = await resolveServerRunAs('nats', { env });
    servers = new NatsServers({
      root: options.serversDir ?? env[natsServersDirEnv] ?? (await serverRootKeepingLegacy('nats', options.dataDir, runAs)),
      binary,
      logger,
      runAs,
    });
    logger.info({ binary: binary.path, version: binary.version, root: servers.root, runAs: runAs?.name }, 'local NATS servers enabled');
  } catch (err) {
    unavailable = (err as Error).message;
    logger.warn({ err: unavailable }, 'local NATS servers unavailable');
  }
  return {
    kinds: [natsServerConcreteKind(servers, binary, unavailable)],
    binary,
    unavailable,
    servers,
    stopAll: async () => {
      await servers?.stopAll();
    },
  };
}
