/**
 * Monthly prices of the aws kinds from the tables in price-table.ts: what a resource
 * advertises in `status.atProvider.monthlyPrice` (or `priceNote`, saying why there is none).
 */
import { parseQuantity } from '../../machinery/quantity/quantity.js';
import { cents, HOURS_PER_MONTH, tableOf, type MonthlyPrice, type NoPrice } from '../prices.js';
import {
  ELASTICACHE_PRICES,
  RDS_PRICES,
  S3_STANDARD_PRICES,
  type AwsRegion,
  type ElastiCacheNodeType,
  type RdsEngine,
  type RdsInstanceClass,
  type RdsStorageType,
} from './price-table.js';

/** Hours in a month, as AWS's calculator counts them. */
export { HOURS_PER_MONTH };
const GB = 1e9;

/** s3MonthlyPrice is the price of storing `size` (a quantity such as "100Gi") in S3 Standard in `region`, or why there is none. */
export function s3MonthlyPrice(region: AwsRegion | undefined, size: string | number | undefined): MonthlyPrice | NoPrice {
  if (!region) return { reason: 'no region: set spec.forProvider.region (or the Provider spec.region) to price it' };
  const rate = S3_STANDARD_PRICES.perGbMonth[region];
  if (rate === undefined) return { reason: `the price table of ${S3_STANDARD_PRICES.asOf} has no S3 Standard price for ${region}` };
  if (size === undefined) return { reason: 'no size: set spec.capabilities.capacity.storage (the claim sets it from its requirements) to price it' };
  let bytes: number;
  try {
    bytes = parseQuantity(String(size)).toNumber();
  } catch {
    return { reason: `capacity.storage "${String(size)}" is not a quantity` };
  }
  const gb = bytes / GB;
  const shownGb = Number.isInteger(gb) ? String(gb) : gb.toFixed(2);
  return {
    amount: cents(gb * rate),
    currency: S3_STANDARD_PRICES.currency,
    basis: `${shownGb} GB × ${rate} USD/GB-month (${region}, S3 Standard)`,
    table: tableOf(S3_STANDARD_PRICES),
  };
}

/** What an RDS instance is priced by. */
export interface RdsSize {
  engine: RdsEngine;
  region: AwsRegion | undefined;
  instanceClass: RdsInstanceClass;
  allocatedStorageGb: number;
  storageType: RdsStorageType;
  multiAZ: boolean;
}

/** rdsMonthlyPrice is the instance hours (730 a month) plus the storage, doubled for Multi-AZ, or why there is none. */
export function rdsMonthlyPrice(size: RdsSize): MonthlyPrice | NoPrice {
  if (!size.region) return { reason: 'no region: set spec.forProvider.region (or the Provider spec.region) to price it' };
  const hourly = RDS_PRICES.perHour[size.engine][size.region]?.[size.instanceClass];
  if (hourly === undefined) return { reason: `the price table of ${RDS_PRICES.asOf} has no ${size.engine} ${size.instanceClass} price for ${size.region}` };
  const storage = RDS_PRICES.storagePerGbMonth[size.region]?.[size.storageType];
  if (storage === undefined) return { reason: `the price table of ${RDS_PRICES.asOf} has no ${size.storageType} storage price for ${size.region}` };
  const factor = size.multiAZ ? 2 : 1;
  const total = factor * (hourly * HOURS_PER_MONTH + storage * size.allocatedStorageGb);
  return {
    amount: cents(total),
    currency: RDS_PRICES.currency,
    basis:
      `${factor > 1 ? '2 × (' : ''}${HOURS_PER_MONTH} h × ${hourly} USD/h (${size.engine} ${size.instanceClass}) + ` +
      `${size.allocatedStorageGb} GB × ${storage} USD/GB-month (${size.storageType})${factor > 1 ? ') for Multi-AZ' : ''}, ${size.region}`,
    table: tableOf(RDS_PRICES),
  };
}

export { priceStatus, type MonthlyPrice, type NoPrice } from '../prices.js';

/** What an ElastiCache replication group is priced by. */
export interface ElastiCacheSize {
  region: AwsRegion | undefined;
  nodeType: ElastiCacheNodeType;
  /** Nodes in the group: the primary and its replicas. */
  nodes: number;
}

/** elastiCacheMonthlyPrice is 730 node-hours per node of the group, or why there is none. */
export function elastiCacheMonthlyPrice(size: ElastiCacheSize): MonthlyPrice | NoPrice {
  if (!size.region) return { reason: 'no region: set spec.forProvider.region (or the Provider spec.region) to price it' };
  const hourly = ELASTICACHE_PRICES.perNodeHour[size.region]?.[size.nodeType];
  if (hourly === undefined) return { reason: `the price table of ${ELASTICACHE_PRICES.asOf} has no ${size.nodeType} price for ${size.region}` };
  return {
    amount: cents(size.nodes * hourly * HOURS_PER_MONTH),
    currency: ELASTICACHE_PRICES.currency,
    basis: `${size.nodes} node${size.nodes === 1 ? '' : 's'} × ${HOURS_PER_MONTH} h × ${hourly} USD/h (${size.nodeType}), ${size.region}`,
    table: tableOf(ELASTICACHE_PRICES),
  };
}
