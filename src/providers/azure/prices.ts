/**
 * The monthly price of a container or queue of a given size, from the tables in
 * price-table.ts: what the resource advertises in `status.atProvider.monthlyPrice`.
 */
import { parseQuantity } from '../../machinery/quantity/quantity.js';
import type { AzureLocation, AzureRedundancy, PriceTable } from './price-table.js';
import { cents, tableOf, type MonthlyPrice, type NoPrice } from '../prices.js';

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
