/**
 * The ProviderController keeps every Provider's status true: `Ready` (with a reason and
 * message) says whether its type is installed here and its module's check passes (the
 * local provider: the programs its kinds run; later types: the credentials authenticate),
 * and `resources` counts the concrete resources whose `spec.providerRef` names it.
 *
 * The two are kept apart because they cost very different amounts. The check (for `local`,
 * five child processes) runs when the Provider changes (a new generation, labels or
 * annotations), when its credentials Secret appears, changes or goes, and again every
 * `recheckMs` (programs get installed or removed, credentials expire) — or, when the cloud
 * throttled the check and said when to come back, after that wait (Ready=False Throttled,
 * at most 5 minutes). A concrete resource
 * naming the Provider appearing, going or changing its providerRef only recounts
 * `resources` from the informer caches and rewrites the last verdict. Providers and
 * concrete resources are read from informer caches; Secrets are watched by name only (their
 * data is read when a check needs it, never cached).
 */
import type { DeadlineOptions } from '../managed/call-deadline.js';
import type { ControllerMetrics } from '../metrics.js';
import { Informer } from '../../client/informer.js';
import { cacheInformer, type CacheInformer, type SharedInformers } from '../../client/shared-informers.js';
import { errorMessage, type Logger } from '../../client/logger.js';
import { objectKey, splitKey } from '../../client/object-cache.js';
import { builtinRefs, resourceRef, type Client } from '../../client/types.js';
import { WorkQueue, type WorkResult } from '../../client/work-queue.js';
import { providerKind } from '../../apis/core/kinds.js';
import { isNotFound } from '../../machinery/errors.js';
import type { JsonObject, KObject } from '../../machinery/object.js';
import { deepEqual, isPlainObject } from '../../machinery/object.js';
import type { ProviderModule } from '../../providers/spi.js';
import { decodeSecretData } from '../managed/connect-context.js';
import { CONNECTION_SECRET_TYPE } from '../managed/connection-secret.js';
import { findCondition, readConditions, setCondition } from '../managed/conditions.js';
import { providerReadiness, providerReasons, type CredentialsLookup } from './readiness.js';

export interface ProviderControllerOptions {
  logger?: Logger;
  metrics?: ControllerMetrics;
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

/** The Ready condition a check decided, without its times. */
interface ReadyVerdict {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** What the last check of one Provider object found, and when the next one is due. */
interface LastCheck {
  uid: string | undefined;
  generation: number | undefined;
  ready: ReadyVerdict;
  /** What a passing check found, for status.atProvider. */
  atProvider: JsonObject | undefined;
  /** Date.now() at which the next check is due: after `recheckMs`, or after the cloud's Retry-After when it throttled the check. */
  dueAt: number;
}

/**
 * secretIdentity keeps of a Secret only what tells which one changed, so the watch of Secrets
 * holds no credentials and costs a few bytes per Secret.
 */
function secretIdentity<O extends KObject>(secret: O): O {
  const { name, namespace, uid, resourceVersion } = secret.metadata;
  const identity: KObject = { apiVersion: secret.apiVersion, kind: secret.kind, metadata: { name, namespace, uid, resourceVersion } };
  // The informer's transform keeps the object's type; only these fields are ever read.
  return identity as O;
}

/** The Provider a concrete resource names: `namespace/name`, or undefined. */
function providerKeyOf(resource: KObject): string | undefined {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const ref = isPlainObject(spec.providerRef) ? spec.providerRef : undefined;
  const name = typeof ref?.name === 'string' ? ref.name : '';
  return name && resource.metadata.namespace ? `${resource.metadata.namespace}/${name}` : undefined;
}

/** The name of the credentials Secret a Provider names (same namespace), or undefined. */
function credentialsSecretOf(provider: KObject): string | undefined {
  const spec = isPlainObject(provider.spec) ? provider.spec : {};
  const ref = isPlainObject(spec.credentialsSecretRef) ? spec.credentialsSecretRef : undefined;
  return typeof ref?.name === 'string' && ref.name !== '' ? ref.name : undefined;
}

export class ProviderController {
  private readonly log: Logger | undefined;
  private readonly queue: WorkQueue;
  private readonly providers: CacheInformer;
  private readonly resources: CacheInformer[];
  /** The identities (not the data) of Secrets other than connection Secrets: where credentials Secrets are. */
  private readonly secrets: Informer;
  private readonly shutdown = new AbortController();
  private readonly recheckMs: number;
  /** The checks' deadline: one object for all of them (checks started together share a signal). */
  private readonly deadlines: DeadlineOptions;
  private readonly now: () => Date;
  /** The last check of each Provider (`namespace/name`). */
  private readonly lastChecks = new Map<string, LastCheck>();
  /** Providers whose object or credentials changed since their last check. */
  private readonly changed = new Set<string>();
  private workers?: Promise<void>;

