/**
 * The scheduler's Quota filter, as the claim controller answers it: would provisioning from
 * this class take the claim's namespace over a ClaimQuota?
 *
 * Of the quota keys (apis/quota/usage.ts) only `cost.monthly` depends on where a claim goes:
 * `claims`, `<profile>.claims` and `requests.*` count the claim itself, whichever candidate
 * wins, and admission has already checked them. A class is refused when the namespace's
 * other claims (each counted as the usage controller counts it: the price of the class that
 * made the resource whose record binds it, the dearest class it could get while no resource
 * binds it — never what its status says) plus this class's price for the claim (the scheduler's:
 * the class's annotation, else its kind's price for the claim's size; candidate-prices.ts) would go over
 * `hard` — typically because the quota was lowered after the claim was admitted, or a dearer
 * class appeared meanwhile. Static resources cost nothing and are never refused.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import { MONTHLY_COST_ANNOTATION, parseResourceList, PriceBook } from '../../apis/quota/usage.js';
import { parseQuantity, Quantity } from '../../machinery/quantity/index.js';
import type { CandidatePrice, ClaimInfo, ClassCandidate, QuotaCheck } from '../../scheduler/index.js';

const COST_KEY = 'cost.monthly';

export interface QuotaSources {
  /** The ClaimQuotas of a namespace (from a cache). */
  quotasIn(namespace: string): KObject[];
  /** The claims of every kind in a namespace (from caches). */
  claimsIn(namespace: string): KObject[];
  /** Every ResourceClass (from a cache), to price what a claim is counted at. */
  classes(): Iterable<KObject>;
  /** The class object behind a candidate. */
  classOf(candidate: ClassCandidate): KObject | undefined;
  /** The resource whose own record binds a claim (from caches): what its price is read from, never its status. */
  boundTo(claim: KObject): KObject | undefined;
}

/** classQuotaCheck builds the Quota filter's callback over cached quotas and classes. */
export function classQuotaCheck(sources: QuotaSources): QuotaCheck {
  return (claim: ClaimInfo, candidate: ClassCandidate, priced?: CandidatePrice): string | undefined => {
    const limited = sources.quotasIn(claim.namespace).filter((q) => costLimitOf(q) !== undefined);
    if (limited.length === 0) return undefined;
    const cls = sources.classOf(candidate);
    const price = priced?.amount !== undefined ? parseQuantity(priced.amount.toFixed(2)) : cls ? priceOf(cls) : undefined;
    if (!price || price.isZero()) return undefined;
    const prices = PriceBook.fromClasses(sources.classes());
    let others = Quantity.zero();
    for (const c of sources.claimsIn(claim.namespace)) if (c.metadata.uid !== claim.uid) others = others.add(prices.costOf(c, (x) => sources.boundTo(x)));
    const after = others.add(price);
    for (const q of limited) {
      const hard = costLimitOf(q)!;
      if (after.cmp(hard) > 0) {
        return `${COST_KEY} would be ${after.toString()}, over ${hard.toString()} in ClaimQuota ${q.metadata.name ?? ''} (class costs ${price.toString()} a month)`;
      }
    }
    return undefined;
  };
}

function costLimitOf(quota: KObject): Quantity | undefined {
  const spec = isPlainObject(quota.spec) ? quota.spec : {};
  return parseResourceList(spec.hard, '').get(COST_KEY);
}

function priceOf(cls: KObject): Quantity | undefined {
  const raw = cls.metadata.annotations?.[MONTHLY_COST_ANNOTATION];
  if (raw === undefined) return undefined;
  try {
    const q = parseQuantity(raw);
    return q.sign() < 0 ? undefined : q;
  } catch {
    return undefined;
  }
}
