/**
 * A ManagedReconciler keeps every resource of one concrete kind converged with the external
 * resource behind it (docs/design.md 3.2, 3.6 point 5), through the Client only:
 *
 *   finalizer → connect (Provider, credentials) → observe →
 *     missing:   crash guard → pending mark → create → outcome mark
 *     drifted:   update (unless ObserveOnly)
 *     ready:     connection Secret (Exclusive), Ready, Available
 *   deleting:   wait while a claim uses it (kept serving) →
 *               Retain / ObserveOnly: finalizer removed, external resource left in place
 *               Delete / Recycle: delete → observe until gone → finalizer removed
 *               (a Provider that does not exist, or cannot connect, never blocks
 *               it when nothing external was made)
 *
 * Successful reconciles come back after the poll interval to notice drift; failures come
 * back with per-resource exponential backoff — or, when the provider's error says when the
 * cloud asks to be called again (Retry-After of a throttling answer), after that time. Every transition a human cares about is an
 * Event on the resource, and the Synced condition carries the last error.
 */
import { cacheInformer, type CacheInformer } from '../../client/shared-informers.js';
import { errorMessage, type Logger } from '../../client/logger.js';
import { objectKey, splitKey } from '../../client/object-cache.js';
import { controllerRateLimiter } from '../../client/rate-limiter.js';
import { builtinRefs, resourceRef, type Client, type ResourceRef } from '../../client/types.js';
import { WorkQueue, type WorkResult } from '../../client/work-queue.js';
import { EXTERNAL_NAME_ANNOTATION, SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { providerKind } from '../../apis/core/kinds.js';
import { isConflict, isNotFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { deepEqual } from '../../machinery/object.js';
import {
  retryAfterSecondsOf,
  type ConcreteKind,
  type ConnectContext,
  type ConnectionDetails,
  type ExternalClient,
  type ExternalObservation,
  type SecretRef,
} from '../../providers/spi.js';
import { recordEvent, type EventType } from '../events.js';
import { concreteFields, type ConcreteFields } from './concrete-fields.js';
import { findCondition, readConditions } from './conditions.js';
import { connectContext, connectRedacted, DependencyNotFoundError, ProviderNotFoundError } from './connect-context.js';
import { claimsUsing, describeClaims, type ClaimInUse } from './claims-in-use.js';
import { CONNECTION_SECRET_SELECTOR, publishConnectionSecret } from './connection-secret.js';
import { lastCreateAttempt, outcomeTimestamp, pendingTimestamp } from './crash-guard.js';
import { pollIntervalFor } from './poll-interval.js';
import { deadlineClient, isCancelled, withDeadline, type CallResult, type DeadlineOptions, type ProviderCall } from './call-deadline.js';
import { resolveOptions, type ManagedReconcilerOptions, type ResolvedManagedReconcilerOptions } from './reconciler-options.js';
import { OwnWrites } from './own-writes.js';
import { LastWrites } from './last-writes.js';
import { CredentialSecrets } from './credential-secrets.js';
import { ResourceWrites } from './resource-writes.js';
import { IN_USE, READY, type ConditionState, type StatusChange } from './status.js';
import { describeBrokenShares, withBrokenShares } from './broken-shares.js';
import { notReadyRecheckMs } from './not-ready-recheck.js';

/** The reasons of the reconciler's conditions and Events. */

export const reasons = {
  // Synced
  reconcileSuccess: 'ReconcileSuccess',
  cannotConnect: 'CannotConnect',
  cannotObserve: 'CannotObserve',
  cannotCreate: 'CannotCreate',
  cannotUpdate: 'CannotUpdate',
  cannotDelete: 'CannotDelete',
  cannotPublishConnection: 'CannotPublishConnection',
  createPendingUnknownOutcome: 'CreatePendingUnknownOutcome',
  externalResourceMissing: 'ExternalResourceMissing',
  // Ready
  available: 'Available',
  creating: 'Creating',
  updating: 'Updating',
  notUpToDate: 'NotUpToDate',
  /** Ready=False: the provider says the external resource exists and matches but is not usable (its own reason when it gives no CamelCase one). */
  notReady: 'NotReady',
  deleting: 'Deleting',
  // InUse
  waitingForRelease: 'WaitingForRelease',
  released: 'Released',
  // Events only
  createdExternalResource: 'CreatedExternalResource',
  updatedExternalResource: 'UpdatedExternalResource',
  deletedExternalResource: 'DeletedExternalResource',
  releasedExternalResource: 'ReleasedExternalResource',
  retainedExternalResource: 'RetainedExternalResource',
  /** Deleting a resource whose provider cannot be reached, and that records no create: nothing external to wait for. */
  releasedWithoutProvider: 'ReleasedWithoutProvider',
  dependencyNotFound: 'DependencyNotFound',
  externalResourceLeft: 'ExternalResourceLeft',
  externalResourceReady: 'ExternalResourceReady',
  driftNotCorrected: 'DriftNotCorrected',
  shareDrift: 'ShareDrift',
} as const;

/** A ManagedReconcileError is a failed reconcile: the reason is the Synced condition's. */
export class ManagedReconcileError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ManagedReconcileError';
  }
}

