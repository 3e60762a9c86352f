/**
 * Provider calls with a deadline that cancels them: each call gets an AbortSignal that aborts
 * when its time is up or when the controller shuts down, and the caller stops waiting at that
 * moment whether or not the provider honours the signal. The error says which call on which
 * resource was cancelled and why.
 */
import { performance } from 'node:perf_hooks';
import { abortReason } from '../../machinery/abort.js';
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

/** DeadlineOptions say how long a call may take and what else cancels it. */
export interface DeadlineOptions {
  timeoutMs: number;
  /** Aborted on shutdown: every call running then is cancelled. */
  shutdown?: AbortSignal;
  /** Told of every call once it settled (metrics): success, error, timeout or cancelled, and how long it took. */
  report?: (call: ProviderCall, result: CallResult, seconds: number) => void;
}

/** How a provider call ended, for metrics. */
export type CallResult = 'success' | 'error' | 'timeout' | 'cancelled';

/**
 * withDeadline runs `run` with a signal that aborts after `timeoutMs` (reason: a
 * CallTimeoutError) or when `shutdown` aborts (a CallCancelledError). It rejects with that
 * reason as soon as the signal aborts — a provider that ignores the signal is no longer
 * waited for — and also when the provider itself rejects after the abort (its AbortError
 * becomes the reason, which names the call).
 */
export async function withDeadline<T>(call: ProviderCall, options: DeadlineOptions, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const signal = controller.signal;
  const timer = setTimeout(() => controller.abort(new CallTimeoutError(call, options.timeoutMs)), options.timeoutMs);
  const onShutdown = () => controller.abort(new CallCancelledError(call));
  if (options.shutdown?.aborted) onShutdown();
  else options.shutdown?.addEventListener('abort', onShutdown, { once: true });
  let stopWaiting: (() => void) | undefined;
  const started = options.report ? performance.now() : 0;
  let result: CallResult = 'error';
  const aborted = new Promise<never>((_, reject) => {
    stopWaiting = () => reject(abortReason(signal));
    if (signal.aborted) stopWaiting();
    else signal.addEventListener('abort', stopWaiting, { once: true });
  });
  try {
    const value = await Promise.race([Promise.resolve().then(() => run(signal)), aborted]);
    result = 'success';
    return value;
  } catch (err) {
    if (signal.aborted) {
      result = signal.reason instanceof CallTimeoutError ? 'timeout' : signal.reason instanceof CallCancelledError ? 'cancelled' : 'error';
      throw signal.reason;
    }
    throw err;
  } finally {
    options.report?.(call, result, (performance.now() - started) / 1000);
    clearTimeout(timer);
    options.shutdown?.removeEventListener('abort', onShutdown);
    if (stopWaiting) signal.removeEventListener('abort', stopWaiting);
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
