/**
 * A PoolController keeps the warm pools of ResourceClasses (docs/design.md 3.6 point 6): a class
 * with `pool.minFree > 0` has that many unbound resources of its template provisioned, so a
 * claim of its profile binds at once to one of them (the scheduler prefers existing
 * Available resources to provisioning); `pool.maxFree` caps the unbound ones and
 * `pool.maxInstances` all of the class's resources. See sizing.ts for the decision.
 *
 * It works through the Client only: an informer on ResourceClasses, one per concrete kind
 * (indexed by the class label), and a work queue of class keys. Every pass is
 * level-triggered from the caches; members are created under deterministic names
 * (`<class>-pool-<n>`, lowest free n) so a crash or retry finds what an earlier attempt made
 * (AlreadyExists counts as done), and deletions are compare-and-swap on the member's
 * resourceVersion so a member a claim has just taken is never deleted.
 */
import type { ControllerMetrics } from '../metrics.js';
import { cacheInformer, type CacheInformer, type SharedInformers } from '../../client/shared-informers.js';
import { errorMessage, silentLogger, type Logger } from '../../client/logger.js';
import type { Client, ResourceRef } from '../../client/types.js';
import { WorkQueue } from '../../client/work-queue.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { apiRefs, SYSTEM_NAMESPACE } from '../../apis/index.js';
import { recordEvent, type EventType } from '../events.js';
import { Expectations } from './expectations.js';
import { buildPoolMember, describeMembers, memberOf, type PoolMember } from './members.js';
import { classLabelOf, classLabelValue, classOfLabel } from '../claims/labels.js';
import { nextFreeNames } from './names.js';
import { poolSettingsOf, poolTemplateOf, type PoolSettings, type PoolTemplate } from './pool-settings.js';
import { planPool, type PoolPlan } from './sizing.js';

/** Event reasons the pool manager records on ResourceClasses. */
export const poolReasons = {
  scaledUp: 'PoolScaledUp',
  scaledDown: 'PoolScaledDown',
  capped: 'PoolCapped',
  cannotScaleUp: 'PoolScaleUpFailed',
  templateUnsupported: 'PoolTemplateUnsupported',
} as const;

/** The field manager of the pool manager's writes. */
export const POOL_FIELD_MANAGER = 'conductor-pool-manager';

/** PoolControllerOptions configure a PoolController; only `kinds` is required. */
export interface PoolControllerOptions {
  metrics?: ControllerMetrics;
  /** The concrete kinds pool members may be (their CRDs must be served). */
  kinds: readonly ResourceRef[];
  logger?: Logger;
  /** Classes sized in parallel (each class by one worker at a time); default 2. */
  workers?: number;
  /** How long a pass waits for the cache to show the previous pass's writes; default 30 s. */
  expectationTimeoutMs?: number;
  /** Watch the classes and resources of this namespace only; default all. */
  namespace?: string;
  /**
   * Where members are created, whatever their class's namespace: `namespace` when set, else
   * this (default `conductor-system`). A member's Secrets live beside it, and a class may sit
   * in a tenant's namespace, whose developers must not read other tenants' Secrets.
   */
  memberNamespace?: string;
  /** Informers shared with the process's other controllers; default private ones. */
  informers?: SharedInformers;
}

interface KindEntry {
  ref: ResourceRef;
  informer: CacheInformer;
}

const CLASS_INDEX = 'pool-class';

function kindKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}

function splitClassKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export class PoolController {
  private readonly classes: CacheInformer;
  private readonly kinds = new Map<string, KindEntry>();
  private readonly queue: WorkQueue;
  private readonly expectations: Expectations;
  private readonly log: Logger;
  private running?: Promise<void>;

  constructor(
    private readonly client: Client,
    private readonly opts: PoolControllerOptions,
  ) {
    this.log = opts.logger ?? silentLogger;
    this.queue = new WorkQueue({ name: 'pools', qps: 50, burst: 200, metrics: opts.metrics?.queues });
    this.expectations = new Expectations(opts.expectationTimeoutMs ?? 30_000);
    const scope = opts.namespace ? { namespace: opts.namespace } : {};
    this.classes = cacheInformer(client, opts.informers, apiRefs.resourceclasses, scope, this.log);
    for (const ref of opts.kinds) {
      this.kinds.set(kindKey(ref.group, ref.kind), { ref, informer: cacheInformer(client, opts.informers, ref, scope, this.log) });
    }
  }

  /** start fills the caches, then sizes every class's pool and keeps doing so as things change. */
  async start(): Promise<void> {
    this.classes.addHandler({
      onAdd: (c) => this.enqueueClass(c.metadata.namespace, c.metadata.name),
      onUpdate: (_old, c) => this.enqueueClass(c.metadata.namespace, c.metadata.name),
      onDelete: (c) => this.enqueueClass(c.metadata.namespace, c.metadata.name),
    });
    for (const entry of this.kinds.values()) {
      entry.informer.addIndexer(CLASS_INDEX, (o) => {
        const label = classLabelOf(o);
        return label ? [label] : [];
      });
      entry.informer.addHandler({
        onAdd: (o) => this.enqueueOwner(o),
        onUpdate: (old, o) => {
          this.enqueueOwner(o);
          if (classLabelOf(old) !== classLabelOf(o)) this.enqueueOwner(old);
        },
        onDelete: (o) => this.enqueueOwner(o),
      });
    }
    const informers = [this.classes, ...[...this.kinds.values()].map((e) => e.informer)];
    for (const i of informers) i.start();
    await Promise.all(informers.map((i) => i.waitForSync()));
    this.running = this.queue.runWorkers(this.opts.workers ?? 2, (key) => this.reconcile(key), {
      onError: (key, err) => this.log.warn({ class: key, err: errorMessage(err) }, 'cannot size pool; retrying with backoff'),
    });
  }

  /** stop ends the workers and informers; a pass in progress finishes its current write. */
  stop(): void {
    this.queue.shutDown();
    this.classes.stop();
    for (const e of this.kinds.values()) e.informer.stop();
  }

  /** stopped resolves once every worker is idle after stop(). */
  async stopped(): Promise<void> {
    await this.running;
  }

  private enqueueClass(namespace: string | undefined, name: string | undefined): void {
    if (namespace && name) this.queue.add(`${namespace}/${name}`);
  }

  private enqueueOwner(resource: KObject): void {
    const cls = classOfLabel(classLabelOf(resource));
    if (cls) this.enqueueClass(cls.namespace, cls.name);
  }

  /** The resources of a class, of every watched kind, from the caches. */
  private resourcesOf(namespace: string, name: string): KObject[] {
    const label = classLabelValue(namespace, name);
    const out: KObject[] = [];
    for (const e of this.kinds.values()) out.push(...e.informer.store.byIndex(CLASS_INDEX, label));
    return out;
  }

  /** Where the pool's members live. */
  private get memberNamespace(): string {
    return this.opts.namespace ?? this.opts.memberNamespace ?? SYSTEM_NAMESPACE;
  }

  private nameTaken(namespace: string, name: string): boolean {
    for (const e of this.kinds.values()) if (e.informer.store.get(namespace, name)) return true;
    return false;
  }

  private async reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const { namespace, name } = splitClassKey(key);
    const live = this.classes.store.get(namespace, name);
    // A class without a pool has nothing to size (planPool of zero settings is empty): its
    // resources, thousands perhaps and each change enqueueing the class, are not read.
    if (live && !live.metadata.deletionTimestamp && !hasPool(poolSettingsOf(live)) && !this.expectations.outstanding(key)) return;
    const resources = this.resourcesOf(namespace, name);
    const waitMs = this.expectations.waitMs(key, {
      created: (n) => this.nameTaken(this.memberNamespace, n),
      deleted: (uid) => !resources.some((r) => r.metadata.uid === uid && !r.metadata.deletionTimestamp),
    });
    if (waitMs > 0) return { requeueAfterMs: waitMs };

    const members = resources.map(memberOf);
    const cls = this.classes.store.get(namespace, name);
    if (!cls || cls.metadata.deletionTimestamp) return this.drain(key, members);

    const settings = poolSettingsOf(cls);
    const plan = planPool(settings, members);
    if (plan.create > 0) await this.fill(key, cls, settings, plan);
    if (plan.delete.length > 0) await this.trim(key, cls, settings, plan);
    if (plan.capped) {
      const why = `cannot keep minFree ${settings.minFree} resources free: the class has ${plan.instances} of maxInstances ${settings.maxInstances} (${plan.free} free)`;
      await this.event(cls, 'Warning', poolReasons.capped, why);
    }
  }

  /** Creates plan.create members under the lowest free names. */
  private async fill(key: string, cls: KObject, settings: PoolSettings, plan: PoolPlan): Promise<void> {
    const namespace = this.memberNamespace;
    const className = cls.metadata.name!;
    const template = poolTemplateOf(cls);
    if ('problem' in template) {
      await this.event(cls, 'Warning', poolReasons.templateUnsupported, `cannot fill the pool: ${template.problem}`);
      return;
    }
    const entry = this.kinds.get(kindKey(template.group, template.kind));
    if (!entry) {
      const why = `cannot fill the pool: template kind ${template.kind} (${template.apiVersion}) is not one the pool manager watches; expected a kind of an installed provider`;
      await this.event(cls, 'Warning', poolReasons.templateUnsupported, why);
      return;
    }
    const names = nextFreeNames(className, plan.create, (n) => this.nameTaken(namespace, n));
    const made: string[] = [];
    try {
      for (const memberName of names) {
        await this.createMember(entry, cls, template, memberName);
        made.push(memberName);
      }
    } catch (err) {
      await this.event(cls, 'Warning', poolReasons.cannotScaleUp, `cannot create ${template.kind} ${namespace}/${names[made.length]}: ${errorMessage(err)}`);
      throw err;
    } finally {
      this.expectations.expect(key, { creates: made });
      if (made.length > 0) {
        this.log.info({ class: key, created: made, free: plan.free, minFree: settings.minFree }, 'pool scaled up');
        const what = `created ${template.kind} ${made.join(', ')} to keep minFree ${settings.minFree} resources free (${plan.free} were free)`;
        await this.event(cls, 'Normal', poolReasons.scaledUp, what);
      }
    }
  }

  /** Creates one member; one that exists already (an earlier attempt's) counts as created. */
  private async createMember(entry: KindEntry, cls: KObject, template: PoolTemplate, memberName: string): Promise<void> {
    try {
      await this.client.create(entry.ref, buildPoolMember(cls, template, memberName, this.memberNamespace), { fieldManager: POOL_FIELD_MANAGER });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  /** Deletes plan.delete, each only if it has not changed since the cache saw it. */
  private async trim(key: string, cls: KObject, settings: PoolSettings, plan: PoolPlan): Promise<void> {
    const deleted = await this.deleteMembers(key, plan.delete);
    if (deleted.length === 0) return;
    const why =
      plan.trimReason === 'over-cap'
        ? `the class has ${plan.instances} resources, above maxInstances ${settings.maxInstances}`
        : `${plan.free} resources are free, above maxFree ${Math.max(settings.maxFree, settings.minFree)}`;
    this.log.info({ class: key, deleted: deleted.map((m) => m.name), free: plan.free, instances: plan.instances }, 'pool scaled down');
    await this.event(cls, 'Normal', poolReasons.scaledDown, `deleted free ${describeMembers(deleted)}: ${why}`);
  }

  /**
   * A class that is gone leaves nothing to keep its pool: its free members are deleted
   * (members a claim holds stay, like any resource a claim was provisioned with).
   */
  private async drain(key: string, members: PoolMember[]): Promise<void> {
    const free = members.filter((m) => m.pooled && m.state === 'free');
    if (free.length === 0) {
      this.expectations.forget(key);
      return;
    }
    const deleted = await this.deleteMembers(key, free);
    if (deleted.length > 0) this.log.info({ class: key, deleted: deleted.map((m) => m.name) }, 'class deleted; its free pool members deleted');
  }

  /**
   * Deletes members with their uid and resourceVersion as preconditions: a 409 means the
   * member changed (maybe a claim took it) and the change's event brings the class back;
   * a 404 means it is gone already. Returns the members deleted (or already gone).
   */
  private async deleteMembers(key: string, members: readonly PoolMember[]): Promise<PoolMember[]> {
    const done: PoolMember[] = [];
    const uids: string[] = [];
    try {
      for (const m of members) {
        const entry = this.entryOfMember(m);
        if (!entry) continue;
        try {
          await this.client.delete(entry.ref, m.name, {
            namespace: m.namespace,
            preconditions: { ...(m.uid ? { uid: m.uid } : {}), ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}) },
          });
        } catch (err) {
          if (isConflict(err)) continue;
          if (!isNotFound(err)) throw err;
        }
        done.push(m);
        if (m.uid) uids.push(m.uid);
      }
    } finally {
      this.expectations.expect(key, { deletes: uids });
    }
    return done;
  }

  private entryOfMember(m: PoolMember): KindEntry | undefined {
    for (const e of this.kinds.values()) if (e.ref.kind === m.kind && e.informer.store.get(m.namespace, m.name)) return e;
    return undefined;
  }

  private async event(cls: KObject, type: EventType, reason: string, message: string): Promise<void> {
    await recordEvent(this.client, cls, type, reason, message, { component: POOL_FIELD_MANAGER, logger: this.log });
  }
}

/** Whether a class asks for a pool at all (any of minFree, maxFree, maxInstances set). */
function hasPool(settings: PoolSettings): boolean {
  return settings.minFree > 0 || settings.maxFree > 0 || settings.maxInstances > 0;
}