const synced: ConditionState = { status: 'True', reason: reasons.reconcileSuccess, message: 'the external resource is reconciled' };
const notSynced = (reason: string, message: string): ConditionState => ({ status: 'False', reason, message });

/** A ManagedReconciler reconciles every resource of one concrete kind; see the file comment. */
export class ManagedReconciler<R extends KObject = KObject> {
  /** The Client's handle on the kind. */
  readonly ref: ResourceRef;
  readonly options: ResolvedManagedReconcilerOptions;
  private readonly log: Logger;
  private readonly managed: ResourceWrites<R>;
  /** The versions of its own writes: their watch events start no reconcile (the reconcile that wrote them knows). */
  private readonly ownWrites = new OwnWrites();
  /** The latest own write to each resource until the informer's cache shows it (when a reconcile must read the API). */
  private readonly lastWrites = new LastWrites();
  private readonly queue: WorkQueue;
  private informer?: CacheInformer<R>;
  /** Connection Secrets, when the process shares informers (else each publish reads its Secret). */
  private secrets?: CacheInformer;
  /** Providers of the system namespace, when the process shares informers (else each connect reads its Provider). */
  private providers?: CacheInformer;
  /** Credentials Secrets, each watched from its first use, when the process shares informers (else each connect reads its Secret). */
  private credentials?: CredentialSecrets;
  private workers?: Promise<void>;
  private stopped = false;
  /** Aborted by stop(): cancels every provider call still running. */
  private readonly shutdown = new AbortController();
  /**
   * Every provider call gets a signal aborted at `callTimeoutMs` or when the reconciler stops:
   * one options object for all of them, so that calls started together share their signals.
   */
  private readonly deadlines: DeadlineOptions;

  constructor(
    private readonly client: Client,
    readonly kind: ConcreteKind<R>,
    options: ManagedReconcilerOptions = {},
  ) {
    this.options = resolveOptions(options);
    this.deadlines = { timeoutMs: this.options.callTimeoutMs, shutdown: this.shutdown.signal, report: this.reportCall };
    this.ref = resourceRef(`${kind.group}/${kind.version}`, kind.kind, kind.plural, true);
    this.log = this.options.logger;
    this.managed = new ResourceWrites<R>(client, this.ref, this.options.fieldManager, this.options.now, this.ownWrites, this.lastWrites);
    this.queue = new WorkQueue({
      name: `managed-${kind.plural}.${kind.group}`,
      logger: this.log,
      metrics: this.options.metrics?.queues,
      rateLimiter: this.options.rateLimiter ?? controllerRateLimiter(this.options.backoff),
    });
  }

  /** start watches the kind and runs the workers; calling it again does nothing. */
  start(): this {
    if (this.informer || this.stopped) return this;
    const informer = cacheInformer<R>(this.client, this.options.informers, this.ref, { namespace: this.options.namespace }, this.log);
    this.informer = informer;
    informer.addHandler({
      onAdd: (obj) => {
        this.lastWrites.seen(obj);
        this.queue.add(objectKey(obj));
      },
      onUpdate: (old, obj) => {
        this.lastWrites.seen(obj);
        if (this.ownWrites.consume(obj) || !needsReconcile(old, obj)) return;
        // Being reconciled: judged when that reconcile ends (its own write's answer may still be on its way).
        if (!this.ownWrites.defer(obj)) this.queue.add(objectKey(obj));
      },
      onDelete: (obj) => {
        this.ownWrites.forget(obj);
        this.lastWrites.forget(obj);
      },
    });
    informer.start();
    this.secrets = this.options.informers?.informer(builtinRefs.secrets, { fieldSelector: CONNECTION_SECRET_SELECTOR });
    this.secrets?.start();
    this.providers = this.options.informers?.informer(providerKind.ref, { namespace: SYSTEM_NAMESPACE });
    this.providers?.start();
    this.credentials = this.options.informers ? new CredentialSecrets(this.options.informers) : undefined;
    this.workers = this.queue.runWorkers(this.options.workers, (key) => this.reconcile(key), {
      onError: (key, err) => this.log.debug({ controller: 'managed', kind: this.kind.kind, key, err: errorMessage(err) }, 'reconcile failed; backing off'),
    });
    this.log.info({ controller: 'managed', kind: this.kind.kind, group: this.kind.group }, 'managed reconciler started');
    return this;
  }

