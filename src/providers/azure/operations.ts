/**
 * ARM's long-running operations, as the reconciler sees them. A PUT or DELETE answers 201/202
 * with an `Azure-AsyncOperation` (or `Location`) URL; the SDK's poller polls it. Conductor does
 * not wait inside a reconcile: create sends the PUT and keeps its poller here, and each later
 * observe that finds no server yet polls the operation once — `InProgress` is "creating",
 * `Failed` is a condition with Azure's error (and the poller is dropped, so the next reconcile
 * creates again). After a restart nothing is kept: observe finds no server, create sends the
 * PUT again, and ARM answers a PUT of a resource being created with the same operation.
 */

/** A poller of either generation of the SDKs' long-running operations (core-lro). */
export interface AnyPoller {
  poll(options?: { abortSignal?: AbortSignal }): Promise<void>;
  getOperationState(): { status?: string; isCompleted?: boolean; isCancelled?: boolean; error?: Error };
}

/** What one poll said: still running, done, or failed with Azure's error. */
export type OperationOutcome = { state: 'running' } | { state: 'succeeded' } | { state: 'failed'; error: unknown };

/** pollOnce polls `poller` once and says where the operation is. */
export async function pollOnce(poller: AnyPoller, signal?: AbortSignal): Promise<OperationOutcome> {
  try {
    await poller.poll({ abortSignal: signal });
  } catch (err) {
    if (typeof err === 'object' && err !== null && (err as { name?: string }).name === 'AbortError') throw err;
    return { state: 'failed', error: err };
  }
  const s = poller.getOperationState();
  if (s.status === 'failed' || s.status === 'canceled' || s.isCancelled === true || (s.isCompleted === true && s.error))
    return { state: 'failed', error: s.error ?? new Error(`the operation ${s.status ?? 'failed'}`) };
  if (s.status === 'succeeded' || s.isCompleted === true) return { state: 'succeeded' };
  return { state: 'running' };
}

/** Operations keeps the pollers of the operations under way, by resource key (one per running provider). */
export class Operations {
  private readonly pollers = new Map<string, AnyPoller>();

  started(key: string, poller: AnyPoller): void {
    if (this.pollers.size > 10_000) this.pollers.clear();
    this.pollers.set(key, poller);
  }

  get(key: string): AnyPoller | undefined {
    return this.pollers.get(key);
  }

  forget(key: string): void {
    this.pollers.delete(key);
  }
}
