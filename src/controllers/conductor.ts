/**
 * Starts Conductor's own controllers beside the API server: the providers built into this
 * process (local, and memory — always on, it costs nothing), one managed reconciler per
 * concrete kind, and the claim controller
 * (scheduling, binding, provisioning, connection secrets, release).
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Client } from '../client/types.js';
import { SharedInformers } from '../client/shared-informers.js';
import { ensureDefaultSchedulerProfile } from '../apis/index.js';
import type { ProviderModule } from '../providers/spi.js';
import { createLocalProvider, createMemoryProvider } from '../providers/index.js';
import { startManagedReconcilers } from './managed/index.js';
import { ClaimController } from './claims/claim-controller.js';
import { ProviderAccess } from './claims/provider-access.js';
import { QuotaController } from './quota/index.js';
import { startPoolController } from './pool/index.js';
import { ProviderController } from './provider/index.js';

export interface ConductorControllersOptions {
  dataDir: string;
  logger: Logger;
  /** How often managed resources are re-observed for drift (default 60 s). */
  pollIntervalMs?: number;
}

export interface RunningConductorControllers {
  stop(): Promise<void>;
}

export async function startConductorControllers(client: Client, opts: ConductorControllersOptions): Promise<RunningConductorControllers> {
  const log = opts.logger;
  await ensureDefaultSchedulerProfile(client);
  const local = await createLocalProvider({
    dataDir: opts.dataDir,
    instancesDir: await instancesDirFor(opts.dataDir),
    logger: log.child({ provider: 'local' }),
  });
  if (local.postgresUnavailable) log.warn({ reason: local.postgresUnavailable }, 'dedicated PostgreSQL instances are unavailable');
  // In-memory databases, so the control plane can be measured and demonstrated without external systems.
  const memory = createMemoryProvider({ logger: log.child({ provider: 'memory' }) });
  const providers: ProviderModule[] = [local, memory];
  // One informer per resource for all these controllers: listed, watched, decoded and cached once.
  const informers = new SharedInformers(client, { logger: log.child({ component: 'informers' }) });
  const managed = startManagedReconcilers(client, providers, { logger: log.child({ controller: 'managed' }), pollIntervalMs: opts.pollIntervalMs, informers });
  const cancelProviderCalls = new AbortController();
  const claims = new ClaimController(client, new ProviderAccess(client, providers, { shutdown: cancelProviderCalls.signal }), { logger: log.child({ controller: 'claims' }), informers });
  await claims.start();
  const quotas = new QuotaController(client, { logger: log.child({ controller: 'quota' }), informers });
  await quotas.start();
  const pools = await startPoolController(client, providers, { logger: log.child({ controller: 'pool' }), informers });
  const providerStatus = new ProviderController(client, providers, { logger: log.child({ controller: 'provider' }), informers }).start();
  return {
    async stop() {
      cancelProviderCalls.abort();
      await providerStatus.stop();
      pools.stop();
      quotas.stop();
      claims.stop();
      await managed.stop();
      informers.stop();
      // Dedicated servers stop with Conductor; the next start finds them stopped (drift) and
      // starts them again.
      await local.stopAll();
    },
  };
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
