/**
 * The work queue between informers and a controller's workers: string keys (usually
 * `namespace/name`), de-duplicated, never handed to two workers at once, with delayed and
 * rate-limited re-adds.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from './logger.js';
import { errorMessage, silentLogger } from './logger.js';
import { controllerRateLimiter } from './rate-limiter.js';
import type { ControllerRateLimiterOptions, RateLimiter } from './rate-limiter.js';

export interface WorkQueueOptions extends ControllerRateLimiterOptions {
  /** Names the queue in log lines. */
  name?: string;
  /** Replaces the default limiter built from the delay and token-bucket options. */
  rateLimiter?: RateLimiter;
  logger?: Logger;
  /** Where the queue reports its adds, retries, depth and its workers' reconciles (metrics). */
  metrics?: WorkQueueMetrics;
}

/** controller-runtime's reconcile results: success, error, requeue (now), requeue_after (a delay). */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** WorkQueueMetrics gives each queue the series it reports to; `depth` is read when scraped. */
export interface WorkQueueMetrics {
  forQueue(name: string, depth: () => number): WorkQueueSeries;
}

/** One queue's series: called on the queue's paths, so each call only adds to a number. */
export interface WorkQueueSeries {
  added(): void;
  retried(): void;
  reconciled(result: ReconcileResult, seconds: number): void;
  /** The queue was shut down. */
  closed(): void;
}

/** What a worker's handler may return: nothing, or a request to look at the key again later. */
export type WorkResult = void | { requeueAfterMs?: number };

/** A WorkHandler processes one key; throwing (or rejecting) retries the key with backoff. */
export type WorkHandler = (key: string) => WorkResult | Promise<WorkResult>;

export interface RunWorkersOptions {
  /** Called when the handler fails (the key has been re-added with backoff). */
  onError?(key: string, err: unknown): void;
}

/**
 * A WorkQueue holds keys to process.
 *
 * - A key added while it waits in the queue is not added twice.
 * - A key added while a worker processes it is queued again only when that worker calls
 *   `done(key)`, so no key is processed by two workers at once.
 * - `addUrgent` puts a key in a lane served before the others (FIFO within each lane); a key
 *   already waiting in the ordinary lane moves to the urgent one.
 * - `addAfter` delays a key (the earliest pending time wins); `addRateLimited` delays it by
 *   the rate limiter (per-key exponential backoff, max'ed with a global token bucket);
 *   `forget` resets the key's backoff.
 * - `shutDown` stops accepting keys, drops what is queued or delayed and makes `get`
 *   resolve undefined; keys being processed finish normally.
 */
export class WorkQueue {
  readonly name: string;
  private readonly limiter: RateLimiter;
  private readonly log: Logger;
  private queue: string[] = [];
  private head = 0;
  /** The urgent lane, served before `queue`. Either lane may hold stale entries (a key taken through the other), skipped when met. */
  private urgent: string[] = [];
  private urgentHead = 0;
  /** Keys waiting in the urgent lane. */
  private readonly urgentKeys = new Set<string>();
  /** Keys waiting to be handed out (either lane). */
  private waiting = 0;
  /** Keys that need processing: queued, or re-added while processing. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private waiters: Array<(key: string | undefined) => void> = [];
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private shutdown = false;
  private readonly series: WorkQueueSeries | undefined;

  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? 'queue';
    this.limiter = options.rateLimiter ?? controllerRateLimiter(options);
    this.log = options.logger ?? silentLogger;
    this.series = options.metrics?.forQueue(this.name, () => this.len());
  }

  /** Adds `key` unless it is already waiting; a key being processed is re-queued by `done`. */
  add(key: string): void {
    if (this.shutdown || this.dirty.has(key)) return;
    this.series?.added();
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.enqueue(key, false);
  }

  /**
   * addUrgent adds `key` to the urgent lane, served before every key added with `add` (a
   * watch saying an external resource changed, not to wait behind a burst of creates). A key
   * already waiting in the ordinary lane moves; a key being processed is queued (ordinarily)
   * again by `done`, as with `add`.
   */
  addUrgent(key: string): void {
    if (this.shutdown || this.urgentKeys.has(key)) return;
    if (this.dirty.has(key)) {
      if (this.processing.has(key)) return;
      // Waiting in the ordinary lane: its entry there goes stale.
      this.urgentKeys.add(key);
      this.urgent.push(key);
      return;
    }
    this.series?.added();
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.enqueue(key, true);
  }

