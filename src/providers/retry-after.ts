/**
 * When a cloud asks to be called again. A throttling answer may say how long to wait: the HTTP
 * `Retry-After` header (seconds, or a date), AWS's `x-amz-retry-after` (milliseconds) or a
 * `google.rpc.RetryInfo` detail (`retryDelay`). A provider error that carries
 * `retryAfterSeconds` (a RetryAfterHint) is retried by the managed reconciler after that time —
 * bounded to MAX_RETRY_AFTER_SECONDS — instead of after its own backoff; its message says so
 * with `retryingIn`.
 */

/** The longest wait a cloud's Retry-After is honoured for (5 minutes, the reconciler's own backoff cap); a longer one is cut to this. */
export const MAX_RETRY_AFTER_SECONDS = 300;

/** A RetryAfterHint is an error that says when to try again. */
export interface RetryAfterHint {
  /** Whole seconds, 1 to MAX_RETRY_AFTER_SECONDS (boundedRetryAfter). */
  readonly retryAfterSeconds?: number;
}

/** boundedRetryAfter is a wait in seconds rounded up to whole seconds, at least 1 and at most MAX_RETRY_AFTER_SECONDS; undefined for no usable number. */
export function boundedRetryAfter(seconds: number | undefined): number | undefined {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return undefined;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(seconds)));
}

/**
 * retryAfterHeaderSeconds reads a Retry-After header value: delta-seconds ("30") or an
 * HTTP-date (a date in the past is 0 s). Anything else is undefined. Not yet bounded.
 */
export function retryAfterHeaderSeconds(value: unknown, now: number = Date.now()): number | undefined {
  if (Array.isArray(value)) value = value[0];
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  if (!/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** headerOf reads a header from a plain headers object (any case) or a Headers-like `get`. */
export function headerOf(headers: unknown, name: string): unknown {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const got: unknown = (get as (n: string) => unknown).call(headers, name);
    if (got !== undefined && got !== null) return got;
  }
  const wanted = name.toLowerCase();
  for (const [key, v] of Object.entries(headers)) if (key.toLowerCase() === wanted) return v;
  return undefined;
}

/**
 * retryDelaySeconds reads a google.rpc.RetryInfo's `retryDelay`: the JSON form ("30s", "1.5s")
 * or the decoded message ({seconds, nanos}, seconds possibly a string or a Long).
 */
export function retryDelaySeconds(delay: unknown): number | undefined {
  if (typeof delay === 'string') {
    const m = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
    return m ? Number(m[1]) : undefined;
  }
  if (typeof delay !== 'object' || delay === null) return undefined;
  const { seconds, nanos } = delay as { seconds?: unknown; nanos?: unknown };
  const s = seconds === undefined || seconds === null ? 0 : Number(String(seconds));
  const n = typeof nanos === 'number' ? nanos : 0;
  const total = s + n / 1e9;
  return Number.isFinite(total) && total >= 0 && (seconds !== undefined || nanos !== undefined) ? total : undefined;
}

/** retryingIn says a wait for a message: "retrying in 30s", "retrying in 2m", "retrying in 1m30s". */
export function retryingIn(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `retrying in ${s}s`;
  const m = Math.floor(s / 60);
  return `retrying in ${m}m${s % 60 === 0 ? '' : `${s % 60}s`}`;
}

/**
 * retryAfterSecondsOf is the bounded `retryAfterSeconds` an error (or an error it was caused
 * by, a few levels down) carries, or undefined.
 */
export function retryAfterSecondsOf(err: unknown): number | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const seconds = (e as RetryAfterHint).retryAfterSeconds;
    if (typeof seconds === 'number') return boundedRetryAfter(seconds);
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
