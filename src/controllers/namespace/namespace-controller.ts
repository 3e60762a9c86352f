/**
 * A NamespaceController empties namespaces that are being deleted: it deletes every
 * namespaced object in them, waits for objects held by finalizers (saying in the namespace's
 * conditions what remains and which finalizers hold it, in Kubernetes' words), then removes
 * the `kubernetes` finalizer through the namespace's `finalize` subresource so the namespace
 * itself goes.
 */
import type { ControllerMetrics } from '../metrics.js';
import type { Logger } from 'pino';
import { builtinRefs, type Client } from '../../client/types.js';
import { Informer } from '../../client/informer.js';
import { dropUnreadFields } from '../../client/unread-fields.js';
import { WorkQueue } from '../../client/work-queue.js';
import { isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import { refOf, uniqueResources, type ResourceCatalog } from '../catalog.js';
import { deletionConditions, withTransitionTimes, type DeletionObservation, type NamespaceCondition } from './deletion-conditions.js';

export const NAMESPACE_FINALIZER = 'kubernetes';

export class NamespaceController {
  private readonly informer: Informer<KObject>;
  private readonly queue: WorkQueue;

  constructor(
    private readonly client: Client,
    private readonly catalog: ResourceCatalog,
    private readonly log: Logger,
    metrics?: ControllerMetrics,
  ) {
    this.queue = new WorkQueue({ name: 'namespace', metrics: metrics?.queues });
    this.informer = new Informer<KObject>(client, builtinRefs.namespaces, { transform: dropUnreadFields });
  }

  start(): void {
    const enqueue = (ns: KObject) => {
      if (ns.metadata.deletionTimestamp) this.queue.add(ns.metadata.name!);
    };
    this.informer.addHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n) });
    this.informer.start();
    void this.queue.runWorkers(1, (name) => this.sync(name), {
      onError: (name, err) => this.log.warn({ namespace: name, err: String(err) }, 'cannot finish deleting namespace; retrying'),
    });
  }

  stop(): void {
    this.informer.stop();
    this.queue.shutDown();
  }

  private async sync(name: string): Promise<{ requeueAfterMs?: number } | void> {
    let ns: KObject;
    try {
      ns = await this.client.get<KObject>(builtinRefs.namespaces, name);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
    if (!ns.metadata.deletionTimestamp) return;
    const spec = isPlainObject(ns.spec) ? ns.spec : {};
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
    if (!finalizers.includes(NAMESPACE_FINALIZER)) return;

    const remaining = new Map<string, number>();
    const held = new Map<string, number>();
    const errors: string[] = [];
    for (const entry of uniqueResources(this.catalog, ['list', 'deletecollection'])) {
      if (!entry.namespaced) continue;
      const ref = refOf(entry);
      try {
        await this.client.deleteCollection(ref, { namespace: name, propagationPolicy: 'Background' });
        const left = await this.client.list(ref, { namespace: name });
        if (left.items.length === 0) continue;
        remaining.set(`${ref.resource}.${ref.group}`, left.items.length);
        for (const item of left.items) for (const f of item.metadata.finalizers ?? []) held.set(f, (held.get(f) ?? 0) + 1);
      } catch (err) {
        if (isApiError(err) && err.code === 404) continue; // the kind went away meanwhile
        errors.push(`${ref.resource}.${ref.group}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    ns = await this.reportDeletion(ns, { remaining, finalizers: held, errors });
    if (errors.length > 0) throw new Error(`cannot delete the contents of namespace ${name}: ${errors.join('; ')}`);
    if (remaining.size > 0) {
      this.log.debug({ namespace: name }, 'waiting for objects held by finalizers');
      return { requeueAfterMs: 500 };
    }
    const finalized = { ...ns, spec: { ...spec, finalizers: finalizers.filter((f) => f !== NAMESPACE_FINALIZER) } };
    await this.client.updateSubresource(builtinRefs.namespaces, finalized, 'finalize', { fieldManager: 'conductor-namespace-controller' });
    this.log.info({ namespace: name }, 'namespace emptied and finalized');
  }

  /**
   * Writes what this pass saw into the namespace's conditions, as Kubernetes does, when it
   * differs from what they say; returns the namespace as written (or as it was: after a
   * conflict the next pass says it again).
   */
  private async reportDeletion(ns: KObject, observed: DeletionObservation): Promise<KObject> {
    const status = isPlainObject(ns.status) ? ns.status : {};
    const previous = Array.isArray(status.conditions) ? (status.conditions as Partial<NamespaceCondition>[]) : [];
    const { conditions, changed } = withTransitionTimes(deletionConditions(observed), previous, new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
    if (!changed) return ns;
    try {
      return await this.client.updateStatus(
        builtinRefs.namespaces,
        { ...ns, status: { ...status, conditions } },
        { fieldManager: 'conductor-namespace-controller' },
      );
    } catch (err) {
      // A conflict or a namespace gone meanwhile: the next pass (or none) says it again.
      if (isApiError(err) && (err.code === 409 || err.code === 404)) return ns;
      throw err;
    }
  }
}
