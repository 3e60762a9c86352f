/**
 * One metrics registry per server: a prom-client Registry of its own (never the process-wide
 * default, so several servers in one process — tests — keep their series apart) holding the
 * process metrics and every family the server's parts register.
 */
import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import { CollectedGauge, CounterFamily, GaugeFamily, HistogramFamily, type Sample } from './families.js';

/** Latency buckets in seconds, as kube-apiserver's request duration (5 ms … 60 s). */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** Short operations (a store commit, a reconcile, a scheduling decision): 0.5 ms … 60 s. */
export const SHORT_DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Long waits (a claim until Bound or Ready, a provider call): 10 ms … 30 min. */
export const LONG_DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/** A MetricsRegistry makes metric families and renders them in Prometheus' text format. */
export class MetricsRegistry {
  private readonly registry = new Registry();

  constructor(options: { processMetrics?: boolean } = {}) {
    // process_cpu_seconds_total, process_resident_memory_bytes, nodejs_eventloop_lag_seconds, …
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): CounterFamily {
    return this.add(new CounterFamily(name, help, labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): GaugeFamily {
    return this.add(new GaugeFamily(name, help, labelNames));
  }

  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): HistogramFamily {
    return this.add(new HistogramFamily(name, help, labelNames, buckets));
  }

  /** collected registers a gauge computed at each scrape by `collect`. */
  collected(name: string, help: string, collect: () => Sample[] | Promise<Sample[]>): CollectedGauge {
    return this.add(new CollectedGauge(name, help, collect));
  }

  /** The content type of `text()`: Prometheus' text exposition format 0.0.4. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** text renders every metric in Prometheus' text exposition format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  private add<M extends { name: string }>(metric: M): M {
    // Our families render the shape prom-client's Registry reads from its own metrics (get()).
    this.registry.registerMetric(metric as unknown as Metric);
    return metric;
  }
}