  /** Adds `key` after `delayMs`. A key already delayed keeps the earlier of the two times. */
  addAfter(key: string, delayMs: number): void {
    if (this.shutdown) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending) {
      if (pending.at <= at) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { at, timer });
  }

  /** Adds `key` after the delay the rate limiter gives it (a retry). */
  addRateLimited(key: string): void {
    if (this.shutdown) return;
    this.series?.retried();
    this.addAfter(key, this.limiter.when(key));
  }

  /** Resets the backoff of `key` (call it when the key was processed successfully). */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  /** How many rate-limited retries `key` has had since it was last forgotten. */
  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  /**
   * Resolves with the next key to process (marking it as being processed), waiting if none
   * is queued; resolves undefined once the queue is shut down. Call `done(key)` afterwards.
   */
  get(): Promise<string | undefined> {
    if (this.waiting > 0) {
      const key = this.take();
      if (key !== undefined) return Promise.resolve(key);
    }
    if (this.shutdown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks `key` as processed; if it was added meanwhile it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shutdown) this.enqueue(key, false);
  }

  /** Number of keys waiting to be handed out (not counting delayed or in-process keys). */
  len(): number {
    return this.waiting;
  }

  /** True while `key` is handed out and not yet done. */
  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  get shuttingDown(): boolean {
    return this.shutdown;
  }

  shutDown(): void {
    if (this.shutdown) return;
    this.shutdown = true;
    this.series?.closed();
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.queue = [];
    this.head = 0;
    this.urgent = [];
    this.urgentHead = 0;
    this.urgentKeys.clear();
    this.waiting = 0;
    this.dirty.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  /**
   * Runs `n` workers that call `handler(key)` for each key: on success the key's backoff is
   * forgotten (and it is re-added after `requeueAfterMs` if the handler asks), on failure it
   * is re-added rate-limited. Resolves when the queue is shut down and every worker is idle.
   */
  async runWorkers(n: number, handler: WorkHandler, options: RunWorkersOptions = {}): Promise<void> {
    const worker = async (): Promise<void> => {
      for (let key = await this.get(); key !== undefined; key = await this.get()) {
        const started = this.series ? performance.now() : 0;
        try {
          const result = await handler(key);
          this.forget(key);
          if (result && result.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
          this.series?.reconciled(
            result && result.requeueAfterMs !== undefined ? (result.requeueAfterMs > 0 ? 'requeue_after' : 'requeue') : 'success',
            (performance.now() - started) / 1000,
          );
        } catch (err) {
          this.series?.reconciled('error', (performance.now() - started) / 1000);
          this.log.warn({ queue: this.name, key, err: errorMessage(err), requeues: this.numRequeues(key) }, 'work item failed; retrying');
          this.addRateLimited(key);
          try {
            options.onError?.(key, err);
          } catch (hookErr) {
            this.log.error({ queue: this.name, key, err: errorMessage(hookErr) }, 'work queue onError hook threw');
          }
        } finally {
          this.done(key);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, n) }, () => worker()));
  }

  private enqueue(key: string, urgent: boolean): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.waiting++;
    if (urgent) {
      this.urgentKeys.add(key);
      this.urgent.push(key);
    } else this.queue.push(key);
  }

  /** take hands out the next waiting key: the urgent lane first, stale entries skipped; undefined when none is left. */
  private take(): string | undefined {
    for (;;) {
      const fromUrgent = this.urgentHead < this.urgent.length;
      if (!fromUrgent && this.head >= this.queue.length) {
        this.waiting = 0;
        return undefined;
      }
      const key = fromUrgent ? this.urgent[this.urgentHead++] : this.queue[this.head++];
      this.compact();
      // Stale: taken through the other lane already (no longer waiting, or being processed now).
      if (!this.dirty.has(key) || this.processing.has(key)) continue;
      this.waiting--;
      this.dirty.delete(key);
      this.urgentKeys.delete(key);
      this.processing.add(key);
      return key;
    }
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.urgentHead > 1024 && this.urgentHead * 2 > this.urgent.length) {
      this.urgent = this.urgent.slice(this.urgentHead);
      this.urgentHead = 0;
    }
  }
}