  constructor(
    private readonly client: Client,
    private readonly modules: readonly ProviderModule[],
    options: ProviderControllerOptions = {},
  ) {
    this.log = options.logger;
    this.recheckMs = options.recheckMs ?? 60_000;
    this.now = options.now ?? (() => new Date());
    const calls = options.metrics?.providerCalls;
    // A Provider's check, labelled with the Provider's type.
    const report: DeadlineOptions['report'] = calls
      ? (call, result, seconds) =>
          calls.called(String((call.resource.spec as { type?: unknown } | undefined)?.type ?? 'unknown'), call.kind, call.op, result, seconds)
      : undefined;
    this.deadlines = { timeoutMs: options.checkTimeoutMs ?? 60_000, shutdown: this.shutdown.signal, ...(report ? { report } : {}) };
    this.queue = new WorkQueue({ name: 'providers', metrics: options.metrics?.queues, ...(this.log ? { logger: this.log } : {}) });
    const scope = options.namespace ? { namespace: options.namespace } : {};
    this.providers = cacheInformer(client, options.informers, providerKind.ref, scope, this.log);
    this.secrets = new Informer(client, builtinRefs.secrets, {
      ...scope,
      fieldSelector: `type!=${CONNECTION_SECRET_TYPE}`,
      ...(this.log ? { logger: this.log } : {}),
      readOnlyObjects: true,
      transform: secretIdentity,
    });
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

  /** start watches Providers, credentials Secrets and concrete resources, and runs the worker once the caches are filled. */
  start(): this {
    const check = (key: string) => {
      this.changed.add(key);
      this.queue.add(key);
    };
    this.providers.addHandler({
      onAdd: (p) => check(objectKey(p)),
      onUpdate: (old, p) => {
        const a = old.metadata;
        const b = p.metadata;
        if (a.generation !== b.generation || !deepEqual(a.labels ?? {}, b.labels ?? {}) || !deepEqual(a.annotations ?? {}, b.annotations ?? {}))
          check(objectKey(p));
      },
      onDelete: (p) => this.queue.add(objectKey(p)),
    });
    const credentialsChanged = (secret: KObject) => {
      const namespace = secret.metadata.namespace ?? '';
      for (const p of this.providers.store.list(namespace)) if (credentialsSecretOf(p) === secret.metadata.name) check(objectKey(p));
    };
    this.secrets.addHandler({ onAdd: credentialsChanged, onUpdate: (_old, s) => credentialsChanged(s), onDelete: credentialsChanged });
    const recount = (r: KObject) => {
      const key = providerKeyOf(r);
      if (key) this.queue.add(key);
    };
    for (const informer of this.resources) {
      informer.addHandler({
        onAdd: recount,
        onDelete: recount,
        onUpdate: (old, r) => {
          if (providerKeyOf(old) !== providerKeyOf(r)) {
            recount(old);
            recount(r);
          }
        },
      });
      informer.start();
    }
    this.secrets.start();
    this.providers.start();
    const caches = [this.providers, this.secrets, ...this.resources];
    this.workers = (async () => {
      // A count written from a cache still filling would be wrong until the next event.
      const synced = await Promise.all(caches.map((c) => c.waitForSync(this.shutdown.signal)));
      if (!synced.every(Boolean)) return;
      await this.queue.runWorkers(1, (key) => this.reconcile(key), {
        onError: (key, err) => this.log?.debug({ controller: 'provider', key, err: errorMessage(err) }, 'provider status failed; backing off'),
      });
    })();
    return this;
  }

  async stop(): Promise<void> {
    this.shutdown.abort();
    this.queue.shutDown();
    this.providers.stop();
    this.secrets.stop();
    for (const informer of this.resources) informer.stop();
    await this.workers;
  }

  /** resourcesOf counts the concrete resources (of every installed kind) naming `namespace/name`. */
  private resourcesOf(key: string, namespace: string): number {
    let n = 0;
    for (const informer of this.resources) for (const r of informer.store.list(namespace)) if (providerKeyOf(r) === key) n++;
    return n;
  }

  /** The Provider's credentials, read from the API (only when it is checked). */
  private async credentials(provider: KObject): Promise<CredentialsLookup> {
    const name = credentialsSecretOf(provider);
    if (name === undefined) return { kind: 'none' };
    const namespace = provider.metadata.namespace ?? '';
    const secret = `${namespace}/${name}`;
    try {
      return { kind: 'found', data: decodeSecretData(await this.client.get(builtinRefs.secrets, name, namespace)) };
    } catch (err) {
      if (isNotFound(err)) return { kind: 'missing', secret };
      return { kind: 'unreadable', secret, error: errorMessage(err) };
    }
  }

  /** check runs the modules' check on `provider` and remembers the verdict. */
  private async check(key: string, provider: KObject): Promise<LastCheck> {
    // Changes from here on (while the check runs) call for another check.
    this.changed.delete(key);
    const verdict = await providerReadiness(provider, this.modules, await this.credentials(provider), this.deadlines);
    const ready: ReadyVerdict = verdict.ready
      ? { status: 'True', reason: providerReasons.checkPassed, message: verdict.message ?? '' }
      : { status: 'False', reason: verdict.reason, message: verdict.message };
    // A throttled check comes back when the cloud asked (bounded to 5 minutes), not at the usual cadence.
    const waitMs = !verdict.ready && verdict.retryAfterSeconds !== undefined ? verdict.retryAfterSeconds * 1000 : this.recheckMs;
    const atProvider = verdict.ready ? verdict.atProvider : undefined;
    const last = { uid: provider.metadata.uid, generation: provider.metadata.generation, ready, atProvider, dueAt: Date.now() + waitMs };
    this.lastChecks.set(key, last);
    return last;
  }

  /**
   * reconcile writes one Provider's status: it checks the Provider when it is new to this
   * controller, changed, or due, and otherwise keeps the last verdict; `resources` is always
   * recounted. It comes back when the next check is due.
   */
  async reconcile(key: string): Promise<WorkResult> {
    const { namespace, name } = splitKey(key);
    const provider = this.providers.store.get(namespace, name);
    if (!provider) {
      this.lastChecks.delete(key);
      this.changed.delete(key);
      return;
    }
    let last = this.lastChecks.get(key);
    if (!last || this.changed.has(key) || last.uid !== provider.metadata.uid || last.generation !== provider.metadata.generation || Date.now() >= last.dueAt) {
      last = await this.check(key, provider);
    }
    const ready = { type: READY, ...last.ready, observedGeneration: last.generation };
    const status = isPlainObject(provider.status) ? provider.status : {};
    const conditions = setCondition(readConditions(status.conditions), ready, this.now());
    const next: Record<string, unknown> = { ...status, conditions, observedGeneration: last.generation, resources: this.resourcesOf(key, namespace) };
    // What the last passing check found; nothing once a check fails.
    if (last.atProvider) next.atProvider = last.atProvider;
    else delete next.atProvider;
    if (!deepEqual(status, next)) {
      // A conflict (the cache behind the server) is retried with backoff; the verdict is kept, so the check does not run again.
      await this.client.updateStatus(providerKind.ref, { ...provider, status: next }, { fieldManager: FIELD_MANAGER });
      const before = findCondition(readConditions(status.conditions), READY);
      if (before?.status !== ready.status || before.reason !== ready.reason) {
        this.log?.info(
          { controller: 'provider', provider: key, ready: ready.status, reason: ready.reason, message: ready.message },
          'provider readiness changed',
        );
      }
    }
    return { requeueAfterMs: Math.max(0, last.dueAt - Date.now()) };
  }
}
