/**
 * Starts Conductor's own controllers beside the API server: the providers built into this
 * process (local, and memory — always on, it costs nothing), one managed reconciler per
 * concrete kind, and the claim controller
 * (scheduling, binding, provisioning, connection secrets, release).
 */
import type { Logger } from 'pino';
import type { Client } from '../client/types.js';
import { SharedInformers } from '../client/shared-informers.js';
import { ensureDefaultSchedulerProfile } from '../apis/index.js';
import type { ProviderModule } from '../providers/spi.js';
import { builtInProviders } from '../conductor/catalog.js';
import { startManagedReconcilers } from './managed/index.js';
import { ClaimController } from './claims/claim-controller.js';
import { ProviderAccess } from './claims/provider-access.js';
import { QuotaController } from './quota/index.js';
import { startPoolController } from './pool/index.js';

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
  // Each built-in provider (local; memory, always on: it costs nothing) starts what it runs.
  const providers: ProviderModule[] = [];
  for (const p of builtInProviders) providers.push(await p.start({ dataDir: opts.dataDir, logger: log.child({ provider: p.name }) }));
  // One informer per resource for all these controllers: listed, watched, decoded and cached once.
  const informers = new SharedInformers(client, { logger: log.child({ component: 'informers' }) });
  const managed = startManagedReconcilers(client, providers, { logger: log.child({ controller: 'managed' }), pollIntervalMs: opts.pollIntervalMs, informers });
  const claims = new ClaimController(client, new ProviderAccess(client, providers), { logger: log.child({ controller: 'claims' }), informers });
  await claims.start();
  const quotas = new QuotaController(client, { logger: log.child({ controller: 'quota' }), informers });
  await quotas.start();
  const pools = await startPoolController(client, providers, { logger: log.child({ controller: 'pool' }), informers });
  return {
    async stop() {
      pools.stop();
      quotas.stop();
      claims.stop();
      await managed.stop();
      informers.stop();
      // Dedicated servers stop with Conductor; the next start finds them stopped (drift) and
      // starts them again.
      for (const p of providers) await p.stop?.();
    },
  };
}
