/**
 * The scheduler's CandidatePricer as the claim controller answers it: what a class or a
 * resource would cost a month for a claim, on one scale across local kinds and clouds.
 *
 * - A class: its annotation `conductor.io/monthly-cost` when set (an administrator's price wins:
 *   a negotiated discount, what a local machine really costs), else its template kind's own
 *   `price` hook (providers/spi.ts) for the resource the template would become for the claim,
 *   with the Provider it would be made with (the class's providerRef, or the Provider a placed
 *   class targets) and the region the candidate advertises.
 * - A resource: what it advertises in `status.atProvider.monthlyPrice` (or `priceNote`), else
 *   its kind's `price` hook.
 * - Otherwise no price, saying what to set.
 *
 * The scheduler asks once per candidate and claim size (PriceMemo), so this may allocate.
 */
import type { KObject } from '../../machinery/object.js';
import { MONTHLY_COST_ANNOTATION } from '../../apis/quota/usage.js';
import { advertisedPrice, implementationFor, type ConcreteKind, type MonthlyPrice, type NoPrice } from '../../providers/spi.js';
import { parseMoney, type CandidatePrice, type CandidatePricer } from '../../scheduler/index.js';
import { claimObject, matchCandidate } from './provider-matchers.js';

/** What the pricer reads: the concrete kinds served and the Providers. */
export interface PriceSources {
  /** The concrete kind of a group and kind, if served by a provider module of this process. */
  kind(group: string, kind: string): ConcreteKind | undefined;
  /** A Provider object by namespace and name (from a cache). */
  provider(namespace: string, name: string): KObject | undefined;
  /** The system namespace (where a placed class's target Provider lives). */
  readonly systemNamespace: string;
}

/** candidatePricer builds the scheduler's pricer over the served kinds and cached Providers. */
export function candidatePricer(sources: PriceSources): CandidatePricer {
  return (claim, c) => {
    if (c.type === 'class') {
      const annotated = c.source?.metadata.annotations?.[MONTHLY_COST_ANNOTATION];
      if (annotated !== undefined) {
        const money = parseMoney(annotated);
        return money === undefined
          ? { note: `the class's annotation ${MONTHLY_COST_ANNOTATION} is ${JSON.stringify(annotated)}, expected an amount such as "25" or "25 EUR"` }
          : { amount: money.amount, currency: money.currency, basis: `the class's annotation ${MONTHLY_COST_ANNOTATION}` };
      }
    } else if (c.source !== undefined) {
      const advertised = advertisedPrice(c.source);
      if (advertised !== undefined) return fromProvider(advertised);
    }
    const gk = c.type === 'class' ? c.templateKind : c.kind;
    const kind = sources.kind(gk.group, gk.kind);
    const impl = kind === undefined ? undefined : implementationFor(kind, claim.kind);
    if (kind === undefined || impl?.price === undefined) {
      return {
        note:
          c.type === 'class'
            ? `${gk.kind} states no price: set the class's annotation ${MONTHLY_COST_ANNOTATION}`
            : `${gk.kind} ${c.namespace}/${c.name} advertises no status.atProvider.monthlyPrice`,
      };
    }
    const provider = providerOf(sources, c.type === 'class' && c.target !== undefined ? `${sources.systemNamespace}/${c.target}` : c.provider);
    const region = c.capabilities.region;
    return fromProvider(
      impl.price(claimObject(claim), matchCandidate(kind, c), { ...(provider === undefined ? {} : { provider }), ...(region === undefined ? {} : { region }) }),
    );
  };
}

function providerOf(sources: PriceSources, ref: string | undefined): KObject | undefined {
  if (ref === undefined) return undefined;
  const slash = ref.indexOf('/');
  return slash < 0 ? undefined : sources.provider(ref.slice(0, slash), ref.slice(slash + 1));
}

/** fromProvider turns a provider's MonthlyPrice (an amount as a decimal string) into the scheduler's. */
export function fromProvider(p: MonthlyPrice | NoPrice): CandidatePrice {
  if (p.amount === undefined) return { note: p.reason };
  const amount = Number(p.amount);
  if (!Number.isFinite(amount) || amount < 0) return { note: `the price ${JSON.stringify(p.amount)} ${p.currency} is not an amount` };
  return { amount, currency: p.currency, basis: p.table === '' || p.table === 'none' ? p.basis : `${p.basis}; ${p.table}` };
}
