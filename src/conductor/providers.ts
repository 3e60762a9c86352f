/**
 * The providers built into this process: `local` (real server processes on this machine) and
 * `memory` (in-process, always on: it costs nothing). A new built-in provider is one line here.
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { createLocalProvider, createMemoryProvider, type ProviderModule } from '../providers/index.js';

export interface ProvidersOptions {
  dataDir: string;
  logger: Logger;
}

export async function startProviders(opts: ProvidersOptions): Promise<ProviderModule[]> {
  const log = opts.logger;
  const local = await createLocalProvider({
    dataDir: opts.dataDir,
    instancesDir: instancesDirFor(opts.dataDir),
    logger: log.child({ provider: 'local' }),
  });
  if (local.postgresUnavailable) log.warn({ reason: local.postgresUnavailable }, 'dedicated PostgreSQL instances are unavailable');
  // In-memory databases, so the control plane can be measured and demonstrated without external systems.
  const memory = createMemoryProvider({ logger: log.child({ provider: 'memory' }) });
  return [local, memory];
}

/** Stops every provider (their `stop`), logging what fails. */
export async function stopProviders(providers: readonly ProviderModule[], log: Logger): Promise<void> {
  for (const provider of providers) {
    try {
      await provider.stop?.();
    } catch (err) {
      log.error({ provider: provider.type, err }, 'cannot stop provider');
    }
  }
}

/**
 * Where dedicated PostgreSQL servers keep their data. PostgreSQL refuses to run as root, so
 * when Conductor is root the servers run as another user, who cannot enter Conductor's
 * private data dir: their data then lives in a directory of their own under /var/tmp, named
 * after the data dir so a restart finds it again. `CONDUCTOR_POSTGRES_INSTANCES_DIR` overrides.
 */
function instancesDirFor(dataDir: string): string | undefined {
  if (process.env.CONDUCTOR_POSTGRES_INSTANCES_DIR) return process.env.CONDUCTOR_POSTGRES_INSTANCES_DIR;
  if (process.getuid?.() !== 0) return undefined;
  // Only named here: the supervisor creates it with the first instance and removes it with the last.
  return join('/var/tmp', `conductor-postgres-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`);
}
