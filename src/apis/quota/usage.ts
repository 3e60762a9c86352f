/**
 * The arithmetic of ClaimQuota (docs/design.md 3.4): which hard keys exist, what one claim counts
 * against each, sums over a namespace's claims, and which keys a request would exceed.
 * Pure functions over plain objects, shared by the admission plugin and the usage
 * controller so both count the same way.
 *
 * Keys (checked in this order):
 * - `claims` — claims of any kind in the namespace;
 * - `cost.monthly` — the sum of the claims' monthly prices (see PriceBook);
 * - `<profile>.claims` — claims whose `spec.resourceClass` is `<profile>`;
 * - `requests.<name>` — the sum of `spec.requirements.capacity.<name>` (`requests.storage`).
 * Any other key is not understood: it is neither counted nor enforced.
 */
import { parseQuantity, Quantity } from '../../machinery/quantity/index.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject, parseApiVersion } from '../../machinery/object.js';
import { IS_DEFAULT_CLASS_ANNOTATION, supportsKind } from '../index.js';

/** ResourceClass annotation: the monthly price of one resource created from the class (a quantity, e.g. "25" or "12.5"). */
export const MONTHLY_COST_ANNOTATION = 'conductor.io/monthly-cost';

/** What a hard key limits. */
export type QuotaResource = { type: 'claims' } | { type: 'monthlyCost' } | { type: 'profileClaims'; profile: string } | { type: 'requests'; capacity: string };

/** The label a ResourceClass puts on what it makes: `<namespace>.<name>` of the class. */
export const RESOURCE_CLASS_LABEL = 'conductor.io/resource-class';

/**
 * A BoundResourceLookup finds the concrete resource whose own record binds a claim (an
 * Exclusive resource's `spec.claimRef`, or an entry of a Shared one's `status.bindings`,
 * naming the claim's namespace, name and uid), or undefined when none does. Quota prices a
 * claim by that record and never by the claim's status, which whoever may write it could
 * point at anything (see apis/common/binding-record.ts, `boundResourceIndex`).
 */
export type BoundResourceLookup = (claim: KObject) => KObject | undefined;

/** A ResourceList maps quota keys to amounts. */
export type ResourceList = Map<string, Quantity>;

/** Reports a value that cannot be read (it is skipped); used for logging. */
export type BadValueReporter = (message: string) => void;

const ignore: BadValueReporter = () => {};

/** parseQuotaKey says what a hard key limits, or undefined for a key Conductor does not understand. */
export function parseQuotaKey(key: string): QuotaResource | undefined {
  if (key === 'claims') return { type: 'claims' };
  if (key === 'cost.monthly') return { type: 'monthlyCost' };
  if (key.endsWith('.claims') && key.length > '.claims'.length) return { type: 'profileClaims', profile: key.slice(0, -'.claims'.length) };
  if (key.startsWith('requests.') && key.length > 'requests.'.length) return { type: 'requests', capacity: key.slice('requests.'.length) };
  return undefined;
}

/** A ClaimCharge is what one claim counts against quotas. */
export interface ClaimCharge {
  /** The claim's `spec.requirements.capacity`, by name. */
  capacity: ResourceList;
  /** The claim's `spec.resourceClass` (its profile), when set. */
  profile: string | undefined;
  /** What the claim costs per month (zero when no price applies). */
  monthlyCost: Quantity;
}

/**
 * chargeOf reads what `claim` counts. Capacity values that are not quantities are reported
 * and count as zero (the claim schema normally rules them out). Without a PriceBook the
 * monthly cost is zero.
 */
export function chargeOf(claim: KObject, prices?: PriceBook, report: BadValueReporter = ignore, bound?: BoundResourceLookup): ClaimCharge {
  const spec = isPlainObject(claim.spec) ? claim.spec : {};
  const capacity: ResourceList = new Map();
  const requirements = isPlainObject(spec.requirements) ? spec.requirements : {};
  if (isPlainObject(requirements.capacity)) {
    for (const [name, raw] of Object.entries(requirements.capacity)) {
      const q = readQuantity(raw);
      if (q) capacity.set(name, q);
      else report(`${who(claim)}: spec.requirements.capacity.${name} is ${JSON.stringify(raw)}, expected a quantity such as 25Gi; counted as 0`);
    }
  }
  const profile = typeof spec.resourceClass === 'string' && spec.resourceClass !== '' ? spec.resourceClass : undefined;
  return { capacity, profile, monthlyCost: prices ? prices.costOf(claim, bound) : Quantity.zero() };
}

