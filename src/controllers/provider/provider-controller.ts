/**
 * The ProviderController keeps every Provider's status true: `Ready` (with a reason and
 * message) says whether its type is installed here and its module's check passes (the
 * local provider: the programs its kinds run; later types: the credentials authenticate),
 * and `resources` counts the concrete resources whose `spec.providerRef` names it.
 *
 * A Provider is looked at when it changes (a new generation, labels or annotations), when a
 * concrete resource naming it appears, goes or changes its providerRef, and again every
 * `recheckMs` (programs get installed or removed, credentials expire).
 */
import { cacheInformer, type CacheInformer, type SharedInformers } from '../../client/shared-informers.js';
import { errorMessage, type Logger } from '../../client/logger.js';
import { objectKey, splitKey } from '../../client/object-cache.js';
import { builtinRefs, resourceRef, type Client } from '../../client/types.js';
import { WorkQueue, type WorkResult } from '../../client/work-queue.js';
import { providerKind } from '../../apis/core/kinds.js';
import { isConflict, isNotFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { deepEqual, isPlainObject } from '../../machinery/object.js';
import type { ProviderModule } from '../../providers/spi.js';
import { decodeSecretData } from '../managed/connect-context.js';
import { findCondition, readConditions, setCondition } from '../managed/conditions.js';
import { providerReadiness, providerReasons, type CredentialsLookup } from './readiness.js';

export interface ProviderControllerOptions {
  logger?: Logger;
  informers?: SharedInformers;
  /** How often every Provider is checked again; default 60 s. */
  recheckMs?: number;
  /** How long one module's check may take before it is cancelled; default 60 s. */
  checkTimeoutMs?: number;
  /** Only Providers of this namespace (tests); default all. */
  namespace?: string;
  now?: () => Date;
}

const FIELD_MANAGER = 'conductor-provider-controller';
const READY = 'Ready';

/** The Provider a concrete resource names: `namespace/name`, or undefined. */
function providerKeyOf(resource: KObject): string | undefined {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const ref = isPlainObject(spec.providerRef) ? spec.providerRef : undefined;
  const name = typeof ref?.name === 'string' ? ref.name : '';
  return name && resource.metadata.namespace ? `${resource.metadata.namespace}/${name}` : undefined;
}

export class ProviderController {
  private readonly log: Logger | undefined;
  private readonly queue: WorkQueue;
  private readonly providers: CacheInformer;
  private readonly resources: CacheInformer[];
  private readonly shutdown = new AbortController();
  private readonly recheckMs: number;
  private readonly checkTimeoutMs: number;
  private readonly now: () => Date;
  private workers?: Promise<void>;

  constructor(
    private readonly client: Client,
    private readonly modules: readonly ProviderModule[],
    options: ProviderControllerOptions = {},
  ) {
    this.log = options.logger;
    this.recheckMs = options.recheckMs ?? 60_000;
    this.checkTimeoutMs = options.checkTimeoutMs ?? 60_000;
    this.now = options.now ?? (() => new Date());
    this.queue = new WorkQueue({ name: 'providers', ...(this.log ? { logger: this.log } : {}) });
    const scope = options.namespace ? { namespace: options.namespace } : {};
    this.providers = cacheInformer(client, options.informers, providerKind.ref, scope, this.log);
    const seen = new Set<string>();
    this.resources = [];
    for (const kind of modules.flatMap((m) => m.kinds)) {
      const id = `${kind.plural}.${kind.group}`;
      if (seen.has(id)) continue;
      seen.add(id);
      this.resources.push(
        cacheInformer(client, options.informers, resourceRef(`${kind.group}/${kind.version}`, kind.kind, kind.plural, true), scope, this.log),
      );
    }
  }

  /** start watches Providers and concrete resources and runs the worker. */
  start(): this {
    this.providers.addHandler({
      onAdd: (p) => this.queue.add(objectKey(p)),
      onUpdate: (old, p) => {
        const a = old.metadata;
        const b = p.metadata;
        if (a.generation !== b.generation || !deepEqual(a.labels ?? {}, b.labels ?? {}) || !deepEqual(a.annotations ?? {}, b.annotations ?? {}))
          this.queue.add(objectKey(p));
      },
    });
    const touch = (r: KObject) => {
      const key = providerKeyOf(r);
      if (key) this.queue.add(key);
    };
    for (const informer of this.resources) {
      informer.addHandler({
        onAdd: touch,
        onDelete: touch,
        onUpdate: (old, r) => {
          if (providerKeyOf(old) !== providerKeyOf(r)) {
            touch(old);
            touch(r);
          }
        },
      });
      informer.start();
    }
    this.providers.start();
    this.workers = this.queue.runWorkers(1, (key) => this.reconcile(key), {
      onError: (key, err) => this.log?.debug({ controller: 'provider', key, err: errorMessage(err) }, 'provider status failed; backing off'),
    });
    return this;
  }

  async stop(): Promise<void> {
    this.shutdown.abort();
    this.queue.shutDown();
    this.providers.stop();
    for (const informer of this.resources) informer.stop();
    await this.workers;
  }

  /** resourcesOf counts the concrete resources (of every installed kind) naming `namespace/name`. */
  private resourcesOf(key: string, namespace: string): number {
    let n = 0;
    for (const informer of this.resources) for (const r of informer.store.list(namespace)) if (providerKeyOf(r) === key) n++;
    return n;
  }

  private async credentials(provider: KObject): Promise<CredentialsLookup> {
    const spec = isPlainObject(provider.spec) ? provider.spec : {};
    const ref = isPlainObject(spec.credentialsSecretRef) ? spec.credentialsSecretRef : undefined;
    const name = typeof ref?.name === 'string' ? ref.name : '';
    const namespace = provider.metadata.namespace ?? '';
    if (!name) return { kind: 'none' };
    const secret = `${namespace}/${name}`;
    try {
      return { kind: 'found', data: decodeSecretData(await this.client.get(builtinRefs.secrets, name, namespace)) };
    } catch (err) {
      if (isNotFound(err)) return { kind: 'missing', secret };
      return { kind: 'unreadable', secret, error: errorMessage(err) };
    }
  }

  /** reconcile checks one Provider and writes its status; it comes back after `recheckMs`. */
  async reconcile(key: string): Promise<WorkResult> {
    const { namespace, name } = splitKey(key);
    let provider: KObject;
    try {
      provider = await this.client.get(providerKind.ref, name, namespace);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const verdict = await providerReadiness(provider, this.modules, await this.credentials(provider), {
      timeoutMs: this.checkTimeoutMs,
      shutdown: this.shutdown.signal,
    });
    const ready = verdict.ready
      ? { type: READY, status: 'True' as const, reason: providerReasons.checkPassed, message: verdict.message ?? '' }
      : { type: READY, status: 'False' as const, reason: verdict.reason, message: verdict.message };
    const status = isPlainObject(provider.status) ? provider.status : {};
    const conditions = setCondition(readConditions(status.conditions), { ...ready, observedGeneration: provider.metadata.generation }, this.now());
    const next = { ...status, conditions, observedGeneration: provider.metadata.generation, resources: this.resourcesOf(key, namespace ?? '') };
    if (!deepEqual(status, next)) {
      try {
        await this.client.updateStatus(providerKind.ref, { ...provider, status: next }, { fieldManager: FIELD_MANAGER });
      } catch (err) {
        if (isConflict(err)) return { requeueAfterMs: 0 };
        throw err;
      }
      const before = findCondition(readConditions(status.conditions), READY);
      if (before?.status !== ready.status || before.reason !== ready.reason) {
        this.log?.info(
          { controller: 'provider', provider: key, ready: ready.status, reason: ready.reason, message: ready.message },
          'provider readiness changed',
        );
      }
    }
    return { requeueAfterMs: this.recheckMs };
  }
}
