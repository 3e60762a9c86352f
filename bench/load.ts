/**
 * A closed-loop load generator: `concurrency` workers each take the next operation index
 * and await it before taking another, so exactly that many operations are in flight until
 * the last ones drain. Every operation's latency is kept.
 */
import { performance } from 'node:perf_hooks';

/** An Operation performs request i; it resolves with undefined on success or a description of what went wrong. */
export type Operation = (i: number) => Promise<string | undefined>;

/** A LoadResult is what one closed-loop run measured. */
export interface LoadResult {
  /** Operations attempted (fewer than asked when the run was stopped early). */
  attempted: number;
  ok: number;
  errors: number;
  /** Up to ten distinct error descriptions, with how often each occurred. */
  errorSamples: { message: string; count: number }[];
  elapsedMs: number;
  /** Successful operations per second over the whole run. */
  ratePerSec: number;
  /** Latency of each successful operation, in milliseconds. */
  latenciesMs: Float64Array;
  /** Why the run stopped before `total`, if it did. */
  stoppedEarly?: string;
}

export interface LoadOptions {
  total: number;
  concurrency: number;
  /** Stop issuing operations after this long. Default: no limit. */
  deadlineMs?: number;
  /** Stop when at least this many operations failed and they are more than half of those attempted. Default 500. */
  maxErrors?: number;
  /** Called every `progressEvery` completions. */
  onProgress?: (done: number) => void;
  progressEvery?: number;
}

/** runClosedLoop runs `op` for indexes 0..total-1 with `concurrency` in flight. */
export async function runClosedLoop(op: Operation, o: LoadOptions): Promise<LoadResult> {
  if (!(o.concurrency >= 1)) throw new RangeError(`concurrency must be at least 1, got ${o.concurrency}`);
  const latencies = new Float64Array(o.total);
  const errorCounts = new Map<string, number>();
  const maxErrors = o.maxErrors ?? 500;
  let next = 0;
  let ok = 0;
  let errors = 0;
  let stoppedEarly: string | undefined;
  const start = performance.now();
  const deadline = o.deadlineMs === undefined ? Infinity : start + o.deadlineMs;

  const fail = (message: string) => {
    errors++;
    if (errorCounts.has(message) || errorCounts.size < 10) errorCounts.set(message, (errorCounts.get(message) ?? 0) + 1);
    if (errors >= maxErrors && errors * 2 > next && stoppedEarly === undefined) stoppedEarly = `${errors} of ${next} operations failed`;
  };

  const worker = async () => {
    while (next < o.total && stoppedEarly === undefined) {
      if (performance.now() > deadline) {
        stoppedEarly ??= `deadline of ${o.deadlineMs} ms reached after ${next} operations`;
        break;
      }
      const i = next++;
      const t0 = performance.now();
      let outcome: string | undefined;
      try {
        outcome = await op(i);
      } catch (err) {
        outcome = err instanceof Error ? err.message : String(err);
      }
      if (outcome === undefined) latencies[ok++] = performance.now() - t0;
      else fail(outcome);
      const done = ok + errors;
      if (o.onProgress && o.progressEvery && done % o.progressEvery === 0) o.onProgress(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, Math.max(1, o.total)) }, worker));
  const elapsedMs = performance.now() - start;
  return {
    attempted: next,
    ok,
    errors,
    errorSamples: [...errorCounts].map(([message, count]) => ({ message, count })),
    elapsedMs,
    ratePerSec: elapsedMs > 0 ? (ok / elapsedMs) * 1000 : 0,
    latenciesMs: latencies.subarray(0, ok),
    stoppedEarly,
  };
}
