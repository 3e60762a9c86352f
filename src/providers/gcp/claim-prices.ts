/**
 * What a gcp resource costs a month, read off the resource the way its client reads it (the
 * region from forProvider, else the Provider's spec.region): the `price` hook the scheduler
 * asks for each class (the resource its template would become for the claim) and resource.
 */
import type { KObject } from '../../machinery/object.js';
import type { MonthlyPrice, NoPrice } from '../prices.js';
import { bucketSettings, cloudSqlSettings, memorystoreSettings } from './kind-settings.js';
import { CLOUD_SQL_PRICES, GCS_PRICES, MEMORYSTORE_PRICES, PUBSUB_PRICES, SPANNER_PRICES } from './price-table.js';
import { cloudSqlMonthlyPrice, gcsMonthlyPrice, memorystoreMonthlyPrice, pubSubMonthlyPrice, spannerMonthlyPrice } from './prices.js';
import { forProviderOf, integerOr, regionOf, sizeOf } from './settings.js';

/** pubSubTopicPrice: the stored messages of the resource's capacity.storage (one global price). */
export function pubSubTopicPrice(resource: KObject): MonthlyPrice | NoPrice {
  return pubSubMonthlyPrice(PUBSUB_PRICES, sizeOf(resource));
}

/** spannerDatabasePrice: the instance's processing units and the storage, in its region. */
export function spannerDatabasePrice(resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice {
  const units = integerOr(forProviderOf(resource).processingUnits, 100, 100000, 100);
  return spannerMonthlyPrice(SPANNER_PRICES, regionOf(resource, provider), units, sizeOf(resource));
}

/** What a resource's settings say of its price, or why it has none: the settings' own error (no region, a size not offered). */
function pricedBySettings<S>(read: () => S, price: (settings: S) => MonthlyPrice | NoPrice): MonthlyPrice | NoPrice {
  let settings: S;
  try {
    settings = read();
  } catch (err) {
    return { reason: err instanceof Error ? err.message : String(err) };
  }
  return price(settings);
}

/** cloudSqlInstancePrice: the tier's compute and the SSD storage, doubled for high availability, in the instance's region. */
export function cloudSqlInstancePrice(resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice {
  return pricedBySettings(
    () => cloudSqlSettings(resource, provider),
    (s) => cloudSqlMonthlyPrice(CLOUD_SQL_PRICES, s.region, s.tier, s.storageGb, s.highAvailability),
  );
}

/** memorystoreInstancePrice: the provisioned memory at its tier's rate, in the instance's region. */
export function memorystoreInstancePrice(resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice {
  return pricedBySettings(
    () => memorystoreSettings(resource, provider, ''),
    (s) => memorystoreMonthlyPrice(MEMORYSTORE_PRICES, s.region, s.tier, s.memorySizeGb),
  );
}

/** gcsBucketPrice: the resource's capacity.storage at rest in its storage class and region. */
export function gcsBucketPrice(resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice {
  return pricedBySettings(
    () => bucketSettings(resource, provider, ''),
    (s) => gcsMonthlyPrice(GCS_PRICES, s.region, s.storageClass, sizeOf(resource)),
  );
}
