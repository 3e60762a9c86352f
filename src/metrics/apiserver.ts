/**
 * The API server's series, named as kube-apiserver names them: requests by verb, resource and
 * code with their latency, requests in flight, watches open and watch events sent, and the
 * store's commits. The hot paths get pre-bound children: a request finds its series through
 * a WeakMap on its resource type and two Map lookups on strings it already has, and a watch
 * event adds one to a number.
 */
import { REQUEST_DURATION_BUCKETS, SHORT_DURATION_BUCKETS, type MetricsRegistry } from './registry.js';
import type { CounterChild, CounterFamily, GaugeChild, GaugeFamily, HistogramChild, HistogramFamily, Sample } from './families.js';

/** What the metrics need of a served resource type. */
export interface ResourceLabels {
  group: string;
  version: string;
  resource: string;
  kind: string;
}

/** kube-apiserver's verbs in metrics: the HTTP verb, with LIST, WATCH and APPLY told apart. */
export type MetricVerb = 'GET' | 'LIST' | 'WATCH' | 'POST' | 'PUT' | 'PATCH' | 'APPLY' | 'DELETE' | 'DELETECOLLECTION' | 'HEAD' | 'OPTIONS' | 'other';

/** The scope label: a named object, a namespace's collection, or the cluster's. */
export type RequestScope = 'resource' | 'namespace' | 'cluster' | '';

/** A RequestSeries is the series of one (verb, resource, subresource, scope): its codes and its latency. */
export class RequestSeries {
  private readonly codes = new Map<number, CounterChild>();
  constructor(
    private readonly total: CounterFamily,
    private readonly labels: readonly string[],
    private readonly duration: HistogramChild | undefined,
  ) {}

  /** done counts one request answered `code` after `seconds` (a watch: when its stream started; no latency). */
  done(code: number, seconds: number): void {
    let c = this.codes.get(code);
    if (!c) {
      c = this.total.child(...this.labels, String(code));
      this.codes.set(code, c);
    }
    c.value++;
    this.duration?.observe(seconds);
  }
}

/** The series of one resource's watches: how many are open, how many events they sent. */
export interface WatchSeries {
  open: GaugeChild;
  events: CounterChild;
}

const REQUEST_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
const SCOPES: readonly RequestScope[] = ['resource', 'namespace', 'cluster', ''];

/** ApiServerMetrics holds the API server's request, watch and store series. */
export class ApiServerMetrics {
  private readonly total: CounterFamily;
  private readonly duration: HistogramFamily;
  private readonly inflight: GaugeFamily;
  private readonly longrunning: GaugeFamily;
  private readonly watchEvents: CounterFamily;
  private readonly commitDuration: HistogramFamily;
  private readonly batchSize: HistogramFamily;
  /** In-flight requests by kind, as kube-apiserver's max-in-flight filter counts them. */
  readonly readOnly: GaugeChild;
  readonly mutating: GaugeChild;
  private readonly byType = new WeakMap<object, Map<string, RequestSeries[]>>();
  private readonly watchesByType = new WeakMap<object, WatchSeries>();
  private readonly byMethod = new Map<string, RequestSeries>();
  private readonly commitSeconds: HistogramChild;
  private readonly commitBatch: HistogramChild;
  private readonly getsFromCache: CounterChild;
  private readonly getsFromEtcd: CounterChild;

  constructor(private readonly registry: MetricsRegistry) {
    this.total = registry.counter(
      'apiserver_request_total',
      'Counter of apiserver requests broken out for each verb, group, version, resource, subresource, scope, component and HTTP response code.',
      [...REQUEST_LABELS, 'code'],
    );
    this.duration = registry.histogram(
      'apiserver_request_duration_seconds',
      'Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component (watches excluded).',
      REQUEST_LABELS,
      REQUEST_DURATION_BUCKETS,
    );
    this.inflight = registry.gauge(
      'apiserver_current_inflight_requests',
      'Requests being answered now, by kind (readOnly: GET and HEAD; mutating: the rest); watches count only while they start.',
      ['request_kind'],
    );
    this.readOnly = this.inflight.child('readOnly');
    this.mutating = this.inflight.child('mutating');
    this.longrunning = registry.gauge(
      'apiserver_longrunning_requests',
      'Open long-running requests (watches over HTTP) by verb, group, version, resource, scope and component.',
      ['verb', 'group', 'version', 'resource', 'scope', 'component'],
    );
    this.watchEvents = registry.counter(
      'apiserver_watch_events_total',
      'Events sent to watch clients over HTTP (bookmarks included), by group, version and kind.',
      ['group', 'version', 'kind'],
    );
    this.commitDuration = registry.histogram(
      'conductor_store_commit_duration_seconds',
      'Time from a commit starting to its writes being durable: on SQLite a group commit until its WAL sync, on etcd one write transaction until etcd acknowledged it.',
      [],
      SHORT_DURATION_BUCKETS,
    );
    this.batchSize = registry.histogram(
      'conductor_store_commit_batch_size',
      'Writes per commit (a SQLite group commit; always 1 on etcd, one transaction per write).',
      [],
      [1, 2, 4, 8, 16, 32, 64, 128, 256],
    );
    const gets = registry.counter(
      'conductor_store_gets_total',
      "Gets of one key from the etcd store, by where they were answered: source=cache (the watch cache, once it had seen etcd's current revision) or etcd (a Range: the cache was listing or lagging). etcd only.",
      ['source'],
    );
    this.getsFromCache = gets.child('cache');
    this.getsFromEtcd = gets.child('etcd');
    this.commitSeconds = this.commitDuration.child();
    this.commitBatch = this.batchSize.child();
  }

