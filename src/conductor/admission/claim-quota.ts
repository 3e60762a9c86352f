/**
 * ClaimQuotaAdmission enforces ClaimQuota (docs/design.md 3.4) on claims: a create, or an update
 * that asks for more (storage, another profile, a dearer class), is refused with 403
 * Forbidden naming every exceeded key when any ClaimQuota of the namespace would go over
 * its `spec.hard`, in Kubernetes' words:
 *
 *   mysqlinstances.storage.conductor.io "db" is forbidden: exceeded quota: team-quota,
 *   requested: claims=1,requests.storage=50Gi, used: claims=10,requests.storage=480Gi,
 *   limited: claims=10,requests.storage=500Gi
 *
 * Usage is counted by listing the namespace's claims of every claim kind (CRDs in the
 * `claim` category or labelled `conductor.io/abstract: "true"`), with the arithmetic of
 * `controllers/quota` so admission and the usage controller agree. For `cost.monthly` a
 * claim is priced by the resource whose own record binds it (and its class label), read
 * from the concrete kinds' stored objects — never by the claim's status, which its owner
 * could write.
 *
 * Concurrency: an admitted request writes the quota's `status.used` (its usage plus the
 * request) compare-and-swap on the quota's revision, retrying on conflict, and the usage
 * it checks against is the larger of the listed usage and `status.used` — so two requests
 * admitted at the same time are serialised by the quota object, as Kubernetes does, even
 * before the first one is stored. The usage controller recomputes `status.used` from the
 * claims themselves, which corrects a request that was admitted but then failed to store.
 * What remains open: the controller recomputing from a cache that does not yet hold a
 * claim admitted a moment earlier can briefly lower `status.used` (a window of the time
 * between admission and storage); a quota whose `status.used` is stale-high (claims deleted
 * while no usage controller runs) refuses until the controller runs.
 *
 * Bad data never fails a request with a 500: a hard or used value that is not a quantity
 * is skipped and logged, and unexpected errors are logged and the request admitted (the
 * controller still reports the usage).
 */
