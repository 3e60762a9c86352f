/**
 * Rate limiters decide how long a work-queue key waits before it is retried: a per-key
 * exponential backoff, a global token bucket, and the larger of several.
 */

/** A RateLimiter says how long `key` should wait now; `forget` resets what it knows of `key`. */
export interface RateLimiter {
  /** The delay in ms before `key` may be processed again; each call counts as one retry. */
  when(key: string): number;
  forget(key: string): void;
  /** How many times `when` was called for `key` since it was last forgotten. */
  numRequeues(key: string): number;
}

/**
 * An ItemExponentialBackoff delays the n-th retry of a key by baseMs · 2^(n-1), capped at maxMs.
 */
export class ItemExponentialBackoff implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1_000_000,
  ) {}

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    // 2^60 · baseMs overflows any sensible cap; avoid computing Infinity-sized numbers.
    if (n >= 60) return this.maxMs;
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * A TokenBucket allows `burst` retries at once and `qps` per second after that, across all
 * keys. Each `when` reserves a token; when none is left it returns how long until the
 * reserved token will have been earned (reservations queue up behind each other).
 */
export class TokenBucket implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps = 10,
    readonly burst = 100,
    private readonly now: () => number = Date.now,
  ) {
    if (!(qps > 0)) throw new Error(`token bucket qps must be positive, got ${qps}`);
    if (!(burst >= 1)) throw new Error(`token bucket burst must be at least 1, got ${burst}`);
    this.tokens = burst;
    this.last = now();
  }

  when(): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

/** A MaxOfRateLimiter asks every limiter and waits for the longest. */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(key));
    return max;
  }
}

export interface ControllerRateLimiterOptions {
  /** First per-key retry delay. Default 5 ms. */
  baseDelayMs?: number;
  /** Longest per-key retry delay. Default 1 000 000 ms (about 16.7 minutes). */
  maxDelayMs?: number;
  /** Overall retries per second. Default 10. */
  qps?: number;
  /** Retries allowed at once before qps applies. Default 100. */
  burst?: number;
  now?: () => number;
}

/** The default limiter of a work queue: per-key exponential backoff and a global token bucket, whichever is longer. */
export function controllerRateLimiter(options: ControllerRateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialBackoff(options.baseDelayMs ?? 5, options.maxDelayMs ?? 1_000_000),
    new TokenBucket(options.qps ?? 10, options.burst ?? 100, options.now),
  );
}