  /**
   * series returns the request series of `verb` on `rt` (its subresource, '' for none) at
   * `scope`, made on first use and then found without building a string.
   */
  series(rt: ResourceLabels, verb: MetricVerb, subresource: string, scope: RequestScope): RequestSeries {
    let byVerb = this.byType.get(rt);
    if (!byVerb) {
      byVerb = new Map();
      this.byType.set(rt, byVerb);
    }
    const key = subresource ? `${verb}/${subresource}` : verb;
    let scopes = byVerb.get(key);
    if (!scopes) {
      scopes = [];
      byVerb.set(key, scopes);
    }
    const i = SCOPES.indexOf(scope);
    let s = scopes[i];
    if (!s) {
      const labels = [verb, rt.group, rt.version, rt.resource, subresource, scope, 'apiserver'];
      s = new RequestSeries(this.total, labels, verb === 'WATCH' ? undefined : this.duration.child(...labels));
      scopes[i] = s;
    }
    return s;
  }

  /** nonResource returns the series of a request that names no resource (discovery, /metrics, errors before routing), by HTTP method. */
  nonResource(method: string): RequestSeries {
    let s = this.byMethod.get(method);
    if (!s) {
      const verb = NON_RESOURCE_VERBS.has(method) ? method : 'other';
      s =
        this.byMethod.get(verb) ??
        new RequestSeries(this.total, [verb, '', '', '', '', '', 'apiserver'], this.duration.child(verb, '', '', '', '', '', 'apiserver'));
      this.byMethod.set(verb, s);
      this.byMethod.set(method, s);
    }
    return s;
  }

  /** watches returns the series of HTTP watches on `rt`. */
  watches(rt: ResourceLabels): WatchSeries {
    let w = this.watchesByType.get(rt);
    if (!w) {
      w = {
        open: this.longrunning.child('WATCH', rt.group, rt.version, rt.resource, '', 'apiserver'),
        events: this.watchEvents.child(rt.group, rt.version, rt.kind),
      };
      this.watchesByType.set(rt, w);
    }
    return w;
  }

  /** The store's observer: one call per group commit once it is durable. */
  readonly storeObserver = {
    committed: (writes: number, seconds: number): void => {
      this.commitSeconds.observe(seconds);
      this.commitBatch.observe(writes);
    },
  };

  /** The etcd store's read observer: one call per get, saying where it was answered. */
  readonly storeReadObserver = {
    get: (source: 'cache' | 'etcd'): void => {
      (source === 'cache' ? this.getsFromCache : this.getsFromEtcd).value++;
    },
  };

  /**
   * storeGauges registers what is computed at scrape time from the store: WAL size (SQLite),
   * database sizes per etcd member (etcd), watchers, objects per resource.
   */
  storeGauges(store: {
    walBytes?: () => number;
    dbSizes?: () => Promise<{ endpoint: string; bytes: number; inUseBytes: number }[]>;
    watchers: () => number;
    objectCounts: () => Promise<Sample[]>;
  }): void {
    const { walBytes, dbSizes } = store;
    if (dbSizes) {
      this.registry.collected(
        'conductor_store_db_size_bytes',
        "Size of each etcd member's database file in bytes (etcd's Status dbSize), read when scraped (at most every 10 s); a member that does not answer is left out.",
        async () => (await dbSizes()).map((m) => ({ labels: { endpoint: m.endpoint }, value: m.bytes })),
      );
      this.registry.collected(
        'conductor_store_db_size_in_use_bytes',
        "Bytes of each etcd member's database file holding data (etcd's Status dbSizeInUse; the rest is free pages a defragmentation returns).",
        async () => (await dbSizes()).map((m) => ({ labels: { endpoint: m.endpoint }, value: m.inUseBytes })),
      );
    }
    if (walBytes)
      this.registry.collected('conductor_store_wal_bytes', "Size of the SQLite store's write-ahead log file in bytes.", () => [
        { labels: {}, value: walBytes() },
      ]);
    this.registry.collected('conductor_store_watchers', 'Watchers open on the store (HTTP watches, loopback clients and the server’s own caches).', () => [
      { labels: {}, value: store.watchers() },
    ]);
    this.registry.collected(
      'apiserver_storage_objects',
      'Number of stored objects per resource, counted at scrape time (at most every 10 s).',
      store.objectCounts,
    );
  }
}

const NON_RESOURCE_VERBS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