/** usageOf sums `charges` for every understood key of `keys`; other keys are left out. */
export function usageOf(keys: Iterable<string>, charges: Iterable<ClaimCharge>): ResourceList {
  const parsed: Array<[string, QuotaResource]> = [];
  const used: ResourceList = new Map();
  for (const key of keys) {
    const r = parseQuotaKey(key);
    if (!r) continue;
    parsed.push([key, r]);
    used.set(key, Quantity.zero());
  }
  if (parsed.length === 0) return used;
  for (const c of charges) {
    for (const [key, r] of parsed) {
      const amount = amountOf(r, c);
      if (amount && !amount.isZero()) used.set(key, used.get(key)!.add(amount));
    }
  }
  return used;
}

function amountOf(r: QuotaResource, c: ClaimCharge): Quantity | undefined {
  switch (r.type) {
    case 'claims':
      return ONE;
    case 'monthlyCost':
      return c.monthlyCost;
    case 'profileClaims':
      return c.profile === r.profile ? ONE : undefined;
    case 'requests':
      return c.capacity.get(r.capacity);
    default: {
      const never: never = r;
      return never;
    }
  }
}

const ONE = Quantity.fromInt(1);

/** Whether any of `keys` needs claim prices (`cost.monthly`). */
export function needsPrices(keys: Iterable<string>): boolean {
  for (const k of keys) if (parseQuotaKey(k)?.type === 'monthlyCost') return true;
  return false;
}

/**
 * parseResourceList reads a `hard` or `used` map. Values that are not quantities are
 * reported and left out, so one bad value never disables the others.
 */
export function parseResourceList(raw: unknown, what: string, report: BadValueReporter = ignore): ResourceList {
  const out: ResourceList = new Map();
  if (raw === undefined || raw === null) return out;
  if (!isPlainObject(raw)) {
    report(`${what} is ${JSON.stringify(raw)}, expected a map of quantities; ignored`);
    return out;
  }
  for (const [key, value] of Object.entries(raw)) {
    const q = readQuantity(value);
    if (q) out.set(key, q);
    else report(`${what}.${key} is ${JSON.stringify(value)}, expected a quantity; ignored`);
  }
  return out;
}

/** a - b for every key of either list. */
export function subtractLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? Quantity.zero()).sub(v));
  return out;
}

/** a + b for every key of either list. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? Quantity.zero()).add(v));
  return out;
}

/** The larger amount of each key of either list. */
export function maxLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) {
    const cur = out.get(k);
    if (!cur || v.cmp(cur) > 0) out.set(k, v);
  }
  return out;
}

/** The keys with a positive amount. */
export function positiveKeys(list: ResourceList): string[] {
  return [...list].filter(([, v]) => v.sign() > 0).map(([k]) => k);
}

/**
 * exceededKeys lists, sorted, the keys of `hard` that `requested` asks more of (amount > 0)
 * and for which `used + requested` would be above the limit. Keys `hard` does not have or
 * Conductor does not understand are never exceeded.
 */
export function exceededKeys(hard: ResourceList, used: ResourceList, requested: ResourceList): string[] {
  const out: string[] = [];
  for (const [key, want] of requested) {
    if (want.sign() <= 0) continue;
    const limit = hard.get(key);
    if (!limit || !parseQuotaKey(key)) continue;
    const total = (used.get(key) ?? Quantity.zero()).add(want);
    if (total.cmp(limit) > 0) out.push(key);
  }
  return out.sort();
}

