/**
 * The monthly price of a Pub/Sub topic's stored messages and of a Spanner database (its
 * instance's compute and its storage), from the tables in price-table.ts: what the resources
 * advertise in `status.atProvider.monthlyPrice`.
 */
import { bytesOf, cents, tableOf, type MonthlyPrice, type NoPrice } from '../prices.js';
import {
  HOURS_PER_MONTH,
  type CloudSqlPriceTable,
  type GcpRegion,
  type GcsPriceTable,
  type GcsStorageClass,
  type MemorystorePriceTable,
  type MemorystoreTier,
  type PubSubPriceTable,
  type SpannerPriceTable,
} from './price-table.js';
import { cloudSqlTierOf } from './tiers.js';

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

/** cloudSqlMonthlyPrice is compute (the tier's vCPUs and memory, or a shared-core rate) plus SSD storage, doubled for high availability. */
export function cloudSqlMonthlyPrice(
  table: CloudSqlPriceTable,
  region: GcpRegion | undefined,
  tier: string,
  storageGb: number,
  highAvailability: boolean,
): MonthlyPrice | NoPrice {
  if (!region) return { reason: 'no region: set spec.forProvider.region to price it' };
  const rates = table.regional[region];
  if (!rates) return { reason: `the price table of ${table.asOf} has no Cloud SQL price for ${region}` };
  const t = cloudSqlTierOf(tier);
  if ('problem' in t) return { reason: t.problem };
  const hourly = t.shared ? rates.sharedCore[t.shared] : t.vcpus * rates.perVcpuHour + t.memoryGb * rates.perGbMemoryHour;
  const copies = highAvailability ? 2 : 1;
  const total = copies * (hourly * HOURS_PER_MONTH + storageGb * rates.ssdPerGbMonth);
  const compute = t.shared
    ? `${tier} at ${rates.sharedCore[t.shared]} ${table.currency}/h`
    : `${t.vcpus} vCPU × ${rates.perVcpuHour} + ${t.memoryGb} GB × ${rates.perGbMemoryHour} ${table.currency}/h`;
  return {
    amount: cents(total),
    currency: table.currency,
    basis: `${copies > 1 ? '2 × (' : ''}${compute} × ${HOURS_PER_MONTH} h + ${storageGb} GB SSD × ${rates.ssdPerGbMonth} ${table.currency}/GB-month${copies > 1 ? ') (high availability)' : ''} (${region})`,
    table: tableOf(table),
  };
}

/** memorystoreMonthlyPrice is the provisioned capacity × the GB-hour rate of its tier and capacity band × 730 h. */
export function memorystoreMonthlyPrice(
  table: MemorystorePriceTable,
  region: GcpRegion | undefined,
  tier: MemorystoreTier,
  memorySizeGb: number,
): MonthlyPrice | NoPrice {
  if (!region) return { reason: 'no region: set spec.forProvider.region to price it' };
  const rates = table.regional[region];
  if (!rates) return { reason: `the price table of ${table.asOf} has no Memorystore price for ${region}` };
  let band = 0;
  table.bandsFromGb.forEach((from, i) => {
    if (memorySizeGb >= from) band = i;
  });
  const rate = rates[tier][band];
  return {
    amount: cents(memorySizeGb * rate * HOURS_PER_MONTH),
    currency: table.currency,
    basis: `${memorySizeGb} GB × ${rate} ${table.currency}/GB-hour (${tier}, M${band + 1}) × ${HOURS_PER_MONTH} h (${region})`,
    table: tableOf(table),
  };
}

/** gcsMonthlyPrice is `size` at rest in a regional bucket of `storageClass` (operations and egress not priced). */
export function gcsMonthlyPrice(
  table: GcsPriceTable,
  region: GcpRegion | undefined,
  storageClass: GcsStorageClass,
  size: string | number | undefined,
): MonthlyPrice | NoPrice {
  if (!region) return { reason: 'no region: set spec.forProvider.region to price it' };
  const rates = table.regional[region];
  if (!rates) return { reason: `the price table of ${table.asOf} has no Cloud Storage price for ${region}` };
  const bytes = bytesOf(size);
  if (typeof bytes !== 'number') return bytes;
  const gb = bytes / 1e9;
  return {
    amount: cents(gb * rates[storageClass]),
    currency: table.currency,
    basis: `${Number.isInteger(gb) ? gb : gb.toFixed(2)} GB × ${rates[storageClass]} ${table.currency}/GB-month (${storageClass}, ${region}; operations and egress not priced)`,
    table: tableOf(table),
  };
}
