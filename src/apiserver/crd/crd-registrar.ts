/**
 * A CrdRegistrar serves the kinds of every CustomResourceDefinition: it registers their
 * ResourceTypes as soon as a CRD is stored (so discovery and the REST paths update at once),
 * keeps the CRD's status conditions (NamesAccepted, Established) true to what is served,
 * and on deletion removes every custom object before letting the CRD go.
 */
import type { Logger } from 'pino';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject, sameStatusIgnoringTransitionTimes } from '../../machinery/object.js';
import { isApiError } from '../../machinery/errors.js';
import type { StoreWatcher } from '../../store/types.js';
import type { ResourceRegistry } from '../registry/registry.js';
import { sourceKeyOf } from '../registry/registry.js';
import type { JSONSchemaProps, ResourceType } from '../registry/resource-type.js';
import { systemContext } from '../rest/context.js';
import type { RestHandlers } from '../rest/handlers.js';
import { timestamp } from '../rest/object-meta.js';
import { crdSpec, nameConflicts, resourceTypesForCrd } from './crd-types.js';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export class CrdRegistrar {
  private watcher: StoreWatcher | undefined;
  private readonly pending = new Map<string, KObject | null>();
  private draining = false;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly rest: RestHandlers,
    private readonly crdType: ResourceType,
    private readonly objectMetaSchema: JSONSchemaProps,
    private readonly logger: Logger,
  ) {}

  /** Registers every stored CRD, then follows changes. */
  async start(): Promise<void> {
    const listed = await this.rest.list(this.crdType, undefined, {
      labelSelector: '',
      fieldSelector: '',
      limit: 0,
      continueToken: '',
      resourceVersion: '',
      resourceVersionMatch: '',
    });
    if (this.stopped) return;
    // A relist after the watch ended: CRDs deleted meanwhile are no longer served.
    const listedNames = new Set(listed.items.map((item) => `crd:${item.obj().metadata.name}`));
    for (const source of new Set(this.registry.all().map(sourceKeyOf))) {
      if (source.startsWith('crd:') && !listedNames.has(source)) this.registry.removeSource(source);
    }
    for (const item of listed.items) this.register(item.obj());
    this.watcher?.close();
    this.watcher = this.rest.objects.watch(this.crdType, undefined, Number(listed.metadata.resourceVersion), {
      onEvents: (events) => {
        for (const ev of events) {
          const obj = this.rest.objects.decode(this.crdType, ev.kv);
          if (ev.type === 'delete') {
            this.registry.removeSource(`crd:${obj.metadata.name}`);
            this.pending.set(obj.metadata.name!, null);
          } else {
            // Register synchronously so the kind is served before the write's response is sent.
            this.register(obj);
            this.pending.set(obj.metadata.name!, obj);
          }
        }
        void this.drain();
      },
      onError: (err) => {
        if (this.stopped) return;
        // The store was lost for a while (etcd), or its history compacted: list again.
        this.logger.warn({ err }, 'the CRD watch ended; listing the CRDs again');
        this.restartLater();
      },
    });
    for (const item of listed.items) this.pending.set(item.obj().metadata.name!, item.obj());
    await this.drain();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.watcher?.close();
  }

  /** restartLater lists and watches again after a pause, until it succeeds or the registrar stops. */
  private restartLater(): void {
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (this.stopped) return;
      this.start().catch((err: unknown) => {
        if (this.stopped) return;
        this.logger.warn({ err }, 'cannot list the CRDs again; will retry');
        this.restartLater();
      });
    }, 1000);
    this.restartTimer.unref();
  }

  private register(crd: KObject): boolean {
    const key = `crd:${crd.metadata.name}`;
    const others = this.registry.all().filter((rt) => sourceKeyOf(rt) !== key);
    const conflicts = nameConflicts(crdSpec(crd), others);
    if (conflicts.length > 0) {
      this.registry.removeSource(key);
      return false;
    }
    try {
      this.registry.replaceSource(key, resourceTypesForCrd(crd, this.objectMetaSchema));
      return true;
    } catch (err) {
      this.logger.error({ err, crd: crd.metadata.name }, 'cannot serve CRD');
      this.registry.removeSource(key);
      return false;
    }
  }

  /** Reconciles status and finalizers of CRDs that changed, one at a time. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.pending.size > 0 && !this.stopped) {
        const [name, obj] = this.pending.entries().next().value as [string, KObject | null];
        this.pending.delete(name);
        if (!obj) continue;
        try {
          await this.reconcile(name);
        } catch (err) {
          if (!isApiError(err) || err.code !== 404) this.logger.warn({ err, crd: name }, 'cannot reconcile CRD; will retry');
          if (!(isApiError(err) && err.code === 404)) {
            setTimeout(() => {
              if (!this.stopped && !this.pending.has(name)) {
                this.pending.set(name, obj);
                void this.drain();
              }
            }, 1000).unref();
          }
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async reconcile(name: string): Promise<void> {
    const ctx = systemContext('system:apiextensions-controller');
    const current = (await this.rest.get(this.crdType, undefined, name)).obj();
    const meta = current.metadata;
    const finalizers = meta.finalizers ?? [];
    if (meta.deletionTimestamp) {
      if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) return;
      const remaining = await this.deleteInstances(current);
      if (remaining > 0) throw new Error(`${remaining} custom objects are still being deleted`);
      await this.rest.patch(
        ctx,
        this.crdType,
        undefined,
        name,
        'merge',
        {
          metadata: { resourceVersion: meta.resourceVersion, finalizers: finalizers.filter((f) => f !== CRD_CLEANUP_FINALIZER) },
        },
        '',
        { dryRun: false, fieldManager: 'conductor-apiextensions', fieldValidation: 'Ignore', force: false, fieldManagerGiven: true },
      );
      return;
    }
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) {
      await this.rest.patch(
        ctx,
        this.crdType,
        undefined,
        name,
        'merge',
        {
          metadata: { resourceVersion: meta.resourceVersion, finalizers: [...finalizers, CRD_CLEANUP_FINALIZER] },
        },
        '',
        { dryRun: false, fieldManager: 'conductor-apiextensions', fieldValidation: 'Ignore', force: false, fieldManagerGiven: true },
      );
      return; // the write comes back through the watch
    }
    const status = this.desiredStatus(current);
    if (!sameStatusIgnoringTransitionTimes(current.status, status)) {
      await this.rest.update(ctx, this.crdType, undefined, name, { ...current, status }, 'status', {
        dryRun: false,
        fieldManager: 'conductor-apiextensions',
        fieldValidation: 'Ignore',
      });
    }
  }

  private desiredStatus(crd: KObject): Record<string, unknown> {
    const spec = crdSpec(crd);
    const key = `crd:${crd.metadata.name}`;
    const others = this.registry.all().filter((rt) => sourceKeyOf(rt) !== key);
    const conflicts = nameConflicts(spec, others);
    const old = isPlainObject(crd.status) ? crd.status : {};
    const oldConds = Array.isArray(old.conditions) ? (old.conditions as Record<string, unknown>[]) : [];
    const now = timestamp(new Date());
    const cond = (type: string, ok: boolean, reason: string, message: string) => {
      const prev = oldConds.find((c) => c.type === type);
      const status = ok ? 'True' : 'False';
      return {
        type,
        status,
        lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : now,
        reason,
        message,
      };
    };
    const accepted = conflicts.length === 0;
    const storage = spec.versions.filter((v) => v.storage).map((v) => v.name);
    const stored = Array.isArray(old.storedVersions) ? (old.storedVersions as string[]) : [];
    return {
      conditions: [
        cond('NamesAccepted', accepted, accepted ? 'NoConflicts' : 'NameConflict', accepted ? 'no conflicts found' : conflicts.join(', ')),
        cond(
          'Established',
          accepted,
          accepted ? 'InitialNamesAccepted' : 'NotAccepted',
          accepted ? 'the initial names have been accepted' : 'not all names are accepted',
        ),
      ],
      acceptedNames: accepted
        ? {
            plural: spec.names.plural,
            singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
            kind: spec.names.kind,
            listKind: spec.names.listKind ?? `${spec.names.kind}List`,
            ...(spec.names.shortNames ? { shortNames: spec.names.shortNames } : {}),
            ...(spec.names.categories ? { categories: spec.names.categories } : {}),
          }
        : { plural: '', kind: '' },
      storedVersions: [...new Set([...stored, ...storage])],
    };
  }

  /** Deletes every object of the CRD's kind; returns how many are still present. */
  private async deleteInstances(crd: KObject): Promise<number> {
    const spec = crdSpec(crd);
    const rt = this.registry.anyVersion(spec.group, spec.names.plural);
    if (!rt) return 0;
    const ctx = systemContext('system:apiextensions-controller');
    const listed = await this.rest.list(rt, undefined, {
      labelSelector: '',
      fieldSelector: '',
      limit: 0,
      continueToken: '',
      resourceVersion: '',
      resourceVersionMatch: '',
    });
    let remaining = 0;
    for (const item of listed.items) {
      const o = item.obj();
      try {
        const res = await this.rest.delete(ctx, rt, o.metadata.namespace, o.metadata.name!, {
          dryRun: false,
          propagationPolicy: 'Background',
          gracePeriodSeconds: undefined,
          preconditions: {},
        });
        if (!res.deleted) remaining++;
      } catch (err) {
        if (!(isApiError(err) && err.code === 404)) remaining++;
      }
    }
    return remaining;
  }
}