  /** stop ends the watch and the queue, and resolves once no reconcile is running. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.shutdown.abort();
    this.informer?.stop();
    this.secrets?.stop();
    this.providers?.stop();
    this.credentials?.stop();
    this.queue.shutDown();
    await this.workers;
  }

  /** enqueue asks for `namespace/name` to be reconciled soon. */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /**
   * enqueueChanged asks for `namespace/name` to be reconciled before the resources merely
   * queued (its kind's watch saw the external resource change): an observation a watch
   * triggered does not wait behind a burst of creates.
   */
  enqueueChanged(key: string): void {
    this.queue.addUrgent(key);
  }

  /**
   * reconcile brings one resource (`namespace/name`) a step closer to its desired state. It
   * throws when the step failed (the queue retries with backoff) and otherwise says when to
   * look again. A 409 Conflict on one of its own writes only asks to look again at once; a
   * failed step whose provider error carries a Retry-After is looked at again after it.
   */
  async reconcile(key: string): Promise<WorkResult> {
    this.ownWrites.begin(key);
    try {
      return await this.reconcileKey(key);
    } finally {
      // Someone else wrote the resource meanwhile: look again (the queue runs it once this one is done).
      if (this.ownWrites.end(key)) this.queue.add(key);
    }
  }

  private async reconcileKey(key: string): Promise<WorkResult> {
    const { namespace, name } = splitKey(key);
    const mr = await this.read(namespace, name);
    if (!mr) return;
    try {
      return await this.reconcileResource(mr);
    } catch (err) {
      if (isConflict(err)) {
        this.logFor(mr).debug({ err: errorMessage(err) }, 'resource changed while reconciling; looking again');
        return { requeueAfterMs: 0 };
      }
      const retryAfter = err instanceof ManagedReconcileError ? retryAfterSecondsOf(err.cause) : undefined;
      if (retryAfter !== undefined) {
        this.logFor(mr).debug({ err: errorMessage(err), retryAfterSeconds: retryAfter }, 'the provider asks to retry later; retrying then');
        return { requeueAfterMs: retryAfter * 1000 };
      }
      throw err;
    }
  }

