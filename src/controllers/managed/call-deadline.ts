/**
 * Provider calls with a deadline that cancels them: each call gets an AbortSignal that aborts
 * when its time is up or when the controller shuts down, and the caller stops waiting at that
 * moment whether or not the provider honours the signal. The error says which call on which
 * resource was cancelled and why.
 *
 * Calls given the same options object share their signals: the calls started within one slot
 * of time (1% of the timeout, at most a second) get one AbortController, one timer and one
 * shutdown listener, and each is cancelled between its timeout and its timeout plus that slot.
 * On Node 20 every AbortSignal outlives the young generation (V8 keeps each one through the
 * scavenges that free short-lived objects, so only a full collection frees it; Node 24 does
 * not keep them). One per call was ~18% of what the claims benchmark's reconciles left for full
 * collections: `--only claims` traced with --trace-gc, two interleaved pairs, the old generation's
 * growth while 2,000 MemoryDatabases register 101/104 -> 83/81 MB, while 2,000 claims bind at
 * 100/s 3.37/3.01 -> 2.61/2.66 MB/s.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ClaimRef, ConnectionDetails, ExternalClient, RebindPolicy, SharedExternalClient } from '../../providers/spi.js';
import { formatDuration } from './poll-interval.js';

/** A ProviderCall names one provider call for messages: `observe` on `LocalRedisInstance/ns/name`. */
export interface ProviderCall {
  op: string;
  kind: string;
  resource: KObject;
}

function describeCall(call: ProviderCall): string {
  const { namespace, name } = call.resource.metadata;
  return `provider call ${call.op} on ${call.kind}/${namespace ? `${namespace}/` : ''}${name ?? ''}`;
}

/**
 * A CallTimeoutError is a provider call that did not finish by its deadline: its signal was
 * aborted and the caller stopped waiting. What the call did before it stopped is unknown.
 */
export class CallTimeoutError extends Error {
  constructor(
    readonly call: ProviderCall,
    readonly ms: number,
  ) {
    super(`${describeCall(call)} did not finish in ${formatDuration(ms)}; cancelled`);
    this.name = 'CallTimeoutError';
  }
}

/** A CallCancelledError is a provider call cancelled because the controller is stopping. */
export class CallCancelledError extends Error {
  constructor(readonly call: ProviderCall) {
    super(`${describeCall(call)} was cancelled: the controller is stopping`);
    this.name = 'CallCancelledError';
  }
}

/**
 * DeadlineOptions say how long a call may take and what else cancels it. Keep one object per
 * caller: calls given the same object share their signals (see above).
 */
export interface DeadlineOptions {
  timeoutMs: number;
  /** Aborted on shutdown: every call running then is cancelled. */
  shutdown?: AbortSignal;
  /** Told of every call once it settled (metrics): success, error, timeout or cancelled, and how long it took. */
  report?: (call: ProviderCall, result: CallResult, seconds: number) => void;
}

/** How a provider call ended, for metrics. */
export type CallResult = 'success' | 'error' | 'timeout' | 'cancelled';

/** Why a slot's signal aborted. */
type SlotEnd = 'timeout' | 'cancelled';

/** The longest slot: calls started within it share one signal. */
const MAX_SLOT_MS = 1000;

/** A DeadlineSlot is the signal shared by the calls started within one slot of time. */
class DeadlineSlot {
  readonly controller = new AbortController();
  /** Calls running on this slot's signal. */
  calls = 0;
  /** Why the signal aborted, once it has. */
  ended: SlotEnd | undefined;
  /** Each running call's way to stop waiting, told why. */
  readonly waiters = new Set<(why: SlotEnd) => void>();
  timer: NodeJS.Timeout | undefined;
  onShutdown: (() => void) | undefined;
}

/**
 * SharedDeadlines hands out the slots of one options object: the current slot until its time
 * is over (or it ended), then a new one. A slot holds the process (its timer) and listens for
 * shutdown only while calls run on it; one no call runs on any more is let go (timer cleared)
 * unless it is the current one, which a shutdown meanwhile ends at its next use.
 */