import type { Logger } from 'pino';
import { errors, isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { deepCopy, isPlainObject } from '../../machinery/object.js';
import { StoreError } from '../../store/types.js';
import {
  addLists,
  chargeOf,
  exceededKeys,
  exceededMessage,
  maxLists,
  needsPrices,
  parseQuotaKey,
  parseResourceList,
  positiveKeys,
  PriceBook,
  subtractLists,
  toQuantityMap,
  usageOf,
  type ClaimCharge,
  type ResourceList,
} from '../../apis/quota/usage.js';
import { Quantity } from '../../machinery/quantity/index.js';
import { mapStoreError, type ObjectStore } from '../../apiserver/storage/object-store.js';
import type { PrefixCache } from '../../apiserver/storage/prefix-cache.js';
import type { ResourceRegistry } from '../../apiserver/registry/registry.js';
import type { ResourceType } from '../../apiserver/registry/resource-type.js';
import type { AdmissionAttributes, ValidatingPlugin } from '../../apiserver/admission/types.js';
import { ClaimTypeIndex, claimTypeKey, decodeOrReport, type ClaimTypes } from './claim-types.js';
import { concreteResourceTypes } from './concrete-types.js';
import { boundResourceIndex } from '../../apis/common/binding-record.js';
import type { BoundResourceLookup } from '../../apis/quota/usage.js';

const CORE_GROUP = 'core.conductor.io';

export interface ClaimQuotaAdmissionOptions {
  logger?: Logger;
  /** How often a conflicting quota status write is retried before the request fails with 409. Default 10. */
  maxRetries?: number;
  /** The index of claim kinds (shared with other plugins); one of its own by default. */
  claimKinds?: ClaimTypeIndex;
  /**
   * The ClaimQuota keys (`/registry/core.conductor.io/claimquotas/`) kept in memory, so a
   * namespace without quotas costs no store read; without it every claim write lists them.
   */
  quotaKeys?: PrefixCache<unknown>;
}

interface QuotaEntry {
  obj: KObject;
  name: string;
  revision: number;
}

export class ClaimQuotaAdmission implements ValidatingPlugin {
  readonly name = 'ClaimQuota';
  private readonly log: Logger | undefined;
  private readonly maxRetries: number;
  private readonly claimKinds: ClaimTypeIndex;
  private readonly quotaKeys: PrefixCache<unknown> | undefined;
  private readonly reported = new Set<string>();

  constructor(
    private readonly objects: ObjectStore,
    private readonly registry: ResourceRegistry,
    opts: ClaimQuotaAdmissionOptions = {},
  ) {
    this.log = opts.logger;
    this.maxRetries = opts.maxRetries ?? 10;
    this.quotaKeys = opts.quotaKeys;
    this.claimKinds = opts.claimKinds ?? new ClaimTypeIndex(objects, registry, (m) => this.report(m));
  }

  handles(attrs: AdmissionAttributes): boolean {
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return false;
    // Status writes (the binder's) never raise requests; claims are always CRDs.
    return attrs.subresource === '' && attrs.rt.namespaced && attrs.rt.source.type === 'crd' && attrs.object !== undefined;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    try {
      const kinds = await this.claimKinds.types();
      if (!kinds.has(claimTypeKey(attrs.rt))) return;
      await this.admit(attrs, kinds);
    } catch (err) {
      if (isApiError(err)) throw err;
      if (err instanceof StoreError) throw mapStoreError(err, attrs.rt, attrs.name);
      this.log?.error({ err, namespace: attrs.namespace, name: attrs.name, kind: attrs.rt.kind }, 'cannot check claim quota; admitting the request');
    }
  }

  private async admit(attrs: AdmissionAttributes, kinds: ClaimTypes): Promise<void> {
    const ns = attrs.namespace!;
    if (this.quotaKeys?.countIn(ns) === 0) return;
    const quotaType = this.registry.anyVersion(CORE_GROUP, 'claimquotas');
    if (!quotaType) return;
    const report = (message: string) => this.report(message);
    /** Quotas whose status already carries this request (written in an earlier attempt). */
    const written = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      const quotas = (await this.listQuotas(quotaType, ns)).filter((q) => !written.has(q.name));
      if (quotas.length === 0) return;
      const hards = new Map(quotas.map((q) => [q.name, understood(parseResourceList(spec(q.obj).hard, `ClaimQuota ${ns}/${q.name}: spec.hard`, report))]));
      const keys = new Set<string>();
      for (const h of hards.values()) for (const k of h.keys()) keys.add(k);
      if (keys.size === 0) return;

      const prices = needsPrices(keys) ? await this.priceBook(report) : undefined;
      // Prices follow the resources' records of which claim they bind, never claims' status.
      const bound = prices ? await this.boundResources() : undefined;
      const newCharge = chargeOf(attrs.object!, prices, report, bound);
      // An update replaces the old object's charge; a create adds one.
      const oldCharges = attrs.oldObject ? [chargeOf(attrs.oldObject, prices, report, bound)] : [];
      const delta = subtractLists(usageOf(keys, [newCharge]), usageOf(keys, oldCharges));
      if (positiveKeys(delta).length === 0) return; // asks for nothing more

      const others = await this.otherClaims(kinds, ns, attrs, prices, bound);
      const listed = usageOf(keys, [...others, ...oldCharges]);

      const refusals: string[] = [];
      const writes: Array<{ quota: QuotaEntry; used: ResourceList }> = [];
      for (const q of quotas) {
        const hard = hards.get(q.name)!;
        const requested = pick(delta, hard);
        if (positiveKeys(requested).length === 0) continue; // this quota is not affected
        const recorded = pick(parseResourceList(status(q.obj).used, `ClaimQuota ${ns}/${q.name}: status.used`, report), hard);
        const used = maxLists(pick(listed, hard), recorded);
        const over = exceededKeys(hard, used, requested);
        if (over.length > 0) {
          refusals.push(exceededMessage(q.name, over, requested, used, hard));
          continue;
        }
        writes.push({ quota: q, used: nonNegative(addLists(used, requested)) });
      }
      if (refusals.length > 0) {
        const rt = attrs.rt;
        throw errors.forbidden(
          `${rt.resource}.${rt.group} "${attrs.name}" is forbidden: ${refusals.join('; ')}`,
          { group: rt.group, resource: rt.resource },
          attrs.name,
        );
      }
      if (attrs.dryRun) return;

      let conflicted: string | undefined;
      for (const w of writes) {
        const outcome = await this.writeUsed(quotaType, w.quota, w.used);
        if (outcome === 'conflict') conflicted ??= w.quota.name;
        else written.add(w.quota.name);
      }
      if (conflicted === undefined) return;
      if (attempt >= this.maxRetries) {
        throw errors.conflict(
          { group: CORE_GROUP, resource: 'claimquotas' },
          conflicted,
          `the quota's usage was changed by ${this.maxRetries + 1} concurrent requests in a row; please try again`,
        );
      }
    }
  }

  /** Writes `status.used` (and mirrors `status.hard`) compare-and-swap on the quota's revision. */
  private async writeUsed(quotaType: ResourceType, quota: QuotaEntry, used: ResourceList): Promise<'written' | 'conflict' | 'gone'> {
    const next = deepCopy(quota.obj);
    const hard = spec(quota.obj).hard;
    next.status = { ...status(quota.obj), ...(isPlainObject(hard) ? { hard } : {}), used: toQuantityMap(used) };
    try {
      await this.objects.update(quotaType, next, quota.revision);
      return 'written';
    } catch (err) {
      if (err instanceof StoreError && err.code === 'conflict') return 'conflict';
      if (err instanceof StoreError && err.code === 'not-found') return 'gone';
      throw err;
    }
  }

  private async listQuotas(quotaType: ResourceType, ns: string): Promise<QuotaEntry[]> {
    const res = await this.objects.list(quotaType, ns, {});
    const out: QuotaEntry[] = [];
    for (const kv of res.items) {
      const obj = this.decode(quotaType, kv.value, kv.modRevision);
      if (obj) out.push({ obj, name: obj.metadata.name ?? '', revision: kv.modRevision });
    }
    return out;
  }

  /** The charges of the namespace's claims other than the one being admitted. */
  private async otherClaims(
    kinds: ClaimTypes,
    ns: string,
    attrs: AdmissionAttributes,
    prices: PriceBook | undefined,
    bound: BoundResourceLookup | undefined,
  ): Promise<ClaimCharge[]> {
    const self = claimTypeKey(attrs.rt);
    const lists = await Promise.all(
      [...kinds].map(async ([key, rt]) => {
        const res = await this.objects.list(rt, ns, {});
        const out: ClaimCharge[] = [];
        for (const kv of res.items) {
          const obj = this.decode(rt, kv.value, kv.modRevision);
          if (!obj || (key === self && obj.metadata.name === attrs.name)) continue;
          out.push(chargeOf(obj, prices, (m) => this.report(m), bound));
        }
        return out;
      }),
    );
    return lists.flat();
  }

  /** Which resource binds which claim, from the concrete resources' own records (read only for quotas limiting cost.monthly). */
  private async boundResources(): Promise<BoundResourceLookup> {
    const resources: KObject[] = [];
    for (const rt of concreteResourceTypes(this.registry)) {
      const res = await this.objects.list(rt, undefined, {});
      for (const kv of res.items) {
        const obj = this.decode(rt, kv.value, kv.modRevision);
        if (obj) resources.push(obj);
      }
    }
    return boundResourceIndex(resources);
  }

  private async priceBook(report: (m: string) => void): Promise<PriceBook> {
    const classType = this.registry.anyVersion(CORE_GROUP, 'resourceclasses');
    if (!classType) return PriceBook.fromClasses([]);
    const res = await this.objects.list(classType, undefined, {});
    const classes: KObject[] = [];
    for (const kv of res.items) {
      const obj = this.decode(classType, kv.value, kv.modRevision);
      if (obj) classes.push(obj);
    }
    return PriceBook.fromClasses(classes, report);
  }

  private decode(rt: ResourceType, value: string, revision: number): KObject | undefined {
    return decodeOrReport(this.objects, rt, value, revision, (m) => this.report(m));
  }

  /** Logs a bad value once (per distinct message, bounded) so every request does not repeat it. */
  private report(message: string): void {
    if (this.reported.has(message)) return;
    if (this.reported.size >= 1000) this.reported.clear();
    this.reported.add(message);
    this.log?.warn({ plugin: this.name }, message);
  }
}

function spec(obj: KObject): Record<string, unknown> {
  return isPlainObject(obj.spec) ? obj.spec : {};
}

function status(obj: KObject): Record<string, unknown> {
  return isPlainObject(obj.status) ? obj.status : {};
}

/** Only the keys Conductor understands. */
function understood(list: ResourceList): ResourceList {
  return new Map([...list].filter(([k]) => parseQuotaKey(k) !== undefined));
}

/** The amounts of `list` for the keys of `keys` (0 when missing). */
function pick(list: ResourceList, keys: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const k of keys.keys()) out.set(k, list.get(k) ?? Quantity.zero());
  return out;
}

function nonNegative(list: ResourceList): ResourceList {
  return new Map([...list].map(([k, v]) => [k, v.sign() < 0 ? Quantity.zero() : v]));
}