/** `k=v,k=v` for `keys` (sorted), as Kubernetes writes resource lists in quota errors; a missing key is 0. */
export function formatList(list: ResourceList, keys: Iterable<string>): string {
  return [...keys]
    .sort()
    .map((k) => `${k}=${(list.get(k) ?? Quantity.zero()).format()}`)
    .join(',');
}

/** The message of one exceeded quota: `exceeded quota: <name>, requested: ..., used: ..., limited: ...`. */
export function exceededMessage(quotaName: string, keys: string[], requested: ResourceList, used: ResourceList, hard: ResourceList): string {
  return `exceeded quota: ${quotaName}, requested: ${formatList(requested, keys)}, used: ${formatList(used, keys)}, limited: ${formatList(hard, keys)}`;
}

/** A ResourceList as a status map of canonical quantity strings, keys sorted. */
export function toQuantityMap(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = list.get(k)!.format();
  return out;
}

/** Whether two lists hold the same keys with equal amounts (the suffix does not matter). */
export function sameLists(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!w || !w.equals(v)) return false;
  }
  return true;
}

// ---------------------------------------------------------------- prices

interface PricedClass {
  namespace: string;
  name: string;
  profile: string;
  isDefault: boolean;
  supportedResources: string[];
  price: Quantity | undefined;
}

/**
 * A PriceBook knows the monthly price of each ResourceClass (annotation
 * `conductor.io/monthly-cost`) and what a claim costs:
 *
 * - a claim bound to a resource a class made (the resource's own record binds the claim, and
 *   the resource carries the class label `conductor.io/resource-class`: provisioned for it,
 *   a pool member, a recycled one) costs that class's price when the class states one;
 * - otherwise a bound claim costs what its resource advertises in
 *   `status.atProvider.monthlyPrice.amount` (the cloud kinds' price for its size, from their
 *   price tables: the price the scheduler compared), else zero. Amounts are summed whatever
 *   their currency: keep a namespace's prices in one currency;
 * - a claim no resource's record binds, naming a resource (`spec.resourceName`), costs zero:
 *   it never provisions;
 * - any other claim not yet bound costs the dearest class it could be provisioned from: classes
 *   supporting its kind whose profile is its `spec.resourceClass`, or, naming none, the
 *   default classes of its kind. Its cost is an upper bound until it binds (a static
 *   resource may still win, which then costs zero). Classes' `allowedNamespaces` are not
 *   consulted, so the bound may be higher than what the scheduler would pick.
 *
 * The claim's status (`classRef`, `resourceRef`) is never read: whoever may write it could
 * make any claim free. Which resource binds a claim comes from `bound` (resource records);
 * without it every claim counts as not yet bound.
 */
export class PriceBook {
  private readonly classes: PricedClass[];
  private readonly byName: Map<string, PricedClass>;

  private constructor(classes: PricedClass[]) {
    this.classes = classes;
    this.byName = new Map(classes.map((c) => [`${c.namespace}/${c.name}`, c]));
  }

  /** Reads ResourceClass objects; a price that is not a quantity is reported and the class is priced at nothing. */
  static fromClasses(classes: Iterable<KObject>, report: BadValueReporter = ignore): PriceBook {
    const out: PricedClass[] = [];
    for (const c of classes) {
      const namespace = c.metadata.namespace ?? '';
      const name = c.metadata.name ?? '';
      const rawPrice = c.metadata.annotations?.[MONTHLY_COST_ANNOTATION];
      let price: Quantity | undefined;
      if (rawPrice !== undefined) {
        price = readQuantity(rawPrice);
        if (!price || price.sign() < 0) {
          report(
            `ResourceClass ${namespace}/${name}: annotation ${MONTHLY_COST_ANNOTATION} is ${JSON.stringify(rawPrice)}, expected a non-negative quantity such as "25"; priced at 0`,
          );
          price = undefined;
        }
      }
      const profile = typeof c['resourceClass'] === 'string' && c['resourceClass'] !== '' ? c['resourceClass'] : name;
      const supported = Array.isArray(c['supportedResources']) ? c['supportedResources'].filter((x): x is string => typeof x === 'string') : [];
      out.push({
        namespace,
        name,
        profile,
        isDefault: c.metadata.annotations?.[IS_DEFAULT_CLASS_ANNOTATION] === 'true',
        supportedResources: supported,
        price,
      });
    }
    return new PriceBook(out);
  }

