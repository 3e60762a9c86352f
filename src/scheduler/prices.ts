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

  /** compared lists the prices asked for `claim` so far: `chosen` first, then cheapest first, unpriced last, then by name. */
  compared(claim: ClaimInfo, chosen?: Candidate): ComparedPrice[] {
    const mine = this.seen.get(claim);
    if (mine === undefined) return [];
    const out: ComparedPrice[] = [];
    for (const [c, price] of mine) out.push({ candidate: candidateName(c), type: c.type, price, ...(c === chosen ? { chosen: true } : {}) });
    return out.sort(
      (a, b) =>
        Number(b.chosen === true) - Number(a.chosen === true) ||
        (a.price.amount ?? Infinity) - (b.price.amount ?? Infinity) ||
        (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0),
    );
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
 * Empty when nothing was priced.
 */
export function pricesMessage(prices: readonly ComparedPrice[], limit: Money | undefined): string {
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
  if (others.length > MAX_LISTED_PRICES) listed.push(`${others.length - MAX_LISTED_PRICES} more`);
  const parts: string[] = [];
  if (chosen !== undefined) parts.push(`chose ${word(chosen)}`);
  if (listed.length > 0) parts.push(`compared: ${listed.join(', ')}`);
  return `monthly prices: ${parts.join('; ')}`;
}
