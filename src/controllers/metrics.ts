/**
 * What the controllers report for metrics, as small interfaces the composition root fills in
 * (src/metrics implements them; controllers never import it). Every field is optional: a
 * controller without metrics reports nothing.
 */
import type { WorkQueueMetrics } from '../client/work-queue.js';

/** A scheduling decision's outcome: an existing resource, a class to provision from, nothing fits, or the scheduler failed. */
export type DecisionResult = 'resource' | 'class' | 'unschedulable' | 'error';

/** ClaimMetrics: scheduling decisions, time to Bound and to Ready, claims by kind and phase. */
export interface ClaimMetrics {
  decided(result: DecisionResult, seconds: number): void;
  bound(kind: string, seconds: number): void;
  ready(kind: string, seconds: number): void;
  /** Adds a source of claim counts by kind and phase, read when scraped; the returned function removes it. */
  claimPhases(source: () => Iterable<{ kind: string; phase: string; count: number }>): () => void;
}

/** ProviderCallMetrics: one call per provider call once it settled. */
export interface ProviderCallMetrics {
  /** `result`: success, error, timeout or cancelled. */
  called(provider: string, kind: string, operation: string, result: string, seconds: number): void;
}

/** ControllerMetrics bundles what the controllers report to. */
export interface ControllerMetrics {
  queues?: WorkQueueMetrics;
  claims?: ClaimMetrics;
  providerCalls?: ProviderCallMetrics;
}

/** secondsSince is the time since an RFC 3339 timestamp in seconds (undefined when absent or unreadable). */
export function secondsSince(timestamp: string | undefined, now = Date.now()): number | undefined {
  if (!timestamp) return undefined;
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? undefined : Math.max(0, (now - t) / 1000);
}

/** claimPhaseCounts counts the cached claims of each kind by phase (`Pending` when none is recorded yet). */
export function claimPhaseCounts(
  kinds: Iterable<{ readonly def: { readonly kind: string }; readonly informer: { readonly store: { list(): ReadonlyArray<{ status?: unknown }> } } }>,
): Array<{ kind: string; phase: string; count: number }> {
  const out: Array<{ kind: string; phase: string; count: number }> = [];
  for (const { def, informer } of kinds) {
    const byPhase = new Map<string, number>();
    for (const claim of informer.store.list()) {
      const phase = (claim.status as { phase?: unknown } | undefined)?.phase;
      const name = typeof phase === 'string' && phase ? phase : 'Pending';
      byPhase.set(name, (byPhase.get(name) ?? 0) + 1);
    }
    for (const [phase, count] of byPhase) out.push({ kind: def.kind, phase, count });
  }
  return out;
}