  /**
   * read is the resource to reconcile: the informer's cached copy (a write from it is
   * compare-and-swap, so a copy behind someone else's write is a 409 and a new look), unless
   * the cache has not shown this reconciler's own latest write yet — then the API's. Undefined
   * when it does not exist.
   */
  private async read(namespace: string, name: string): Promise<R | undefined> {
    const cached = this.informer?.store.get(namespace, name);
    if (cached && this.lastWrites.usable(cached)) return cached;
    try {
      const live = await this.client.get<R>(this.ref, name, namespace);
      this.lastWrites.caughtUp(live, cached);
      return live;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private logFor(mr: KObject): Logger {
    const base = { controller: 'managed', kind: this.kind.kind, namespace: mr.metadata.namespace, name: mr.metadata.name };
    const log = this.log;
    return {
      debug: (o, m) => log.debug({ ...base, ...o }, m),
      info: (o, m) => log.info({ ...base, ...o }, m),
      warn: (o, m) => log.warn({ ...base, ...o }, m),
      error: (o, m) => log.error({ ...base, ...o }, m),
    };
  }

  private async event(mr: KObject, type: EventType, reason: string, message: string): Promise<void> {
    await recordEvent(this.client, mr, type, reason, message, {
      component: this.options.eventComponent,
      logger: this.log,
      now: this.options.now,
    });
  }

  /**
   * fail records a failed step — a Warning Event and Synced=False with the message — and
   * throws, so the queue retries the resource with backoff.
   */
  private async fail(mr: R, reason: string, message: string, cause?: unknown): Promise<never> {
    await this.event(mr, 'Warning', reason, message);
    const writeErr = await this.managed.writeStatusQuietly(mr, { synced: notSynced(reason, message) });
    if (writeErr) this.logFor(mr).warn({ err: errorMessage(writeErr) }, 'cannot write status after a failure');
    throw new ManagedReconcileError(reason, message, { cause });
  }

  /** Provider calls to the metrics, labelled with this kind's provider. */
  private readonly reportCall = (call: ProviderCall, result: CallResult, seconds: number): void =>
    this.options.metrics?.providerCalls?.called(this.options.provider, call.kind, call.op, result, seconds);

  /**
   * connectWithDeadline connects with the call deadline; the client it returns gives each of
   * its calls a deadline of its own (`deadlineClient`).
   */
  private async connectWithDeadline(mr: R, context: ConnectContext): Promise<ExternalClient<R>> {
    const external = await withDeadline({ op: 'connect', kind: this.kind.kind, resource: mr }, this.deadlines, (signal) =>
      connectRedacted(this.kind, mr, { ...context, signal }),
    );
    return deadlineClient(external, this.kind.kind, this.deadlines);
  }

  private describe(mr: KObject): string {
    const external = mr.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
    return external ? `external resource "${external}"` : 'external resource';
  }

  private async reconcileResource(mr: R): Promise<WorkResult> {
    const fields = concreteFields(mr, this.kind.sharing);
    if (mr.metadata.deletionTimestamp) {
      if (!this.managed.hasFinalizer(mr)) return;
      return this.reconcileDeletion(mr, fields);
    }
    // The finalizer is in place before any provider call, so nothing external outlives the resource unnoticed.
    mr = await this.managed.addFinalizer(mr);

    const poll = pollIntervalFor(mr, this.options.pollIntervalMs);
    if (poll.problem) this.logFor(mr).warn({ problem: poll.problem }, 'ignoring the poll-interval annotation');

    const external = await this.connect(mr, fields);
    try {
      return await this.reconcileExternal(mr, fields, external, poll.ms);
    } finally {
      await this.close(mr, external);
    }
  }

  private async connect(mr: R, fields: ConcreteFields): Promise<ExternalClient<R>> {
    try {
      const context = await connectContext(this.client, this.kind, mr, fields.providerName, this.cachedProvider, this.cachedCredentials);
      return await this.connectWithDeadline(mr, context);
    } catch (err) {
      return this.fail(mr, reasons.cannotConnect, `cannot connect to the provider: ${errorMessage(err)}`, err);
    }
  }

  /** cachedProvider answers from the providers informer (Providers of the system namespace) when it holds the Provider. */
  private readonly cachedProvider = (namespace: string, name: string): KObject | undefined =>
    namespace === SYSTEM_NAMESPACE ? this.providers?.store.get(namespace, name) : undefined;

  /** cachedCredentials answers from the informer on the credentials Secret, when it holds it. */
  private readonly cachedCredentials = (ref: SecretRef): Record<string, string> | undefined => this.credentials?.lookup(ref);

  private async close(mr: R, external: ExternalClient<R>): Promise<void> {
    try {
      await external.close?.();
    } catch (err) {
      this.logFor(mr).warn({ err: errorMessage(err) }, 'cannot close the external client');
    }
  }

  private async observe(mr: R, external: ExternalClient<R>): Promise<ExternalObservation> {
    try {
      return await external.observe(mr);
    } catch (err) {
      return this.fail(mr, reasons.cannotObserve, `cannot observe ${this.describe(mr)}: ${errorMessage(err)}`, err);
    }
  }

  /** publish writes connection details for Exclusive resources; Shared ones publish per claim (the binder). */
  private async publish(mr: R, fields: ConcreteFields, details: ConnectionDetails | undefined): Promise<void> {
    if (fields.sharing !== 'Exclusive' || !details || Object.keys(details).length === 0) return;
    try {
      const result = await publishConnectionSecret(
        this.client,
        mr,
        fields.connectionSecretName,
        details,
        this.options.fieldManager,
        this.secrets && ((ns, name) => this.secrets?.store.get(ns, name)),
      );
      if (result !== 'Unchanged') this.logFor(mr).info({ secret: fields.connectionSecretName, result }, 'published connection details');
    } catch (err) {
      if (isConflict(err)) throw err;
      await this.fail(mr, reasons.cannotPublishConnection, `cannot publish connection details: ${errorMessage(err)}`, err);
    }
  }

  private async reconcileExternal(mr: R, fields: ConcreteFields, external: ExternalClient<R>, pollMs: number): Promise<WorkResult> {
    const observed = await this.observe(mr, external);
    const observeOnly = fields.managementPolicy === 'ObserveOnly';
    const broken = observed.brokenShares ?? [];
    if (broken.length > 0) {
      await this.event(mr, 'Warning', reasons.shareDrift, `${describeBrokenShares(broken)}; the claim controller recreates what is missing`);
    }
    const observation: ExternalObservation = { ...observed, atProvider: withBrokenShares(observed.atProvider, broken, this.options.now()) };
    const poll: WorkResult = { requeueAfterMs: pollMs };

    if (!observation.exists) {
      if (observeOnly) {
        const message = `the ${this.describe(mr)} does not exist, and managementPolicy ObserveOnly forbids creating it`;
        await this.event(mr, 'Warning', reasons.externalResourceMissing, message);
        await this.managed.writeStatus(mr, {
          ready: { status: 'False', reason: reasons.externalResourceMissing, message },
          synced: notSynced(reasons.externalResourceMissing, message),
          phase: 'Failed',
        });
        return poll;
      }
      return this.create(mr, fields, external, pollMs);
    }

    if (!observation.upToDate) {
      const drift = observation.drift || 'the external resource differs from the spec';
      if (observeOnly) {
        const message = `${drift}; managementPolicy ObserveOnly leaves the external resource as it is`;
        await this.event(mr, 'Warning', reasons.driftNotCorrected, message);
        await this.managed.writeStatus(mr, {
          ready: { status: 'False', reason: reasons.notUpToDate, message },
          synced,
          ...(observation.atProvider ? { atProvider: observation.atProvider } : {}),
        });
        await this.publish(mr, fields, observation.connectionDetails);
        return poll;
      }
      // Not ready while the update runs (e.g. a server that stopped is being started again).
      mr = await this.managed.writeStatus(mr, {
        ready: { status: 'False', reason: reasons.updating, message: `correcting drift: ${drift}` },
        synced,
        ...(observation.atProvider ? { atProvider: observation.atProvider } : {}),
      });
      let updated;
      try {
        updated = await external.update(mr);
      } catch (err) {
        return this.fail(mr, reasons.cannotUpdate, `cannot update ${this.describe(mr)} (drift: ${drift}): ${errorMessage(err)}`, err);
      }
      await this.event(mr, 'Normal', reasons.updatedExternalResource, `updated ${this.describe(mr)} to correct drift: ${drift}`);
      await this.publish(mr, fields, updated.connectionDetails);
      await this.managed.writeStatus(mr, {
        ready: { status: 'False', reason: reasons.updating, message: `corrected drift (${drift}); observing the result` },
        synced,
        ...(observation.atProvider ? { atProvider: observation.atProvider } : {}),
      });
      // Observe again at once: the update's effect decides Ready.
      return { requeueAfterMs: 0 };
    }

    return this.settle(mr, fields, observation, pollMs);
  }

  /**
   * settle records an observation of an external resource that exists and matches the spec:
   * Ready=False with the provider's reason while it is not usable (looked at again soon), else
   * its connection details published and Ready=True.
   */
  private async settle(mr: R, fields: ConcreteFields, observation: ExternalObservation, pollMs: number): Promise<WorkResult> {
    const poll: WorkResult = { requeueAfterMs: pollMs };
    if (observation.notReady) {
      // Exists and matches, but not usable yet (or no longer): say why, and look again soon —
      // the sooner the more recently it became not ready.
      const before = findCondition(readConditions(statusOf(mr).conditions), READY);
      const since = before?.status === 'False' && before.lastTransitionTime ? Date.parse(before.lastTransitionTime) : undefined;
      const reason = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/.test(observation.notReady.reason) ? observation.notReady.reason : reasons.notReady;
      await this.managed.writeStatus(mr, {
        ready: { status: 'False', reason, message: observation.notReady.message },
        synced,
        ...(observation.atProvider ? { atProvider: observation.atProvider } : {}),
      });
      return { requeueAfterMs: notReadyRecheckMs(since, this.options.now().getTime(), pollMs) };
    }
    await this.publish(mr, fields, observation.connectionDetails);
    const wasReady = findCondition(readConditions(statusOf(mr).conditions), READY)?.status === 'True';
    const change: StatusChange = {
      ready: { status: 'True', reason: reasons.available, message: 'the external resource exists and matches the spec' },
      synced,
      phase: 'Available',
      ...(observation.atProvider ? { atProvider: observation.atProvider } : {}),
    };
    await this.managed.writeStatus(mr, change);
    if (!wasReady) await this.event(mr, 'Normal', reasons.externalResourceReady, `the ${this.describe(mr)} is ready`);
    return poll;
  }

  private async create(mr: R, fields: ConcreteFields, external: ExternalClient<R>, pollMs: number): Promise<WorkResult> {
    const attempt = lastCreateAttempt(mr.metadata.annotations);
    if (attempt.state === 'Incomplete' && !this.kind.deterministicExternalNames) {
      // The last create may have made something the provider cannot find by name: creating again could make a second one.
      const message =
        `create was called at ${attempt.pendingSince} and its outcome was never recorded (the controller stopped or the call timed out), ` +
        `so the external resource may exist although observe cannot find it; not creating it again. Check the provider, then either set ` +
        `the annotations ${EXTERNAL_NAME_ANNOTATION} and conductor.io/external-create-succeeded, or remove conductor.io/external-create-pending to create anew`;
      await this.event(mr, 'Warning', reasons.createPendingUnknownOutcome, message);
      await this.managed.writeStatus(mr, {
        ready: { status: 'False', reason: reasons.createPendingUnknownOutcome, message: 'the outcome of an earlier create is unknown' },
        synced: notSynced(reasons.createPendingUnknownOutcome, message),
        phase: 'Failed',
      });
      return { requeueAfterMs: pollMs };
    }

    const pendingAt = pendingTimestamp(mr.metadata.annotations, this.options.now());
    mr = await this.managed.markCreatePending(mr, pendingAt);
    let created;
    try {
      created = await external.create(mr);
    } catch (err) {
      if (isCancelled(err)) {
        // The call may still succeed: leave the pending mark without an outcome.
        return this.fail(mr, reasons.cannotCreate, `cannot create the external resource: ${err.message}; its outcome is unknown`, err);
      }
      try {
        mr = await this.managed.recordCreateOutcome(mr, 'Failed', outcomeTimestamp(pendingAt, this.options.now()));
      } catch (markErr) {
        this.logFor(mr).error({ err: errorMessage(markErr) }, 'cannot record that create failed');
      }
      return this.fail(mr, reasons.cannotCreate, `cannot create the external resource: ${errorMessage(err)}`, err);
    }
    try {
      mr = await this.managed.recordCreateOutcome(mr, 'Succeeded', outcomeTimestamp(pendingAt, this.options.now()), created.externalName);
    } catch (err) {
      return this.fail(mr, reasons.cannotCreate, `created the external resource but ${errorMessage(err)}`, err);
    }
    await this.event(mr, 'Normal', reasons.createdExternalResource, `created ${this.describe(mr)}`);
    await this.publish(mr, fields, created.connectionDetails);
    // Observe at once, with the same client: the observation decides Ready.
    const settled = await this.observeCreated(mr, fields, external, pollMs);
    if (settled) return settled;
    await this.managed.writeStatus(mr, {
      ready: { status: 'False', reason: reasons.creating, message: 'the external resource was created; observing it' },
      synced,
    });
    return { requeueAfterMs: 0 };
  }

  /**
   * observeCreated observes the external resource right after create. When the provider
   * already sees it, as made (exists, up to date, no broken shares), that observation is
   * recorded at once — one status write (Ready, or not ready with the provider's reason)
   * instead of "Creating" followed by a second reconcile. Anything else (not visible yet, as a
   * cloud's eventually consistent reads may say, drift, a failed observe) returns undefined:
   * the caller records "Creating" and the next reconcile observes as usual — never a second
   * create or an update from here.
   */
  private async observeCreated(mr: R, fields: ConcreteFields, external: ExternalClient<R>, pollMs: number): Promise<WorkResult | undefined> {
    let observed: ExternalObservation;
    try {
      observed = await external.observe(mr);
    } catch (err) {
      this.logFor(mr).debug({ err: errorMessage(err) }, 'cannot observe the external resource just created; observing it again');
      return undefined;
    }
    if (!observed.exists || !observed.upToDate || (observed.brokenShares ?? []).length > 0) return undefined;
    return this.settle(mr, fields, { ...observed, atProvider: withBrokenShares(observed.atProvider, [], this.options.now()) }, pollMs);
  }

  private async reconcileDeletion(mr: R, fields: ConcreteFields): Promise<WorkResult> {
    // In-use protection comes first: whatever the policies, nothing happens while a claim uses it.
    const users = await claimsUsing(this.client, mr, fields.sharing);
    if (users.length > 0) return this.waitForRelease(mr, fields, users);
    mr = await this.markReleased(mr);

    if (fields.managementPolicy === 'ObserveOnly') {
      await this.managed.removeFinalizer(mr);
      await this.event(mr, 'Normal', reasons.releasedExternalResource, `released the ${this.describe(mr)}; managementPolicy ObserveOnly leaves it in place`);
      return;
    }
    if (fields.rebindPolicy === 'Retain') {
      // Retain: the data outlives the object. No provider call at all, so nothing can touch it.
      await this.managed.removeFinalizer(mr);
      await this.event(
        mr,
        'Normal',
        reasons.retainedExternalResource,
        `deleted only the object: rebindPolicy Retain leaves the ${this.describe(mr)} and its data in place for an administrator to recover or remove`,
      );
      return;
    }
    const external = await this.connectForDeletion(mr, fields);
    if (!external) return;
    try {
      if (this.kind.lifecycle === 'Registered') {
        // Registered resources exist independently: delete only forgets them.
        await this.delete(mr, external);
        await this.managed.removeFinalizer(mr);
        await this.event(mr, 'Normal', reasons.releasedExternalResource, `released the registered ${this.describe(mr)}; it is not deleted`);
        return;
      }
      let observation = await this.observe(mr, external);
      if (observation.exists) {
        await this.delete(mr, external);
        observation = await this.observe(mr, external);
      }
      if (observation.exists) {
        await this.managed.writeStatus(mr, {
          ready: { status: 'False', reason: reasons.deleting, message: 'deleting the external resource; waiting for the provider to report it gone' },
          synced,
        });
        return { requeueAfterMs: this.options.deletionCheckMs };
      }
      const attempt = lastCreateAttempt(mr.metadata.annotations);
      if (attempt.state === 'Incomplete' && !this.kind.deterministicExternalNames) {
        await this.event(
          mr,
          'Warning',
          reasons.createPendingUnknownOutcome,
          `the outcome of the create called at ${attempt.pendingSince} is unknown: an external resource the provider cannot find may be left behind`,
        );
      }
      await this.managed.removeFinalizer(mr);
      await this.event(mr, 'Normal', reasons.deletedExternalResource, `the ${this.describe(mr)} is gone`);
      return;
    } finally {
      await this.close(mr, external);
    }
  }

  /**
   * waitForRelease keeps a resource whose deletion was requested while claims still use it:
   * the InUse condition and an Event say which claims it waits for, the external resource
   * keeps being reconciled (the claims still work), and the claims are looked at again soon.
   */
  private async waitForRelease(mr: R, fields: ConcreteFields, users: readonly ClaimInUse[]): Promise<WorkResult> {
    const message =
      `deletion requested; waiting for ${describeClaims(users)} to release this resource. The external resource is left ` +
      `untouched until then; afterwards rebindPolicy ${fields.rebindPolicy} applies`;
    const before = findCondition(readConditions(statusOf(mr).conditions), IN_USE);
    if (before?.status !== 'True' || before.message !== message) {
      await this.event(mr, 'Normal', reasons.waitingForRelease, message);
      mr = await this.managed.writeStatus(mr, { inUse: { status: 'True', reason: reasons.waitingForRelease, message } });
    }
    const again: WorkResult = { requeueAfterMs: Math.min(this.options.inUseCheckMs, pollIntervalFor(mr, this.options.pollIntervalMs).ms) };
    if (fields.managementPolicy === 'ObserveOnly') return again;
    try {
      const external = await this.connect(mr, fields);
      try {
        await this.reconcileExternal(mr, fields, external, this.options.pollIntervalMs);
      } finally {
        await this.close(mr, external);
      }
    } catch (err) {
      // A failed step is already in Synced and an Event; the claims are what to look at next, not a backoff.
      if (!(err instanceof ManagedReconcileError)) throw err;
    }
    return again;
  }

  /** markReleased turns an InUse=True condition False once no claim uses the resource. */
  private async markReleased(mr: R): Promise<R> {
    if (findCondition(readConditions(statusOf(mr).conditions), IN_USE)?.status !== 'True') return mr;
    return this.managed.writeStatus(mr, {
      inUse: { status: 'False', reason: reasons.released, message: 'no claim uses this resource any more; deleting it by its policies' },
    });
  }

  /**
   * connectForDeletion connects for deleting the external resource. An object that does not
   * exist never blocks a deletion that needs nothing from it: when the resource is
   * registered (delete only forgets it) or records no create (no pending mark, or only a
   * failed create, and no external name), nothing external was made, so the finalizer goes at
   * once. When it records a create and the Provider is missing (its providerRef was changed,
   * or the Provider was deleted in a race with the provider-in-use check), the connector is
   * tried without the Provider, and if that fails too the finalizer goes with a Warning Event
   * naming what may be left. A missing credentials Secret of a created resource keeps the
   * deletion waiting (restoring the Secret lets it finish). Any other failure to connect
   * (credentials the connector refuses, an unreachable cloud) releases a Managed resource that
   * records nothing external (Event ReleasedWithoutProvider) and keeps one that does waiting,
   * with Synced=False CannotConnect saying what to fix. Returns undefined when the finalizer is
   * gone.
   */
  private async connectForDeletion(mr: R, fields: ConcreteFields): Promise<ExternalClient<R> | undefined> {
    const attempt = lastCreateAttempt(mr.metadata.annotations);
    const nothingMade = nothingExternalRecorded(mr);
    try {
      const context = await connectContext(this.client, this.kind, mr, fields.providerName);
      return await this.connectWithDeadline(mr, context);
    } catch (err) {
      if (!(err instanceof DependencyNotFoundError)) {
        if (this.kind.lifecycle === 'Managed' && nothingMade) {
          // Broken credentials (or an unreachable cloud) cannot hold what was never made.
          await this.managed.removeFinalizer(mr);
          await this.event(
            mr,
            'Normal',
            reasons.releasedWithoutProvider,
            `the provider cannot be reached (${errorMessage(err)}), but no create was ever recorded for this resource, so nothing external was made: deleted the object`,
          );
          return undefined;
        }
        return this.fail(
          mr,
          reasons.cannotConnect,
          `cannot delete ${this.describe(mr)}: cannot connect to the provider: ${errorMessage(err)}; ${fixToDelete(fields.providerName)}`,
          err,
        );
      }
      if (this.kind.lifecycle === 'Registered' || nothingMade) {
        await this.managed.removeFinalizer(mr);
        const why =
          this.kind.lifecycle === 'Registered'
            ? 'a registered resource is only forgotten'
            : 'no create was ever recorded for this resource, so nothing external was made';
        await this.event(mr, 'Normal', reasons.dependencyNotFound, `${err.what} does not exist; ${why}: deleted the object`);
        return undefined;
      }
      if (!(err instanceof ProviderNotFoundError)) {
        return this.fail(mr, reasons.cannotConnect, `cannot delete ${this.describe(mr)}: ${errorMessage(err)}; restore it so the deletion can finish`, err);
      }
      try {
        const context = await connectContext(this.client, this.kind, mr, undefined);
        return await this.connectWithDeadline(mr, context);
      } catch (fallbackErr) {
        await this.managed.removeFinalizer(mr);
        const made =
          attempt.state === 'Incomplete'
            ? `a create was started at ${attempt.pendingSince} (outcome unknown)`
            : `it was created${attempt.state === 'Succeeded' ? ` at ${attempt.at}` : ''}`;
        await this.event(
          mr,
          'Warning',
          reasons.externalResourceLeft,
          `${err.what} named by spec.providerRef does not exist and the provider cannot be reached without it (${errorMessage(fallbackErr)}): ` +
            `the ${this.describe(mr)} may be left behind (${made}); deleted the object anyway — remove the external resource by hand`,
        );
        return undefined;
      }
    }
  }

  private async delete(mr: R, external: ExternalClient<R>): Promise<void> {
    try {
      await external.delete(mr);
    } catch (err) {
      await this.fail(mr, reasons.cannotDelete, `cannot delete ${this.describe(mr)}: ${errorMessage(err)}`, err);
    }
  }
}

/**
 * nothingExternalRecorded tells whether the resource records that nothing external was made
 * for it: no create started (or only failed ones), no external name (set by a successful
 * create, or by an administrator importing an existing resource) and no observation of an
 * existing one (`status.atProvider`, written only by the controller). Annotations of a
 * concrete resource are written by this controller and by infrastructure admins only (tenants
 * cannot write concrete resources); an unreadable create mark counts as a create.
 */
export function nothingExternalRecorded(mr: KObject): boolean {
  const attempt = lastCreateAttempt(mr.metadata.annotations);
  if (attempt.state !== 'None' && attempt.state !== 'Failed') return false;
  if (mr.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION]) return false;
  const atProvider = statusOf(mr).atProvider;
  return !(typeof atProvider === 'object' && atProvider !== null && Object.keys(atProvider).length > 0);
}

/** fixToDelete says what lets the deletion of a resource that records an external one finish when the provider cannot be reached. */
function fixToDelete(providerName: string | undefined): string {
  const provider = providerName ? `Provider ${providerName}` : 'the provider';
  return (
    `this resource records an external resource (created or imported), so the deletion waits to delete it: fix what stops ${provider} ` +
    `from connecting — usually its credentials Secret (spec.credentialsSecretRef); the Provider's Ready condition says what is wrong — and the deletion finishes`
  );
}

function statusOf(obj: KObject): Record<string, unknown> {
  const s = obj.status;
  return typeof s === 'object' && s !== null && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}

/**
 * needsReconcile tells whether an update is worth a reconcile: a new spec (generation),
 * changed annotations, labels or finalizers, or deletion starting. Status-only updates — the
 * reconciler's own, or the binder's — are not; drift is found by polling.
 */
export function needsReconcile(old: KObject, obj: KObject): boolean {
  if (old.metadata.resourceVersion === obj.metadata.resourceVersion) return false;
  const a = old.metadata;
  const b = obj.metadata;
  return (
    a.generation !== b.generation ||
    a.deletionTimestamp !== b.deletionTimestamp ||
    !deepEqual(a.annotations ?? {}, b.annotations ?? {}) ||
    !deepEqual(a.labels ?? {}, b.labels ?? {}) ||
    !deepEqual(a.finalizers ?? [], b.finalizers ?? [])
  );
}
