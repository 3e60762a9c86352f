/**
 * Leader election on a `coordination.k8s.io/v1` Lease: of several processes with the same
 * lease, one leads (runs the controllers); the others wait and take over when the leader's
 * lease expires.
 */
import { isAlreadyExists, isConflict, isNotFound } from '../machinery/errors.js';
import type { KObject } from '../machinery/object.js';
import type { Logger } from './logger.js';
import { errorMessage, silentLogger } from './logger.js';
import { builtinRefs } from './types.js';
import type { Client } from './types.js';

/** The spec of a coordination.k8s.io/v1 Lease. Times are MicroTime strings. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KObject {
  spec?: LeaseSpec;
}

export interface LeaderElectionOptions {
  client: Client;
  /** Namespace and name of the Lease. */
  namespace: string;
  name: string;
  /** This candidate's identity, unique among candidates (for example hostname plus a random suffix). */
  identity: string;
  /** How long a lease holds without renewal. Default 15 000 ms. Written rounded up to whole seconds. */
  leaseDurationMs?: number;
  /** The leader gives up when it has not renewed for this long. Default 10 000 ms; less than leaseDurationMs. */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. Default 2 000 ms; less than renewDeadlineMs. */
  retryPeriodMs?: number;
  /** Called on becoming leader; `signal` aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /**
   * Called when leadership ends (lost, or given up by `stop`). A returned promise is awaited
   * before the candidate campaigns again or releases the lease, so what ran while leading has
   * stopped before anyone else can lead.
   */
  onStoppedLeading?(): void | Promise<void>;
  /** Called whenever the observed holder changes (including to this candidate). */
  onNewLeader?(identity: string): void;
  /** Clear holderIdentity when stopping while leading, so a successor need not wait for expiry. Default true. */
  releaseOnStop?: boolean;
  logger?: Logger;
  /** Clock in ms since the epoch; tests pass a fake. Default Date.now. */
  now?: () => number;
}

/** Formats ms since the epoch as a Kubernetes MicroTime (RFC 3339 with microseconds). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/**
 * A lease is free when it has no holder, or when its holder has not renewed it within its
 * leaseDurationSeconds (renewTime + leaseDurationSeconds < now). A lease without a readable
 * renewTime counts as expired; one without a duration uses `fallbackDurationMs`.
 */
export function leaseIsFree(spec: LeaseSpec | undefined, now: number, fallbackDurationMs: number): boolean {
  if (!spec?.holderIdentity) return true;
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  if (Number.isNaN(renewed)) return true;
  const duration = spec.leaseDurationSeconds !== undefined ? spec.leaseDurationSeconds * 1000 : fallbackDurationMs;
  return renewed + duration < now;
}

/**
 * A LeaderElector campaigns for a Lease and, once holding it, renews it every retry period.
 * Every write is a compare-and-swap on the Lease's resourceVersion, so two candidates never
 * both believe a write made them leader. When renewals fail for `renewDeadlineMs` the leader
 * steps down (its signal aborts) and campaigns again. `stop()` ends the campaign and, when
 * leading, releases the lease.
 */
export class LeaderElector {
  private readonly client: Client;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private readonly log: Logger;
  private stopped = false;
  private leading = false;
  private observedHolder = '';
  private loop?: Promise<void>;
  private sleepTimer?: NodeJS.Timeout;
  private wake?: () => void;

