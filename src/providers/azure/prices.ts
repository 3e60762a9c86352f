/**
 * The monthly price of a container or queue of a given size, from the tables in
 * price-table.ts: what the resource advertises in `status.atProvider.monthlyPrice`.
 */
import { parseQuantity } from '../../machinery/quantity/quantity.js';
import type { ArmPriceTable, AzureLocation, AzureRedundancy, PriceTable } from './price-table.js';
import { cents, HOURS_PER_MONTH, tableOf, type MonthlyPrice, type NoPrice } from '../prices.js';

export type { MonthlyPrice, NoPrice } from '../prices.js';

const GB = 1e9;

/**
 * monthlyPrice is the price of `size` (a quantity such as "100Gi"; the capacity a claim asks)
 * in `location` with `redundancy`, or why there is none.
 */
export function monthlyPrice(
  table: PriceTable,
  location: AzureLocation | undefined,
  redundancy: AzureRedundancy,
  size: string | number | undefined,
): MonthlyPrice | NoPrice {
  if (!location) return { reason: 'no location: set spec.forProvider.location to price it' };
  const rate = table.perGbMonth[location]?.[redundancy];
  if (rate === undefined) return { reason: `the price table of ${table.asOf} has no ${redundancy} price for ${location}` };
  if (size === undefined) return { reason: 'no size: set spec.capabilities.capacity.storage (the claim sets it from its requirements) to price it' };
  let bytes: number;
  try {
    bytes = parseQuantity(String(size)).toNumber();
  } catch {
    return { reason: `capacity.storage "${String(size)}" is not a quantity` };
  }
  const gb = bytes / GB;
  const amount = cents(gb * rate);
  const shownGb = Number.isInteger(gb) ? String(gb) : gb.toFixed(2);
  return {
    amount,
    currency: table.currency,
    basis: `${shownGb} GB × ${rate} ${table.currency}/GB-month (${location}, ${redundancy})`,
    table: tableOf(table),
  };
}

/**
 * hourlyMonthlyPrice is a month of `size` in `location` (730 hours) plus `storageGb` of storage
 * when the table prices storage, or why there is none: what a flexible server or a cache
 * advertises in `status.atProvider.monthlyPrice`.
 */
export function hourlyMonthlyPrice(table: ArmPriceTable, location: AzureLocation | undefined, size: string, storageGb?: number): MonthlyPrice | NoPrice {
  if (!location) return { reason: "no location: set spec.forProvider.location (or the Provider's spec.region) to price it" };
  const hourly = table.perHour[location]?.[size];
  if (hourly === undefined) return { reason: `the price table of ${table.asOf} has no price of ${size} in ${location}` };
  const storageRate = storageGb !== undefined ? table.storagePerGbMonth?.[location] : undefined;
  if (storageGb !== undefined && storageRate === undefined) return { reason: `the price table of ${table.asOf} has no storage price in ${location}` };
  const compute = hourly * HOURS_PER_MONTH;
  const storage = storageGb !== undefined && storageRate !== undefined ? storageGb * storageRate : 0;
  const amount = cents(compute + storage);
  const basis =
    `${HOURS_PER_MONTH} h × ${hourly} ${table.currency}/h (${size}, ${location})` +
    (storageGb !== undefined ? ` + ${storageGb} GB × ${storageRate} ${table.currency}/GB-month` : '');
  return { amount, currency: table.currency, basis, table: tableOf(table) };
}
