/**
 * Monthly prices in the scheduler: a PriceMemo asks the pricer once per candidate and claim
 * size (claim kind, capacity, region) and remembers which candidates a decision priced, so the
 * Cost filter, the LowestCost score and the explanation share one answer; and the words for
 * prices and limits.
 */
import type { Candidate, CandidatePrice, CandidatePricer, ClaimInfo, ComparedPrice, Money } from './types.js';

/** How many answers a candidate keeps, for different claim sizes, before it forgets them all. */
const SIZES_PER_CANDIDATE = 32;

/** How many prices a message lists before it sums up the rest. */
export const MAX_LISTED_PRICES = 8;

const NO_PRICER: CandidatePrice = Object.freeze({ note: 'no prices are known to this scheduler' });

/** A PriceMemo prices candidates for claims, each (candidate, claim size) once. */
export class PriceMemo {
  /** candidate → claim size key → price. A candidate replaced by an upsert is a new object: its prices go with the old one. */
  private readonly byCandidate = new WeakMap<Candidate, Map<string, CandidatePrice>>();
  /** claim → its size key. */
  private readonly keys = new WeakMap<ClaimInfo, string>();
  /** claim → the candidates priced for it in this decision. */
  private readonly seen = new WeakMap<ClaimInfo, Map<Candidate, CandidatePrice>>();

  constructor(private readonly pricer?: CandidatePricer) {}

  /** Whether a pricer was given (without one every candidate is unpriced). */
  get enabled(): boolean {
    return this.pricer !== undefined;
  }

  /** priceOf is what `c` would cost a month for `claim`; a pricer that throws gives a note with its error. */
  priceOf(claim: ClaimInfo, c: Candidate): CandidatePrice {
    const pricer = this.pricer;
    if (pricer === undefined) return NO_PRICER;
    let key = this.keys.get(claim);
    if (key === undefined) this.keys.set(claim, (key = sizeKey(claim)));
    let sizes = this.byCandidate.get(c);
    let price = sizes?.get(key);
    if (price === undefined) {
      try {
        price = pricer(claim, c);
      } catch (err) {
        price = { note: `cannot be priced: ${err instanceof Error ? err.message : String(err)}` };
      }
      if (sizes === undefined) this.byCandidate.set(c, (sizes = new Map<string, CandidatePrice>()));
      if (sizes.size >= SIZES_PER_CANDIDATE) sizes.clear();
      sizes.set(key, price);
    }
    let mine = this.seen.get(claim);
    if (mine === undefined) this.seen.set(claim, (mine = new Map<Candidate, CandidatePrice>()));
    mine.set(c, price);
    return price;
  }

  /**
   * compared lists the prices asked for `claim` in this decision, and forgets them: `chosen`
   * first, then at most `max` others, cheapest first (of equal prices, those priced first),
   * unpriced last; the listed ones in that order, equal prices by name. `total` counts every
   * candidate priced (a decision may price hundreds; only the listed ones get names).
   */
  compared(claim: ClaimInfo, chosen?: Candidate, max = MAX_LISTED_PRICES): { listed: ComparedPrice[]; total: number } {
    const mine = this.seen.get(claim);
    this.seen.delete(claim);
    if (mine === undefined) return { listed: [], total: 0 };
    // The `max` cheapest others, kept sorted by amount (stable: of equal amounts, the first priced stays ahead).
    const cheapest: [Candidate, CandidatePrice][] = [];
    const amount = (p: CandidatePrice) => p.amount ?? Infinity;
    for (const entry of mine) {
      if (entry[0] === chosen || max <= 0) continue;
      const a = amount(entry[1]);
      if (cheapest.length === max && a >= amount(cheapest[max - 1][1])) continue;
      let i = cheapest.length;
      while (i > 0 && amount(cheapest[i - 1][1]) > a) i--;
      cheapest.splice(i, 0, entry);
      if (cheapest.length > max) cheapest.pop();
    }
    const others = cheapest
      .map(([c, price]): ComparedPrice => ({ candidate: candidateName(c), type: c.type, price }))
      .sort((x, y) => amount(x.price) - amount(y.price) || (x.candidate < y.candidate ? -1 : x.candidate > y.candidate ? 1 : 0));
    const winner = chosen === undefined ? undefined : mine.get(chosen);
    const listed =
      chosen !== undefined && winner !== undefined ? [{ candidate: candidateName(chosen), type: chosen.type, price: winner, chosen: true }, ...others] : others;
    return { listed, total: mine.size };
  }
}

/** What a price depends on in a claim: its kind, capacity and region. */
function sizeKey(claim: ClaimInfo): string {
  const req = claim.requirements;
  let key = `${claim.kind.group}/${claim.kind.kind}|${req.region ?? ''}`;
  for (const dim of Object.keys(req.capacity).sort()) key += `|${dim}=${req.capacity[dim].toString()}`;
  return key;
}

/** candidateName names a candidate in a price list: a class by `namespace/name` (`@<Provider>` when placed), a resource by `Kind namespace/name`. */
export function candidateName(c: Candidate): string {
  if (c.type === 'resource') return `${c.kind.kind} ${c.namespace}/${c.name}`;
  return `${c.namespace}/${c.name}${c.target === undefined ? '' : `@${c.target}`}`;
}

/** formatMoney writes `50 USD`, `12.50 EUR`. */
export function formatMoney(m: Money): string {
  return `${Number.isInteger(m.amount) ? String(m.amount) : m.amount.toFixed(2)} ${m.currency}`;
}

/** formatPrice writes `41.20 USD` or `no price`. */
export function formatPrice(p: CandidatePrice): string {
  return p.amount === undefined ? 'no price' : `${p.amount.toFixed(2)} ${p.currency}`;
}

/**
 * pricesMessage is the part of a Scheduled message that lists the prices compared, e.g.
 * `monthly prices: chose conductor-system/s3-standard 0.25 USD; compared: conductor-system/local 0.00 USD, conductor-system/blob 0.20 USD (over the claim's 0.10 USD)`.
 * `total` is how many were priced in all (PriceMemo.compared lists only some): the rest are
 * summed up as `N more`. Empty when nothing was priced.
 */
export function pricesMessage(prices: readonly ComparedPrice[], limit: Money | undefined, total = prices.length): string {
  if (prices.length === 0) return '';
  const word = (p: ComparedPrice) => {
    let s = `${p.candidate} ${formatPrice(p.price)}`;
    if (limit !== undefined && p.price.amount !== undefined && p.price.currency === limit.currency && p.price.amount > limit.amount)
      s += ` (over the claim's ${formatMoney(limit)})`;
    return s;
  };
  const chosen = prices[0].chosen === true ? prices[0] : undefined;
  const others = chosen === undefined ? prices : prices.slice(1);
  const listed = others.slice(0, MAX_LISTED_PRICES).map(word);
  const unlisted = Math.max(total, prices.length) - (chosen === undefined ? 0 : 1) - listed.length;
  if (unlisted > 0) listed.push(`${unlisted} more`);
  const parts: string[] = [];
  if (chosen !== undefined) parts.push(`chose ${word(chosen)}`);
  if (listed.length > 0) parts.push(`compared: ${listed.join(', ')}`);
  return `monthly prices: ${parts.join('; ')}`;
}
