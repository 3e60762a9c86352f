/**
 * The monthly price of a Pub/Sub topic's stored messages and of a Spanner database (its
 * instance's compute and its storage), from the tables in price-table.ts: what the resources
 * advertise in `status.atProvider.monthlyPrice`.
 */
import type { JsonObject } from '../../machinery/object.js';
import { parseQuantity } from '../../machinery/quantity/quantity.js';
import { HOURS_PER_MONTH, type GcpRegion, type PriceSource, type PubSubPriceTable, type SpannerPriceTable } from './price-table.js';

/** A MonthlyPrice is what a resource costs a month, with how it was worked out. */
export interface MonthlyPrice {
  /** The amount, rounded up to cents, as a decimal string ("65.70"). */
  amount: string;
  currency: string;
  basis: string;
  /** The table's date and source. */
  table: string;
}

/** A price that cannot be worked out, and why. */
export interface NoPrice {
  amount?: undefined;
  reason: string;
}

const cents = (n: number) => (Math.ceil(n * 100 - 1e-9) / 100).toFixed(2);
const tableOf = (t: PriceSource) => `${t.asOf}${t.verified ? '' : ', unverified'}; ${t.source}`;

function bytesOf(size: string | number | undefined): number | NoPrice {
  if (size === undefined) return { reason: 'no size: set spec.capabilities.capacity.storage (the claim sets it from its requirements) to price it' };
  try {
    return parseQuantity(String(size)).toNumber();
  } catch {
    return { reason: `capacity.storage "${String(size)}" is not a quantity` };
  }
}

/** pubSubMonthlyPrice is the storage price of `size` of retained messages (Pub/Sub has one global price). */
export function pubSubMonthlyPrice(table: PubSubPriceTable, size: string | number | undefined): MonthlyPrice | NoPrice {
  const bytes = bytesOf(size);
  if (typeof bytes !== 'number') return bytes;
  const gib = bytes / 2 ** 30;
  return {
    amount: cents(gib * table.storagePerGibMonth),
    currency: table.currency,
    basis: `${Number.isInteger(gib) ? gib : gib.toFixed(2)} GiB of stored messages × ${table.storagePerGibMonth} ${table.currency}/GiB-month (global; throughput not priced)`,
    table: tableOf(table),
  };
}

/** spannerMonthlyPrice is compute (processing units × the node-hour rate × 730 h) plus storage of `size`, in `region`. */
export function spannerMonthlyPrice(
  table: SpannerPriceTable,
  region: GcpRegion | undefined,
  processingUnits: number,
  size: string | number | undefined,
): MonthlyPrice | NoPrice {
  if (!region) return { reason: 'no region: set spec.forProvider.region to price it' };
  const rates = table.regional[region];
  if (!rates) return { reason: `the price table of ${table.asOf} has no Spanner price for ${region}` };
  const bytes = bytesOf(size);
  if (typeof bytes !== 'number') return bytes;
  const gb = bytes / 1e9;
  const nodes = processingUnits / 1000;
  const compute = nodes * rates.perNodeHour * HOURS_PER_MONTH;
  return {
    amount: cents(compute + gb * rates.storagePerGbMonth),
    currency: table.currency,
    basis: `${processingUnits} PU × ${rates.perNodeHour} ${table.currency}/node-hour × ${HOURS_PER_MONTH} h + ${Number.isInteger(gb) ? gb : gb.toFixed(2)} GB × ${rates.storagePerGbMonth} ${table.currency}/GB-month (${region})`,
    table: tableOf(table),
  };
}

/** priceStatus is what `status.atProvider` says of a price: `monthlyPrice`, or `priceNote` saying why there is none. */
export function priceStatus(price: MonthlyPrice | NoPrice): JsonObject {
  if (price.amount === undefined) return { priceNote: price.reason };
  return { monthlyPrice: { amount: price.amount, currency: price.currency, basis: price.basis, table: price.table } };
}
