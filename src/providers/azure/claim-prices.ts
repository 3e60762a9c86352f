/**
 * What an azure resource costs a month, read off the resource the way its client reads it
 * (the location from forProvider, else the Provider's spec.region; the redundancy; the
 * capacity.storage): the `price` hook the scheduler asks for each class (the resource its
 * template would become for the claim) and resource.
 */
import type { KObject } from '../../machinery/object.js';
import type { MonthlyPrice, NoPrice } from '../prices.js';
import { BLOB_HOT_PRICES, QUEUE_PRICES, type PriceTable } from './price-table.js';
import { monthlyPrice } from './prices.js';
import { resourceSettings } from './resource-settings.js';

function priceWith(
  table: PriceTable,
  resource: KObject,
  provider: KObject | undefined,
  kind: 'container' | 'queue',
  nameField: string,
): MonthlyPrice | NoPrice {
  try {
    const s = resourceSettings(resource, kind, nameField, provider);
    return monthlyPrice(table, s.location, s.redundancy, s.size);
  } catch (err) {
    return { reason: err instanceof Error ? err.message : String(err) };
  }
}

/** blobContainerPrice: Hot blob storage of the resource's capacity.storage. */
export const blobContainerPrice = (resource: KObject, provider: KObject | undefined) =>
  priceWith(BLOB_HOT_PRICES, resource, provider, 'container', 'containerName');

/** storageQueuePrice: queue storage of the resource's capacity.storage. */
export const storageQueuePrice = (resource: KObject, provider: KObject | undefined) => priceWith(QUEUE_PRICES, resource, provider, 'queue', 'queueName');
