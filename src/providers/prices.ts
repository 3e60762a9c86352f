/**
 * The price vocabulary every provider shares: how a monthly price is written (MonthlyPrice,
 * NoPrice, in spi.ts), rounded and dated, how a resource advertises it in
 * `status.atProvider`, and the price of what runs on Conductor's own machine. The numbers
 * themselves are each cloud's data (`<cloud>/price-table.ts`).
 */
import type { JsonObject, KObject } from '../machinery/object.js';
import { isPlainObject } from '../machinery/object.js';
import { parseQuantity } from '../machinery/quantity/quantity.js';
import { advertisedPrice, type ClaimImplementation, type ConcreteKind, type MonthlyPrice, type NoPrice } from './spi.js';

export { advertisedPrice, type MonthlyPrice, type NoPrice, type PriceContext } from './spi.js';

/** Where a price table's numbers came from, and whether they were checked. */
export interface PriceSource {
  /** The day the prices were read. */
  readonly asOf: string;
  readonly currency: string;
  /** Where the prices were read (and where to check them again). */
  readonly source: string;
  /** Whether the numbers were checked against the source on `asOf`; false: secondary sources, verify before relying on them. */
  readonly verified: boolean;
}

/** Hours in a month, as the clouds' calculators count them. */
export const HOURS_PER_MONTH = 730;

/** cents rounds an amount up to whole cents, as a decimal string ("2.30"). */
export function cents(n: number): string {
  return (Math.ceil(n * 100 - 1e-9) / 100).toFixed(2);
}

/** tableOf names a table by its date, whether it was verified, and its source. */
export function tableOf(t: PriceSource): string {
  return `${t.asOf}${t.verified ? '' : ', unverified'}; ${t.source}`;
}

/** isPrice tells a MonthlyPrice from a NoPrice. */
export function isPrice(p: MonthlyPrice | NoPrice): p is MonthlyPrice {
  return p.amount !== undefined;
}

/** priceStatus is what `status.atProvider` says of a price: `monthlyPrice`, or `priceNote` saying why there is none. */
export function priceStatus(price: MonthlyPrice | NoPrice): JsonObject {
  if (price.amount === undefined) return { priceNote: price.reason };
  return { monthlyPrice: { amount: price.amount, currency: price.currency, basis: price.basis, table: price.table } };
}

/** bytesOf is a size as a number of bytes, or why it cannot be read. */
export function bytesOf(size: string | number | undefined): number | NoPrice {
  if (size === undefined) return { reason: 'no size: set spec.capabilities.capacity.storage (the claim sets it from its requirements) to price it' };
  try {
    return parseQuantity(String(size)).toNumber();
  } catch {
    return { reason: `capacity.storage "${String(size)}" is not a quantity` };
  }
}

/**
 * The price of what runs on Conductor's own machine (the local and memory providers' kinds):
 * 0.00 USD a month — the machine is paid for already. An administrator who wants a local class
 * to count for more (power, hardware, support) sets the class's `conductor.io/monthly-cost`,
 * which wins over every kind's own price.
 */
export const OWN_MACHINE_PRICE: MonthlyPrice = Object.freeze({
  amount: '0.00',
  currency: 'USD',
  basis: "runs on Conductor's own machine (set the class's conductor.io/monthly-cost to count it)",
  table: 'none',
});

/** withOwnMachinePrice gives every claim implementation of `kinds` that has no price of its own OWN_MACHINE_PRICE. */
export function withOwnMachinePrice<K extends ConcreteKind>(kinds: readonly K[]): K[] {
  return kinds.map((kind) => ({
    ...kind,
    implements: kind.implements.map((impl): ClaimImplementation => (impl.price ? impl : { ...impl, price: () => OWN_MACHINE_PRICE })),
  }));
}

/**
 * pricedByConfiguring is the usual `price` hook of a cloud kind: a class is priced as the
 * resource its template would become for the claim (`configure`, then `priceOf` on that), an
 * existing resource by what it advertises in `status.atProvider` or else by `priceOf` on it.
 * `priceOf` reads a resource (spec, and the Provider for its region) the way observe does.
 */
export function pricedByConfiguring<R extends KObject>(
  configure: ClaimImplementation<R>['configure'],
  priceOf: (resource: KObject, provider: KObject | undefined) => MonthlyPrice | NoPrice,
): NonNullable<ClaimImplementation<R>['price']> {
  return (claim, candidate, context) => {
    if (candidate.type === 'resource') return advertisedPrice(candidate.resource) ?? priceOf(candidate.resource, context.provider);
    const spec = configure(claim, candidate.template);
    const capabilities = isPlainObject(spec['capabilities']) ? spec['capabilities'] : {};
    if (context.region !== undefined && capabilities['region'] === undefined) spec['capabilities'] = { ...capabilities, region: context.region };
    const wouldBe: KObject = {
      apiVersion: candidate.template.apiVersion,
      kind: candidate.template.kind,
      metadata: { name: claim.metadata.name ?? '', namespace: claim.metadata.namespace ?? '' },
      spec,
    };
    return priceOf(wouldBe, context.provider);
  };
}
