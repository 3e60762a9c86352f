/**
 * What a gcp resource costs a month, read off the resource the way its client reads it (the
 * region from forProvider, else the Provider's spec.region): the `price` hook the scheduler
 * asks for each class (the resource its template would become for the claim) and resource.
 */
import type { KObject } from '../../machinery/object.js';
import type { MonthlyPrice, NoPrice } from '../prices.js';
import { PUBSUB_PRICES, SPANNER_PRICES } from './price-table.js';
import { pubSubMonthlyPrice, spannerMonthlyPrice } from './prices.js';
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
