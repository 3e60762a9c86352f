/**
 * Summary statistics for benchmark samples: percentiles by the nearest-rank method, medians
 * and min/max, over plain arrays or typed arrays of milliseconds.
 */

/** A Summary describes a sample of numbers (usually latencies in milliseconds). */
export interface Summary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * percentile returns the nearest-rank p-th percentile (0 < p ≤ 100) of an ascending sorted
 * sample: the smallest value such that at least p% of the sample is less than or equal to it.
 * It throws on an empty sample or a p outside (0, 100].
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new RangeError('cannot take a percentile of an empty sample: expected at least one value');
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** median returns the middle value of a sample (the mean of the two middle values when even). */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) throw new RangeError('cannot take the median of an empty sample: expected at least one value');
  const s = Float64Array.from(values).sort();
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** summarize sorts a copy of the sample and returns its Summary; an empty sample gives zeros. */
export function summarize(values: ArrayLike<number>): Summary {
  if (values.length === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  const s = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of s) sum += v;
  return {
    count: s.length,
    min: s[0],
    mean: sum / s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1],
  };
}

/** round keeps `digits` decimals, for readable JSON. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** roundSummary rounds every field of a Summary to `digits` decimals. */
export function roundSummary(s: Summary, digits = 3): Summary {
  return {
    count: s.count,
    min: round(s.min, digits),
    mean: round(s.mean, digits),
    p50: round(s.p50, digits),
    p90: round(s.p90, digits),
    p99: round(s.p99, digits),
    max: round(s.max, digits),
  };
}
