/**
 * The monthly price of a Pub/Sub topic's stored messages and of a Spanner database (its
 * instance's compute and its storage), from the tables in price-table.ts: what the resources
 * advertise in `status.atProvider.monthlyPrice`.
 */
import { bytesOf, cents, tableOf, type MonthlyPrice, type NoPrice } from '../prices.js';
import { HOURS_PER_MONTH, type GcpRegion, type PubSubPriceTable, type SpannerPriceTable } from './price-table.js';

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

export { priceStatus, type MonthlyPrice, type NoPrice } from '../prices.js';
