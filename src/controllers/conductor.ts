/**
 * Starts Conductor's own controllers over the providers it is given: one managed reconciler
 * per concrete kind, the claim controller (scheduling, binding, provisioning, connection
 * secrets, release), quotas and pools. Which providers exist and starting them is the
 * composition root's job (`src/conductor`); `stop` stops them too (with the managed reconcilers).
 */
import type { Logger } from 'pino';
import type { Client } from '../client/types.js';
import { SharedInformers } from '../client/shared-informers.js';
import { ensureDefaultSchedulerProfile, type Claim } from '../apis/index.js';
import type { ScheduleResult } from '../scheduler/index.js';
import type { ProviderModule } from '../providers/spi.js';
import { startManagedReconcilers } from './managed/index.js';
import { ClaimController } from './claims/claim-controller.js';
import { ProviderAccess } from './claims/provider-access.js';
import type { KindCatalog } from './claims/served-kinds.js';
import { QuotaController } from './quota/index.js';
import { startPoolController } from './pool/index.js';
import { ProviderController } from './provider/index.js';
import type { ControllerMetrics } from './metrics.js';
import type { ProcessCaches } from './process-caches.js';

export interface ConductorControllersOptions {
  /** The providers whose concrete kinds are reconciled, already started; `stop` stops them. */
  providers: readonly ProviderModule[];
  /** The catalog's claim kinds and kind definitions. */
  kinds: KindCatalog;
  logger: Logger;
  /** How often managed resources are re-observed for drift (default 60 s). */
  pollIntervalMs?: number;
  /** Where the controllers report (metrics); default nowhere. */
  metrics?: ControllerMetrics;
  /** Where the controllers' shared informers are offered to the core controllers of this process (the garbage collector), while they run. */
  caches?: ProcessCaches;
}

export interface RunningConductorControllers {
  /** Where a claim would go now, nothing written (server-side dry run of a claim). */
  readonly plan?: (claim: Claim) => Promise<ScheduleResult>;
  stop(): Promise<void>;
}

export async function startConductorControllers(client: Client, opts: ConductorControllersOptions): Promise<RunningConductorControllers> {
  const log = opts.logger;
  const providers = [...opts.providers];
  await ensureDefaultSchedulerProfile(client);
  // One informer per resource for all these controllers: listed, watched, decoded and cached once.
  const informers = new SharedInformers(client, { logger: log.child({ component: 'informers' }) });
  const detachCaches = opts.caches?.attach(informers);
  const metrics = opts.metrics;
  const managed = startManagedReconcilers(client, providers, {
    logger: log.child({ controller: 'managed' }),
    pollIntervalMs: opts.pollIntervalMs,
    informers,
    metrics,
  });
  const cancelProviderCalls = new AbortController();
  const access = new ProviderAccess(client, providers, { shutdown: cancelProviderCalls.signal, metrics: metrics?.providerCalls });
  const claims = new ClaimController(client, access, {
    logger: log.child({ controller: 'claims' }),
    kinds: opts.kinds,
    informers,
    metrics,
  });
  await claims.start();
  const quotas = new QuotaController(client, { logger: log.child({ controller: 'quota' }), informers, metrics });
  await quotas.start();
  const pools = await startPoolController(client, providers, { logger: log.child({ controller: 'pool' }), informers, metrics });
  const providerStatus = new ProviderController(client, providers, { logger: log.child({ controller: 'provider' }), informers, metrics }).start();
  return {
    plan: (claim) => claims.plan(claim),
    async stop() {
      cancelProviderCalls.abort();
      await providerStatus.stop();
      pools.stop();
      quotas.stop();
      claims.stop();
      await managed.stop();
      detachCaches?.();
      informers.stop();
    },
  };
}
