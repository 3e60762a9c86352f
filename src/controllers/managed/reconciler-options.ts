/**
 * The options of a ManagedReconciler and their defaults. Every option has a default that
 * works in production; tests shorten the intervals.
 */
import type { ControllerMetrics } from '../metrics.js';
import type { Logger } from '../../client/logger.js';
import { silentLogger } from '../../client/logger.js';
import type { RateLimiter } from '../../client/rate-limiter.js';
import type { SharedInformers } from '../../client/shared-informers.js';

/** ManagedReconcilerOptions tune a ManagedReconciler; every field is optional. */
export interface ManagedReconcilerOptions {
  /** How often a ready resource is observed again to detect drift; default 60 000 ms. The annotation `conductor.io/poll-interval` overrides it per resource. */
  pollIntervalMs?: number;
  /** How soon a resource being deleted is observed again while the provider still reports it; default 1 000 ms (at most the poll interval). */
  deletionCheckMs?: number;
  /** How soon a resource whose deletion waits for claims to release it looks at the claims again; default 5 000 ms (at most the poll interval). */
  inUseCheckMs?: number;
  /** How many resources are reconciled at once (one key is never reconciled twice at once); default 4. */
  workers?: number;
  /** Watch only this namespace; default all. */
  namespace?: string;
  /** How long one provider call (observe, create, update, delete, connect) may take; default 300 000 ms. */
  callTimeoutMs?: number;
  /** The per-resource exponential backoff after failures: first delay (default 1 000 ms) and cap (default 300 000 ms). */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Replaces the backoff built from `backoff` (tests). */
  rateLimiter?: RateLimiter;
  /** The field manager of the reconciler's writes; default `conductor-managed-reconciler`. */
  fieldManager?: string;
  /** The Events' reporting component; default `conductor-managed-reconciler`. */
  eventComponent?: string;
  logger?: Logger;
  /** The clock of annotations, conditions and events; default the system's. */
  now?: () => Date;
  /** Informers shared with the process's other controllers; default a private informer. */
  informers?: SharedInformers;
  /** Where the work queue and provider calls report (metrics); default nowhere. */
  metrics?: ControllerMetrics;
  /** The type of the provider whose kind this is (the metrics' `provider` label); default `unknown`. */
  provider?: string;
}

/** ResolvedManagedReconcilerOptions are the options with every default filled in. */
export interface ResolvedManagedReconcilerOptions {
  pollIntervalMs: number;
  deletionCheckMs: number;
  inUseCheckMs: number;
  workers: number;
  namespace: string | undefined;
  callTimeoutMs: number;
  backoff: { baseDelayMs: number; maxDelayMs: number };
  rateLimiter: RateLimiter | undefined;
  fieldManager: string;
  eventComponent: string;
  logger: Logger;
  now: () => Date;
  informers: SharedInformers | undefined;
  metrics: ControllerMetrics | undefined;
  provider: string;
}

/** The defaults of ManagedReconcilerOptions. */
export const managedReconcilerDefaults = {
  pollIntervalMs: 60_000,
  deletionCheckMs: 1_000,
  inUseCheckMs: 5_000,
  workers: 4,
  callTimeoutMs: 300_000,
  backoff: { baseDelayMs: 1_000, maxDelayMs: 300_000 },
  fieldManager: 'conductor-managed-reconciler',
  eventComponent: 'conductor-managed-reconciler',
} as const;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`ManagedReconciler option ${name} is ${value}: want a positive number of milliseconds`);
  return value;
}

/** resolveOptions applies `options` over the defaults; it throws on a non-positive interval. */
export function resolveOptions(options: ManagedReconcilerOptions = {}): ResolvedManagedReconcilerOptions {
  const d = managedReconcilerDefaults;
  const pollIntervalMs = positive('pollIntervalMs', options.pollIntervalMs, d.pollIntervalMs);
  return {
    pollIntervalMs,
    deletionCheckMs: positive('deletionCheckMs', options.deletionCheckMs, Math.min(d.deletionCheckMs, pollIntervalMs)),
    inUseCheckMs: positive('inUseCheckMs', options.inUseCheckMs, Math.min(d.inUseCheckMs, pollIntervalMs)),
    workers: Math.max(1, Math.floor(positive('workers', options.workers, d.workers))),
    namespace: options.namespace,
    callTimeoutMs: positive('callTimeoutMs', options.callTimeoutMs, d.callTimeoutMs),
    backoff: {
      baseDelayMs: positive('backoff.baseDelayMs', options.backoff?.baseDelayMs, d.backoff.baseDelayMs),
      maxDelayMs: positive('backoff.maxDelayMs', options.backoff?.maxDelayMs, d.backoff.maxDelayMs),
    },
    rateLimiter: options.rateLimiter,
    fieldManager: options.fieldManager ?? d.fieldManager,
    eventComponent: options.eventComponent ?? d.eventComponent,
    logger: options.logger ?? silentLogger,
    now: options.now ?? (() => new Date()),
    informers: options.informers,
    metrics: options.metrics,
    provider: options.provider ?? 'unknown',
  };
}
