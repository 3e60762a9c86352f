/**
 * Metric families cheap enough for the hot paths. prom-client's own labelled metrics build a
 * label string on every observation; these keep one child per label set, made once and held
 * by the caller, whose `inc` / `observe` touch only numbers. Each family is a prom-client
 * metric object (`name`, `help`, `type`, `get()`), so one prom-client Registry renders them.
 */

/** The shape prom-client's Registry renders: one value per line, labels as an object. */
export interface RenderedValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** What prom-client's Registry asks of a metric. */
export interface RenderedMetric {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: RenderedValue[];
  aggregator: 'sum';
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  if (values.length !== names.length) throw new Error(`metric labels: want ${names.length} values (${names.join(', ')}), got ${values.length}`);
  const labels: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) labels[names[i]] = values[i];
  return labels;
}

/** The key of a label set in a family's map: values joined by a byte no label value holds. */
function keyOf(values: readonly string[]): string {
  return values.join('\u0001');
}

abstract class Family<C> {
  readonly aggregator = 'sum' as const;
  private readonly children = new Map<string, { labels: Record<string, string>; child: C }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** child returns the series of these label values (in `labelNames` order), made on first use. Keep it. */
  child(...values: string[]): C {
    const key = keyOf(values);
    let entry = this.children.get(key);
    if (!entry) {
      entry = { labels: labelsOf(this.labelNames, values), child: this.make() };
      this.children.set(key, entry);
    }
    return entry.child;
  }

  /** entries lists every series made so far. */
  protected entries(): IterableIterator<{ labels: Record<string, string>; child: C }> {
    return this.children.values();
  }

  protected abstract make(): C;
}

/** A CounterChild is one series of a counter: only goes up. */
export class CounterChild {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

/** A CounterFamily is a counter with labels (`*_total`). */
export class CounterFamily extends Family<CounterChild> {
  readonly type = 'counter' as const;
  protected make(): CounterChild {
    return new CounterChild();
  }
  get(): Promise<RenderedMetric> {
    const values: RenderedValue[] = [];
    for (const { labels, child } of this.entries()) values.push({ value: child.value, labels });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }
}

/** A GaugeChild is one series of a gauge kept up to date by its owner. */
export class GaugeChild {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
  set(v: number): void {
    this.value = v;
  }
}

/** A GaugeFamily is a gauge with labels, kept by its owner (`child().set/inc/dec`). */
export class GaugeFamily extends Family<GaugeChild> {
  readonly type = 'gauge' as const;
  protected make(): GaugeChild {
    return new GaugeChild();
  }
  get(): Promise<RenderedMetric> {
    const values: RenderedValue[] = [];
    for (const { labels, child } of this.entries()) values.push({ value: child.value, labels });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }
}

/** One sample of a gauge computed at scrape time. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/**
 * A CollectedGauge is computed when scraped, from what its owner already knows (a cache's
 * counts, a file's size): nothing is done for it between scrapes.
 */
export class CollectedGauge {
  readonly type = 'gauge' as const;
  readonly aggregator = 'sum' as const;
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly collect: () => Sample[] | Promise<Sample[]>,
  ) {}
  async get(): Promise<RenderedMetric> {
    const samples = await this.collect();
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values: samples.map((s) => ({ value: s.value, labels: s.labels })),
      aggregator: this.aggregator,
    };
  }
}

/** A HistogramChild is one series of a histogram: counts per bucket, a sum and a count. */
export class HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]) i++;
    if (i < b.length) this.counts[i]++;
    this.sum += v;
    this.count++;
  }
}

/** A HistogramFamily is a histogram with labels and fixed bucket bounds (in increasing order). */
export class HistogramFamily extends Family<HistogramChild> {
  readonly type = 'histogram' as const;
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
    for (let i = 1; i < buckets.length; i++) if (!(buckets[i] > buckets[i - 1])) throw new Error(`histogram ${name}: buckets must increase`);
  }
  protected make(): HistogramChild {
    return new HistogramChild(this.buckets);
  }
  get(): Promise<RenderedMetric> {
    const values: RenderedValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { labels, child } of this.entries()) {
      let cumulative = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += child.counts[i];
        values.push({ metricName: bucketName, value: cumulative, labels: { ...labels, le: this.buckets[i] } });
      }
      values.push({ metricName: bucketName, value: child.count, labels: { ...labels, le: '+Inf' } });
      values.push({ metricName: `${this.name}_sum`, value: child.sum, labels });
      values.push({ metricName: `${this.name}_count`, value: child.count, labels });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }
}
