/**
 * What an azure resource costs a month, read off the resource the way its client reads it
 * (the location from forProvider, else the Provider's spec.region; the redundancy; the
 * capacity.storage): the `price` hook the scheduler asks for each class (the resource its
 * template would become for the claim) and resource.
 */
import type { KObject } from '../../machinery/object.js';
import type { MonthlyPrice, NoPrice } from '../prices.js';
import { armResourceSettings } from './arm-settings.js';
import { flexibleServerSize, mysqlStorageFor, postgresStorageFor } from './flexible-server.js';
import {
  BLOB_HOT_PRICES,
  MYSQL_FLEXIBLE_PRICES,
  POSTGRES_FLEXIBLE_PRICES,
  QUEUE_PRICES,
  REDIS_PRICES,
  type AzureLocation,
  type PriceTable,
} from './price-table.js';
import { hourlyMonthlyPrice, monthlyPrice } from './prices.js';
import { redisCacheSku, redisSize } from './redis-cache.js';
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

/** The location an ARM resource is priced in (forProvider.location, else the Provider's region), or undefined when it has none or its name cannot be read. */
function armLocationOf(resource: KObject, provider: KObject | undefined, kind: 'server' | 'cache', nameField: string): AzureLocation | undefined {
  try {
    return armResourceSettings(resource, kind, nameField, provider).location;
  } catch {
    return undefined;
  }
}

/** flexibleServerPrice: a month of the server's SKU plus its storage, for PostgreSQL or MySQL. */
export function flexibleServerPrice(engine: 'postgres' | 'mysql') {
  const table = engine === 'postgres' ? POSTGRES_FLEXIBLE_PRICES : MYSQL_FLEXIBLE_PRICES;
  const storageFor = engine === 'postgres' ? postgresStorageFor : mysqlStorageFor;
  return (resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice => {
    const size = flexibleServerSize(resource, storageFor);
    return hourlyMonthlyPrice(table, armLocationOf(resource, provider, 'server', 'serverName'), size.skuName, size.storageSizeGB);
  };
}

/** redisCachePrice: a month of the cache's SKU and size (e.g. "Basic C0"). */
export function redisCachePrice(resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice {
  const sku = redisCacheSku(resource);
  return hourlyMonthlyPrice(REDIS_PRICES, armLocationOf(resource, provider, 'cache', 'cacheName'), `${sku.sku} ${redisSize(sku)}`);
}
