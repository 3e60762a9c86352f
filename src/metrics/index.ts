/** The public surface of metrics/: one registry per server and the series its parts report. */
export { MetricsRegistry, REQUEST_DURATION_BUCKETS, SHORT_DURATION_BUCKETS, LONG_DURATION_BUCKETS } from './registry.js';
export { CounterFamily, GaugeFamily, HistogramFamily, CollectedGauge, type Sample } from './families.js';
export { ApiServerMetrics, RequestSeries, type MetricVerb, type RequestScope, type ResourceLabels, type WatchSeries } from './apiserver.js';
export { WorkQueueSeries, ClaimSeries, ProviderCallSeries, type QueueSeries, type ReconcileResult, type DecisionResult } from './controllers.js';
