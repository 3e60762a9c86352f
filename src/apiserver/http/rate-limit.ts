/**
 * A RateLimiter gives each user name a token bucket: `ratePerSecond` tokens flow in up to
 * `burst`, each request takes one, and a request finding the bucket empty is refused with
 * 429 and a Retry-After. Members of exempt groups (system:masters by default, as in
 * Kubernetes' exempt priority level) are never limited. Idle buckets are forgotten.
 */
import { errors } from '../../machinery/errors.js';

export interface RateLimitOptions {
  /** Sustained requests per second per user; 0 turns limiting off. */
  ratePerSecond: number;
  /** Requests a user may make at once after being idle. */
  burst: number;
  exemptGroups?: readonly string[];
  /** The most buckets kept; beyond it idle ones are dropped first. */
  maxTracked?: number;
  /** Milliseconds clock (tests). */
  now?: () => number;
}

export const DEFAULT_RATE_LIMIT = { ratePerSecond: 100, burst: 400 } as const;

interface Bucket {
  tokens: number;
  at: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly rate: number;
  private readonly burst: number;
  private readonly exempt: ReadonlySet<string>;
  private readonly maxTracked: number;
  private readonly now: () => number;
  private lastSweep: number;

  constructor(opts: RateLimitOptions) {
    if (!(opts.ratePerSecond >= 0) || !Number.isFinite(opts.ratePerSecond))
      throw new Error(`the request rate must be a finite number ≥ 0 (got ${opts.ratePerSecond})`);
    if (opts.ratePerSecond > 0 && !(opts.burst >= 1)) throw new Error(`the burst must be at least 1 (got ${opts.burst})`);
    this.rate = opts.ratePerSecond;
    this.burst = opts.burst;
    this.exempt = new Set(opts.exemptGroups ?? ['system:masters']);
    this.maxTracked = opts.maxTracked ?? 100_000;
    this.now = opts.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /** Takes a token for `user`, or says how long to wait for one. */
  take(user: { name: string; groups: readonly string[] }): RateDecision {
    if (this.rate === 0) return { allowed: true };
    for (const g of user.groups) if (this.exempt.has(g)) return { allowed: true };
    const now = this.now();
    if (now - this.lastSweep > 60_000 || this.buckets.size >= this.maxTracked) this.sweep(now);
    let b = this.buckets.get(user.name);
    if (!b) {
      b = { tokens: this.burst, at: now };
      this.buckets.set(user.name, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rate);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.rate)) };
  }

  /** Like take, but throws the 429 ApiError a client should see. */
  check(user: { name: string; groups: readonly string[] }): void {
    const d = this.take(user);
    if (!d.allowed) {
      throw errors.tooManyRequests(
        `too many requests from user "${user.name}": the limit is ${this.rate} per second with bursts of ${this.burst}; retry after ${d.retryAfterSeconds} s`,
        d.retryAfterSeconds,
      );
    }
  }

  /** How many users are tracked (diagnostics, tests). */
  get tracked(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    const refill = (this.burst / this.rate) * 1000;
    for (const [name, b] of this.buckets) if (now - b.at >= refill) this.buckets.delete(name);
    // Still too many active users: forget the oldest (they start again with a full bucket).
    if (this.buckets.size >= this.maxTracked) {
      let excess = this.buckets.size - Math.floor(this.maxTracked / 2);
      for (const name of this.buckets.keys()) {
        if (excess-- <= 0) break;
        this.buckets.delete(name);
      }
    }
  }
}
