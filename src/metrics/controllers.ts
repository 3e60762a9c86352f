/**
 * The controllers' series, named as controller-runtime and client-go's work queues name them
 * (workqueue_*, controller_runtime_reconcile_*), and Conductor's own: scheduling decisions,
 * claims by kind and phase, time to Bound and to Ready, provider calls. These objects fit the
 * small interfaces the controllers declare (client/work-queue.ts `WorkQueueMetrics`,
 * controllers' `ClaimMetrics` and `ProviderCallMetrics`); the composition root hands them over.
 */
import { LONG_DURATION_BUCKETS, SHORT_DURATION_BUCKETS, type MetricsRegistry } from './registry.js';
import type { CounterChild, CounterFamily, HistogramChild, HistogramFamily, Sample } from './families.js';

/** controller-runtime's reconcile results. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** One queue's series, bound once when the queue is made. */
export interface QueueSeries {
  added(): void;
  retried(): void;
  reconciled(result: ReconcileResult, seconds: number): void;
  /** The queue is shut down: its depth is no longer reported. */
  closed(): void;
}

/** WorkQueueMetricsImpl gives each work queue its series; depth is read from the queues at scrape time. */
export class WorkQueueSeries {
  private readonly adds: CounterFamily;
  private readonly retries: CounterFamily;
  private readonly reconciles: CounterFamily;
  private readonly errors: CounterFamily;
  private readonly times: HistogramFamily;
  private readonly depths = new Set<{ name: string; depth: () => number }>();

  constructor(registry: MetricsRegistry) {
    registry.collected('workqueue_depth', 'Current depth of the work queue (keys waiting to be handed to a worker), by queue name.', () => {
      const byName = new Map<string, number>();
      for (const q of this.depths) byName.set(q.name, (byName.get(q.name) ?? 0) + q.depth());
      return [...byName].map(([name, value]): Sample => ({ labels: { name }, value }));
    });
    this.adds = registry.counter('workqueue_adds_total', 'Total number of adds handled by the work queue (duplicates of a waiting key not counted).', ['name']);
    this.retries = registry.counter('workqueue_retries_total', 'Total number of rate-limited retries handled by the work queue.', ['name']);
    this.reconciles = registry.counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller and result.', [
      'controller',
      'result',
    ]);
    this.errors = registry.counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller.', ['controller']);
    this.times = registry.histogram(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller.',
      ['controller'],
      SHORT_DURATION_BUCKETS,
    );
  }

  /** forQueue returns the series of the queue `name` (a controller's name) whose depth `depth` reports. */
  forQueue(name: string, depth: () => number): QueueSeries {
    const entry = { name, depth };
    this.depths.add(entry);
    const adds = this.adds.child(name);
    const retries = this.retries.child(name);
    const errors = this.errors.child(name);
    const time = this.times.child(name);
    const results: Record<ReconcileResult, CounterChild> = {
      success: this.reconciles.child(name, 'success'),
      error: this.reconciles.child(name, 'error'),
      requeue: this.reconciles.child(name, 'requeue'),
      requeue_after: this.reconciles.child(name, 'requeue_after'),
    };
    return {
      added: () => adds.value++,
      retried: () => retries.value++,
      reconciled: (result, seconds) => {
        results[result].value++;
        if (result === 'error') errors.value++;
        time.observe(seconds);
      },
      closed: () => this.depths.delete(entry),
    };
  }
}

/** A scheduling decision's outcome: an existing resource, a class to provision from, nothing fits, or the scheduler failed. */
export type DecisionResult = 'resource' | 'class' | 'unschedulable' | 'error';

/** ClaimSeries: scheduling decisions, claims by kind and phase, time to Bound and to Ready. */
export class ClaimSeries {
  private readonly decisions: CounterFamily;
  private readonly decisionTimes: HistogramFamily;
  private readonly toBound: HistogramFamily;
  private readonly toReady: HistogramFamily;
  private readonly counters = new Map<DecisionResult, { count: CounterChild; time: HistogramChild }>();
  private readonly phaseSources = new Set<() => Iterable<{ kind: string; phase: string; count: number }>>();

  constructor(registry: MetricsRegistry) {
    this.decisions = registry.counter('conductor_scheduler_decisions_total', 'Scheduling decisions by result (resource, class, unschedulable, error).', [
      'result',
    ]);
    this.decisionTimes = registry.histogram(
      'conductor_scheduler_decision_duration_seconds',
      'Time to reach a scheduling decision, by result.',
      ['result'],
      SHORT_DURATION_BUCKETS,
    );
    this.toBound = registry.histogram(
      'conductor_claim_time_to_bound_seconds',
      'Time from a claim being created to the controller binding it, by claim kind.',
      ['kind'],
      LONG_DURATION_BUCKETS,
    );
    this.toReady = registry.histogram(
      'conductor_claim_time_to_ready_seconds',
      'Time from a claim being created to the controller first finding it Ready, by claim kind.',
      ['kind'],
      LONG_DURATION_BUCKETS,
    );
    registry.collected('conductor_claims', 'Claims by kind and phase, counted from the controllers’ caches at scrape time.', () => {
      const totals = new Map<string, Sample>();
      for (const source of this.phaseSources) {
        for (const { kind, phase, count } of source()) {
          const key = `${kind}\u0001${phase}`;
          const s = totals.get(key);
          if (s) s.value += count;
          else totals.set(key, { labels: { kind, phase }, value: count });
        }
      }
      return [...totals.values()];
    });
  }

  decided(result: DecisionResult, seconds: number): void {
    let c = this.counters.get(result);
    if (!c) {
      c = { count: this.decisions.child(result), time: this.decisionTimes.child(result) };
      this.counters.set(result, c);
    }
    c.count.value++;
    c.time.observe(seconds);
  }

  bound(kind: string, seconds: number): void {
    this.toBound.child(kind).observe(seconds);
  }

  ready(kind: string, seconds: number): void {
    this.toReady.child(kind).observe(seconds);
  }

  /** claimPhases adds a source of claim counts by kind and phase (read at scrape time); the returned function removes it. */
  claimPhases(source: () => Iterable<{ kind: string; phase: string; count: number }>): () => void {
    this.phaseSources.add(source);
    return () => this.phaseSources.delete(source);
  }
}

/** ProviderCallSeries: provider calls by provider, kind, operation and result, with their duration. */
export class ProviderCallSeries {
  private readonly calls: CounterFamily;
  private readonly times: HistogramFamily;

  constructor(registry: MetricsRegistry) {
    this.calls = registry.counter(
      'conductor_provider_calls_total',
      'Provider calls by provider type, concrete kind, operation and result (success, error, timeout, cancelled).',
      ['provider', 'kind', 'operation', 'result'],
    );
    this.times = registry.histogram(
      'conductor_provider_call_duration_seconds',
      'Provider call duration by provider type, concrete kind and operation.',
      ['provider', 'kind', 'operation'],
      LONG_DURATION_BUCKETS,
    );
  }

  called(provider: string, kind: string, operation: string, result: string, seconds: number): void {
    // Provider calls take milliseconds to minutes: a label lookup per call is noise beside them.
    this.calls.child(provider, kind, operation, result).value++;
    this.times.child(provider, kind, operation).observe(seconds);
  }
}
