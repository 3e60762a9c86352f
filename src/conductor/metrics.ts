/**
 * The controllers' metrics on a server's registry: the series the work queues, the claim
 * controller and the provider calls report to (src/metrics), handed to the controllers through
 * their small interfaces (controllers/metrics.ts). Made once per server: controllers restarted
 * by leader election report to the same series.
 */
import type { ControllerMetrics } from '../controllers/metrics.js';
import { ClaimSeries, ProviderCallSeries, WorkQueueSeries, type MetricsRegistry } from '../metrics/index.js';

export function controllerMetrics(registry: MetricsRegistry): ControllerMetrics {
  return { queues: new WorkQueueSeries(registry), claims: new ClaimSeries(registry), providerCalls: new ProviderCallSeries(registry) };
}