  /** The monthly cost of `claim` (see the class comment); `bound` finds the resource whose record binds it. */
  costOf(claim: KObject, bound?: BoundResourceLookup): Quantity {
    const resource = bound?.(claim);
    if (resource) {
      const label = resource.metadata.labels?.[RESOURCE_CLASS_LABEL];
      const dot = label ? label.indexOf('.') : -1;
      const classPrice = label && dot > 0 ? this.byName.get(`${label.slice(0, dot)}/${label.slice(dot + 1)}`)?.price : undefined;
      return classPrice ?? advertisedAmount(resource) ?? Quantity.zero();
    }
    const spec = isPlainObject(claim.spec) ? claim.spec : {};
    if (typeof spec.resourceName === 'string' && spec.resourceName !== '') return Quantity.zero();
    const profile = typeof spec.resourceClass === 'string' && spec.resourceClass !== '' ? spec.resourceClass : undefined;
    const { group, version } = parseApiVersion(claim.apiVersion ?? '');
    const kind = { group, version, kind: claim.kind ?? '' };
    let dearest = Quantity.zero();
    for (const c of this.classes) {
      if (!c.price) continue;
      if (profile !== undefined ? c.profile !== profile : !c.isDefault) continue;
      if (!c.supportedResources.some((entry) => supportsKind(entry, kind))) continue;
      if (c.price.cmp(dearest) > 0) dearest = c.price;
    }
    return dearest;
  }
}

// ---------------------------------------------------------------- helpers

/** advertisedAmount is a resource's `status.atProvider.monthlyPrice.amount` (providers/prices.ts writes it), if it is a non-negative quantity. */
function advertisedAmount(resource: KObject): Quantity | undefined {
  const status = isPlainObject(resource['status']) ? resource['status'] : {};
  const at = isPlainObject(status['atProvider']) ? status['atProvider'] : {};
  const price = isPlainObject(at['monthlyPrice']) ? at['monthlyPrice'] : {};
  const q = readQuantity(price['amount']);
  return q && q.sign() >= 0 ? q : undefined;
}

function readQuantity(raw: unknown): Quantity | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  try {
    return parseQuantity(raw);
  } catch {
    return undefined;
  }
}

function who(obj: KObject): string {
  return `${obj.kind ?? 'object'} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

// ---------------------------------------------------------------- a quota's status

/** The status a ClaimQuota should have: `hard` mirrored from the spec, `used` for every understood key. */
export interface QuotaStatus {
  hard?: Record<string, unknown>;
  used: Record<string, string>;
}

/**
 * quotaStatusFor computes the status of `quota` from the claims of its namespace, the
 * ResourceClasses and the resources binding the claims (both read only when the quota
 * limits `cost.monthly`). Hard values that are
 * not quantities are reported and get no `used` entry.
 */
export function quotaStatusFor(
  quota: KObject,
  claims: Iterable<KObject>,
  classes: () => Iterable<KObject>,
  report: BadValueReporter = ignore,
  bound?: () => BoundResourceLookup,
): QuotaStatus {
  const spec = isPlainObject(quota.spec) ? quota.spec : {};
  const where = `ClaimQuota ${quota.metadata.namespace ?? ''}/${quota.metadata.name ?? ''}`;
  const hard = parseResourceList(spec.hard, `${where}: spec.hard`, report);
  const keys = [...hard.keys()].filter((k) => parseQuotaKey(k) !== undefined);
  const prices = needsPrices(keys) ? PriceBook.fromClasses(classes(), report) : undefined;
  const lookup = prices ? bound?.() : undefined;
  const charges = [...claims].map((c) => chargeOf(c, prices, report, lookup));
  const used = toQuantityMap(usageOf(keys, charges));
  return isPlainObject(spec.hard) ? { hard: spec.hard, used } : { used };
}
