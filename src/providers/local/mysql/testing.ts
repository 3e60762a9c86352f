/**
 * Test support: a throwaway MariaDB server on 127.0.0.1 in a temporary directory, run with
 * the same supervisor dedicated instances use. Not used outside tests.
 */
import { resolveServerRunAs } from '../process/run-as.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveMariaDbBinaries, type MariaDbBinaries } from './binaries.js';
import { MariaDbServers } from './local-servers.js';
import { startThrowaway } from '../process/throwaway.js';

/** Server options that keep a test server small. */
export const smallServerArgs = ['--innodb-buffer-pool-size=16M', '--innodb-log-file-size=8M', '--max-connections=60', '--performance-schema=OFF'];

/** A ThrowawayMariaDb is a running MariaDB server and an account with every privilege. */
export interface ThrowawayMariaDb {
  host: string;
  port: number;
  username: string;
  password: string;
  binaries: MariaDbBinaries;
  pid: number;
  /** The server's log, as the `log` subresource serves it. */
  logFile: string;
  stop(): Promise<void>;
}

/** startThrowawayMariaDb installs and starts a server; `stop` stops it and removes its files. */
export async function startThrowawayMariaDb(binaries?: MariaDbBinaries): Promise<ThrowawayMariaDb> {
  const root = await mkdtemp(join(tmpdir(), 'conductor-mariadb-'));
  const chosen = binaries ?? (await resolveMariaDbBinaries());
  const servers = new MariaDbServers({ root, binaries: chosen, serverArgs: smallServerArgs, runAs: await resolveServerRunAs('mariadb') });
  const dir = servers.dirFor('test', 'server');
  return startThrowaway(root, servers, dir, async () => {
    const { pid, port, state } = await servers.ensureRunning(dir, { namespace: 'test', name: 'server' });
    return { host: '127.0.0.1', port, username: state.adminUser, password: state.adminPassword, binaries: chosen, pid, logFile: servers.logFile(dir) };
  });
}