  constructor(private readonly options: LeaderElectionOptions) {
    this.client = options.client;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.log = options.logger ?? silentLogger;
    if (!options.identity) throw new Error('leader election needs a non-empty identity');
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new Error(`leader election leaseDurationMs (${this.leaseDurationMs}) must be greater than renewDeadlineMs (${this.renewDeadlineMs})`);
    }
    if (!(this.renewDeadlineMs > this.retryPeriodMs)) {
      throw new Error(`leader election renewDeadlineMs (${this.renewDeadlineMs}) must be greater than retryPeriodMs (${this.retryPeriodMs})`);
    }
    if (!(this.retryPeriodMs > 0)) throw new Error(`leader election retryPeriodMs must be positive, got ${this.retryPeriodMs}`);
  }

  get identity(): string {
    return this.options.identity;
  }

  /** True while this candidate leads. */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder last observed on the lease ('' when none). */
  get leader(): string {
    return this.observedHolder;
  }

  /** Starts campaigning. Calling it again does nothing. */
  start(): this {
    if (!this.loop && !this.stopped) this.loop = this.run();
    return this;
  }

  /** Stops campaigning; if leading, steps down and (by default) releases the lease. Resolves when done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (await this.attempt()) {
        if (this.stopped) break;
        await this.lead();
      } else {
        await this.sleep(this.retryPeriodMs * (1 + Math.random() * 0.2));
      }
    }
    if (this.options.releaseOnStop !== false && this.observedHolder === this.identity) await this.release();
  }

  private async lead(): Promise<void> {
    this.leading = true;
    const controller = new AbortController();
    this.log.info({ lease: this.leaseName(), identity: this.identity }, 'became leader');
    try {
      const started = this.options.onStartedLeading(controller.signal);
      if (started instanceof Promise) {
        started.catch((err: unknown) => this.log.error({ lease: this.leaseName(), err: errorMessage(err) }, 'onStartedLeading failed'));
      }
    } catch (err) {
      this.log.error({ lease: this.leaseName(), err: errorMessage(err) }, 'onStartedLeading failed');
    }
    let lastRenew = this.now();
    while (!this.stopped) {
      await this.sleep(this.retryPeriodMs);
      if (this.stopped) break;
      if (await this.attempt()) {
        lastRenew = this.now();
        continue;
      }
      if (this.now() - lastRenew >= this.renewDeadlineMs) {
        this.log.warn({ lease: this.leaseName(), identity: this.identity }, 'failed to renew the lease within the renew deadline; stepping down');
        break;
      }
    }
    this.leading = false;
    controller.abort();
    try {
      await this.options.onStoppedLeading?.();
    } catch (err) {
      this.log.error({ lease: this.leaseName(), err: errorMessage(err) }, 'onStoppedLeading failed');
    }
  }

  /** One acquire-or-renew attempt, abandoned (as a failure) after the renew deadline. */
  private async attempt(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.renewDeadlineMs);
    });
    try {
      return await Promise.race([this.tryAcquireOrRenew(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const ref = builtinRefs.leases;
    const { namespace, name } = this.options;
    const now = this.now();
    const durationSeconds = Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
    let lease: Lease;
    try {
      lease = await this.client.get<Lease>(ref, name, namespace);
    } catch (err) {
      if (!isNotFound(err)) {
        this.log.warn({ lease: this.leaseName(), err: errorMessage(err) }, 'cannot read the lease');
        return false;
      }
      try {
        const created = await this.client.create<Lease>(ref, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: {
            holderIdentity: this.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        });
        this.observe(created);
        return true;
      } catch (createErr) {
        if (!isAlreadyExists(createErr)) {
          this.log.warn({ lease: this.leaseName(), err: errorMessage(createErr) }, 'cannot create the lease');
        }
        return false;
      }
    }
    this.observe(lease);
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    if (holder !== this.identity && !leaseIsFree(spec, now, this.leaseDurationMs)) return false;
    if (this.stopped && !this.leading) return false;
    const next: LeaseSpec =
      holder === this.identity
        ? { ...spec, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) }
        : {
            holderIdentity: this.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: (spec.leaseTransitions ?? 0) + 1,
          };
    try {
      const updated = await this.client.update<Lease>(ref, { ...lease, spec: next });
      this.observe(updated);
      return true;
    } catch (err) {
      if (isConflict(err)) this.log.debug({ lease: this.leaseName() }, 'lease changed while acquiring or renewing it');
      else this.log.warn({ lease: this.leaseName(), err: errorMessage(err) }, 'cannot update the lease');
      return false;
    }
  }

  /** Clears holderIdentity if this candidate still holds the lease. */
  private async release(): Promise<void> {
    const ref = builtinRefs.leases;
    try {
      const lease = await this.client.get<Lease>(ref, this.options.name, this.options.namespace);
      if (lease.spec?.holderIdentity !== this.identity) return;
      const now = microTime(this.now());
      const spec: LeaseSpec = {
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: lease.spec.leaseTransitions ?? 0,
      };
      const released = await this.client.update<Lease>(ref, { ...lease, spec });
      this.observe(released);
      this.log.info({ lease: this.leaseName(), identity: this.identity }, 'released the lease');
    } catch (err) {
      this.log.warn({ lease: this.leaseName(), err: errorMessage(err) }, 'cannot release the lease');
    }
  }

  private observe(lease: Lease): void {
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder === this.observedHolder) return;
    this.observedHolder = holder;
    if (!holder) return;
    try {
      this.options.onNewLeader?.(holder);
    } catch (err) {
      this.log.error({ lease: this.leaseName(), err: errorMessage(err) }, 'onNewLeader failed');
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(this.sleepTimer);
        this.sleepTimer = undefined;
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      this.sleepTimer = setTimeout(done, ms);
    });
  }

  private leaseName(): string {
    return `${this.options.namespace}/${this.options.name}`;
  }
}
