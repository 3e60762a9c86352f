/**
 * Conductor's providers and controllers, started together beside the API server. Loaded only
 * once the server is ready (a dynamic import in start.ts): the providers' modules (database
 * clients and more) are not needed to serve. Tests that run the controllers with a client of
 * their own call `startControllersAndProviders` directly.
 */
import type { Logger } from 'pino';
import type { Client } from '../client/types.js';
import type { ControllerMetrics } from '../controllers/metrics.js';
import type { ProcessCaches } from '../controllers/process-caches.js';
import { startConductorControllers, type RunningConductorControllers } from '../controllers/conductor.js';
import { startProviders, stopProviders } from './providers.js';
import type { ProviderModule } from '../providers/index.js';
import { catalog, catalogOf, type BuiltInProvider } from './catalog.js';

export interface ControllersAndProvidersOptions {
  dataDir: string;
  logger: Logger;
  /** How often managed resources are re-observed for drift (default 60 s). */
  pollIntervalMs?: number;
  /** Which providers to start; default every built-in one. */
  providers?: readonly BuiltInProvider[];
  /** Where the controllers report (metrics); default nowhere. */
  metrics?: ControllerMetrics;
  /** Where the controllers' informers are offered to the garbage collector of this process. */
  caches?: ProcessCaches;
  /** Told the started providers (the `log` subresource serves their kinds' logs). */
  onProvidersStarted?(providers: readonly ProviderModule[]): void;
}

export async function startControllersAndProviders(client: Client, opts: ControllersAndProvidersOptions): Promise<RunningConductorControllers> {
  const providers = await startProviders({ dataDir: opts.dataDir, logger: opts.logger, providers: opts.providers });
  opts.onProvidersStarted?.(providers);
  try {
    const kinds = opts.providers ? catalogOf(opts.providers) : catalog;
    // The managed reconcilers stop the providers when the controllers stop.
    return await startConductorControllers(client, {
      providers,
      kinds,
      logger: opts.logger,
      pollIntervalMs: opts.pollIntervalMs,
      metrics: opts.metrics,
      caches: opts.caches,
    });
  } catch (err) {
    await stopProviders(providers, opts.logger);
    throw err;
  }
}