class SharedDeadlines {
  private current: DeadlineSlot | undefined;
  private currentUntil = 0;
  private readonly slotMs: number;

  constructor(private readonly options: DeadlineOptions) {
    this.slotMs = Math.min(MAX_SLOT_MS, Math.max(1, Math.floor(options.timeoutMs / 100)));
    // Each slot with calls running listens for shutdown: as many as there are slots in a timeout.
    if (options.shutdown) setMaxListeners(0, options.shutdown);
  }

  acquire(): DeadlineSlot {
    const now = performance.now();
    let slot = this.current;
    // An idle slot does not listen for shutdown: it learns of one here.
    if (slot && !slot.ended && this.options.shutdown?.aborted) this.end(slot, 'cancelled');
    if (!slot || slot.ended || now >= this.currentUntil) {
      if (slot && slot.calls === 0) this.letGo(slot);
      slot = this.open(now);
    }
    if (slot.calls++ === 0) this.hold(slot);
    return slot;
  }

  release(slot: DeadlineSlot): void {
    if (--slot.calls > 0) return;
    if (slot === this.current) this.unhold(slot);
    else this.letGo(slot);
  }

  private open(now: number): DeadlineSlot {
    const slot = new DeadlineSlot();
    // Every call running on the signal may listen to it: no "possible memory leak" warning past 10.
    setMaxListeners(0, slot.controller.signal);
    this.current = slot;
    this.currentUntil = now + this.slotMs;
    if (this.options.shutdown?.aborted) this.end(slot, 'cancelled');
    else slot.timer = setTimeout(() => this.end(slot, 'timeout'), this.options.timeoutMs + this.slotMs);
    return slot;
  }

  /** A slot that calls run on holds the process until its deadline and listens for shutdown. */
  private hold(slot: DeadlineSlot): void {
    if (slot.ended) return;
    slot.timer?.ref();
    const { shutdown } = this.options;
    if (shutdown && !slot.onShutdown) {
      slot.onShutdown = () => this.end(slot, 'cancelled');
      shutdown.addEventListener('abort', slot.onShutdown, { once: true });
    }
  }

  private unhold(slot: DeadlineSlot): void {
    slot.timer?.unref();
    if (slot.onShutdown) this.options.shutdown?.removeEventListener('abort', slot.onShutdown);
    slot.onShutdown = undefined;
  }

  private end(slot: DeadlineSlot, why: SlotEnd): void {
    if (slot.ended) return;
    slot.ended = why;
    this.letGo(slot);
    slot.controller.abort(
      why === 'timeout'
        ? new Error(`provider calls did not finish in ${formatDuration(this.options.timeoutMs)}; cancelled`)
        : new Error('provider calls cancelled: the controller is stopping'),
    );
    for (const stopWaiting of slot.waiters) stopWaiting(why);
    slot.waiters.clear();
  }

  private letGo(slot: DeadlineSlot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    this.unhold(slot);
    if (this.current === slot) this.current = undefined;
  }
}

const sharedDeadlines = new WeakMap<DeadlineOptions, SharedDeadlines>();

function deadlinesOf(options: DeadlineOptions): SharedDeadlines {
  let shared = sharedDeadlines.get(options);
  if (!shared) {
    shared = new SharedDeadlines(options);
    sharedDeadlines.set(options, shared);
  }
  return shared;
}

/**
 * withDeadline runs `run` with a signal that aborts after `timeoutMs` (at most 1% later, see
 * above) or when `shutdown` aborts. It rejects as soon as the signal aborts — with a
 * CallTimeoutError or a CallCancelledError naming the call — and a provider that ignores the
 * signal is no longer waited for; also when the provider itself rejects after the abort (its
 * AbortError becomes that error, which names the call). The signal is shared with the calls
 * started at about the same time with the same `options` object; its own reason says only
 * that the deadline passed or the controller is stopping.
 */
