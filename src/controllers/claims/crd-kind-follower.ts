/**
 * A CrdKindFollower keeps the claim controller serving the kinds defined by CRDs alone
 * (`crd-defined-kinds.ts`): it watches CustomResourceDefinitions and, after every change, adds
 * the claim kinds and out-of-process concrete kinds that appeared, replaces those whose CRD
 * changed what they are built from, and removes those whose CRD went. What cannot be served
 * is logged once, with what to fix. Changes are applied one at a time, in order.
 */
import type { Logger } from 'pino';
import { builtinRefs, type Client, type ResourceRef } from '../../client/types.js';
import { cacheInformer, type CacheInformer, type SharedInformers } from '../../client/shared-informers.js';
import type { ConcreteKind } from '../../providers/spi.js';
import type { ClaimKindDef } from './claim-caches.js';
import { kindKey } from './claim-caches.js';
import { errorText } from './claim-status.js';
import { crdDefinedKinds, type BuiltInKinds } from './crd-defined-kinds.js';

export interface CrdKindFollowerOptions {
  readonly client: Client;
  readonly informers: SharedInformers | undefined;
  readonly logger: Logger;
  /** The kinds served with code: their CRDs are not read as kinds. */
  readonly builtIn: BuiltInKinds;
  addClaimKind(def: ClaimKindDef): Promise<void>;
  removeClaimKind(key: string): void;
  addConcreteKind(kind: ConcreteKind, ref: ResourceRef): Promise<void>;
  removeConcreteKind(key: string): void;
}

export class CrdKindFollower {
  private readonly crds: CacheInformer;
  /** Served claim kinds by kindKey, with what they were built from. */
  private readonly claimKinds = new Map<string, string>();
  /** Served out-of-process concrete kinds by kindKey, with what they were built from. */
  private readonly concreteKinds = new Map<string, string>();
  /** Problems already logged (each once while it lasts). */
  private reported = new Set<string>();
  private queued = false;
  private applying: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly opts: CrdKindFollowerOptions) {
    this.crds = cacheInformer(opts.client, opts.informers, builtinRefs.customresourcedefinitions, {}, opts.logger);
  }

  /** start lists the CRDs and serves the kinds they define before it resolves. */
  async start(): Promise<void> {
    this.crds.addHandler({ onAdd: () => this.changed(), onUpdate: () => this.changed(), onDelete: () => this.changed() });
    this.crds.start();
    await this.crds.waitForSync();
    this.changed();
    await this.applying;
  }

  stop(): void {
    this.stopped = true;
    this.crds.stop();
  }

  /** A CRD changed: the kinds are worked out again once the current pass is over (passes coalesce). */
  private changed(): void {
    if (this.queued || !this.crds.hasSynced()) return;
    this.queued = true;
    this.applying = this.applying.then(async () => {
      this.queued = false;
      if (this.stopped) return;
      try {
        await this.apply();
      } catch (err) {
        this.opts.logger.error({ err: errorText(err) }, 'cannot serve the kinds defined by CRDs; trying again with the next CRD change');
      }
    });
  }

  private async apply(): Promise<void> {
    const { opts } = this;
    const next = crdDefinedKinds(this.crds.store.list(), opts.builtIn);
    const problems = new Set(next.problems);
    for (const p of problems) if (!this.reported.has(p)) opts.logger.warn({ problem: p }, p);
    this.reported = problems;

    const claims = new Map(next.claimKinds.map((k) => [kindKey(k.group, k.kind), JSON.stringify(k.ref)] as const));
    const concretes = new Map(next.concreteKinds.map((k) => [kindKey(k.kind.group, k.kind.kind), k] as const));
    // What goes or changed first (concrete kinds before the claim kinds they implement), then what comes.
    for (const [key, fingerprint] of this.concreteKinds) {
      if (concretes.get(key)?.fingerprint === fingerprint) continue;
      this.concreteKinds.delete(key);
      opts.removeConcreteKind(key);
    }
    for (const [key, fingerprint] of this.claimKinds) {
      if (claims.get(key) === fingerprint) continue;
      this.claimKinds.delete(key);
      opts.removeClaimKind(key);
    }
    for (const k of next.claimKinds) {
      const key = kindKey(k.group, k.kind);
      if (this.claimKinds.has(key) || this.stopped) continue;
      this.claimKinds.set(key, claims.get(key)!);
      await opts.addClaimKind(k);
    }
    for (const k of next.concreteKinds) {
      const key = kindKey(k.kind.group, k.kind.kind);
      if (this.concreteKinds.has(key) || this.stopped) continue;
      this.concreteKinds.set(key, k.fingerprint);
      await opts.addConcreteKind(k.kind, k.ref);
    }
  }
}
