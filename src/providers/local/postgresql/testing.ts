/**
 * Test support: a throwaway PostgreSQL server on 127.0.0.1 in a temporary directory, run
 * with the same supervisor dedicated instances use. Not used outside tests.
 */
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectBinaries, resolveBinaries, systemBinariesDirs, type PostgresBinaries } from './binaries.js';
import { LocalServers } from './local-servers.js';
import { resolveRunAs } from '../process/run-as.js';
import { startThrowaway } from '../process/throwaway.js';

/** A ThrowawayServer is a running PostgreSQL server and its superuser. */
export interface ThrowawayServer {
  host: string;
  port: number;
  username: string;
  password: string;
  binaries: PostgresBinaries;
  pid: number;
  /** The server's log file. */
  logFile: string;
  stop(): Promise<void>;
}

/**
 * tempDataDir makes a temporary directory; when this process is root it is made searchable
 * (not readable) by others, as the server runs as another user and must reach inside.
 */
export async function tempDataDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (process.geteuid?.() === 0) await chmod(dir, 0o711);
  return dir;
}

/** systemOrAnyBinaries prefers a system installation, then whatever resolveBinaries finds. */
export async function systemOrAnyBinaries(): Promise<PostgresBinaries> {
  for (const dir of await systemBinariesDirs()) {
    try {
      return await inspectBinaries(dir, 'system');
    } catch {
      // not there; next
    }
  }
  return resolveBinaries();
}

/** startThrowawayServer initdbs and starts a server; `stop` stops it and removes its files. */
export async function startThrowawayServer(binaries?: PostgresBinaries): Promise<ThrowawayServer> {
  const root = await tempDataDir('conductor-pg-');
  const chosen = binaries ?? (await systemOrAnyBinaries());
  const servers = new LocalServers({ root, binaries: chosen, runAs: await resolveRunAs(), fastInitdb: true });
  const dir = servers.dirFor('test', 'server');
  return startThrowaway(root, servers, dir, async () => {
    const { pid, port, state } = await servers.ensureRunning(dir, { namespace: 'test', name: 'server' });
    return { host: '127.0.0.1', port, username: state.superuser, password: state.superuserPassword, binaries: chosen, pid, logFile: join(dir, 'postgres.log') };
  });
}