export async function withDeadline<T>(call: ProviderCall, options: DeadlineOptions, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadlines = deadlinesOf(options);
  const slot = deadlines.acquire();
  const signal = slot.controller.signal;
  let reason: Error | undefined;
  const reasonFor = (why: SlotEnd): Error => (reason ??= why === 'timeout' ? new CallTimeoutError(call, options.timeoutMs) : new CallCancelledError(call));
  let stopWaiting: ((why: SlotEnd) => void) | undefined;
  const started = options.report ? performance.now() : 0;
  let result: CallResult = 'error';
  const aborted = new Promise<never>((_, reject) => {
    stopWaiting = (why) => reject(reasonFor(why));
    if (slot.ended) stopWaiting(slot.ended);
    else slot.waiters.add(stopWaiting);
  });
  try {
    const value = await Promise.race([Promise.resolve().then(() => run(signal)), aborted]);
    result = 'success';
    return value;
  } catch (err) {
    if (slot.ended) {
      result = slot.ended;
      throw reasonFor(slot.ended);
    }
    throw err;
  } finally {
    options.report?.(call, result, (performance.now() - started) / 1000);
    if (stopWaiting) slot.waiters.delete(stopWaiting);
    deadlines.release(slot);
    aborted.catch(() => {}); // settled after the race: nobody listens any more
  }
}

/** isCancelled says whether an error is a provider call that was cancelled (deadline or shutdown). */
export function isCancelled(err: unknown): err is CallTimeoutError | CallCancelledError {
  return err instanceof CallTimeoutError || err instanceof CallCancelledError;
}

function withSignal(options: CallOptions | undefined, signal: AbortSignal): CallOptions {
  const outer = options?.signal;
  return { ...options, signal: outer ? AbortSignal.any([outer, signal]) : signal };
}

/**
 * deadlineClient wraps an external client so that every call of it runs `withDeadline`:
 * the provider receives the call's signal in its CallOptions, and the caller gets a
 * CallTimeoutError at the deadline. `close` is passed through as it is.
 */
export function deadlineClient<R extends KObject>(client: ExternalClient<R>, kind: string, options: DeadlineOptions): ExternalClient<R> {
  const run = <T>(op: string, resource: KObject, fn: (signal: AbortSignal) => Promise<T>) => withDeadline({ op, kind, resource }, options, fn);
  const wrapped: ExternalClient<R> = {
    observe: (r, o) => run('observe', r, (s) => client.observe(r, withSignal(o, s))),
    create: (r, o) => run('create', r, (s) => client.create(r, withSignal(o, s))),
    update: (r, o) => run('update', r, (s) => client.update(r, withSignal(o, s))),
    delete: (r, o) => run('delete', r, (s) => client.delete(r, withSignal(o, s))),
    ...(client.scrub ? { scrub: (r: R, o?: CallOptions) => run('scrub', r, (s) => client.scrub!(r, withSignal(o, s))) } : {}),
    ...(client.discover
      ? { discover: (o?: CallOptions) => run('discover', { metadata: { name: '*' } } as KObject, (s) => client.discover!(withSignal(o, s))) }
      : {}),
    ...(client.close ? { close: () => client.close!() } : {}),
  };
  const shared = client as Partial<SharedExternalClient<R>>;
  if (typeof shared.bindClaim === 'function' && typeof shared.unbindClaim === 'function') {
    const bind = shared.bindClaim.bind(client);
    const unbind = shared.unbindClaim.bind(client);
    const sharedWrapped: SharedExternalClient<R> = {
      ...wrapped,
      bindClaim: (r: R, claim: KObject, previous?: ConnectionDetails, o?: CallOptions) =>
        run('bindClaim', r, (s) => bind(r, claim, previous, withSignal(o, s))),
      unbindClaim: (r: R, claim: ClaimRef, policy: RebindPolicy, recorded?: ConnectionDetails, o?: CallOptions) =>
        run('unbindClaim', r, (s) => unbind(r, claim, policy, recorded, withSignal(o, s))),
    };
    return sharedWrapped;
  }
  return wrapped;
}
