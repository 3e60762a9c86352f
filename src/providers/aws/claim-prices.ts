/**
 * What an aws resource costs a month, read off the resource the way its client reads it (the
 * region from forProvider, else the Provider's spec.region): the `price` hook the scheduler
 * asks for each class (the resource its template would become for the claim) and resource.
 */
import type { KObject } from '../../machinery/object.js';
import type { MonthlyPrice, NoPrice } from '../prices.js';
import {
  ELASTICACHE_NODE_TYPES,
  RDS_INSTANCE_CLASSES,
  RDS_STORAGE_TYPES,
  SQS_PRICE_NOTE,
  type ElastiCacheNodeType,
  type RdsInstanceClass,
  type RdsStorageType,
} from './price-table.js';
import { elastiCacheMonthlyPrice, rdsMonthlyPrice, s3MonthlyPrice } from './prices.js';
import { forProviderOf, regionOf, sizeOf, storageGiOf } from './settings.js';

function regionOrNone(resource: KObject, provider: KObject | undefined) {
  try {
    return regionOf(resource, provider, resource.metadata.name ?? '');
  } catch {
    return undefined;
  }
}

/** s3BucketPrice: S3 Standard storage of the resource's capacity.storage in its region. */
export function s3BucketPrice(resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice {
  return s3MonthlyPrice(regionOrNone(resource, provider), sizeOf(resource));
}

/** sqsQueuePrice: none — SQS is priced per request. */
export function sqsQueuePrice(): NoPrice {
  return { reason: SQS_PRICE_NOTE };
}

/** rdsInstancePrice: instance hours and storage of the resource's engine, class, storage and Multi-AZ setting. */
export function rdsInstancePrice(resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice {
  const fp = forProviderOf(resource);
  const instanceClass = (RDS_INSTANCE_CLASSES as readonly unknown[]).includes(fp.instanceClass) ? (fp.instanceClass as RdsInstanceClass) : 'db.t4g.micro';
  const storageType = (RDS_STORAGE_TYPES as readonly unknown[]).includes(fp.storageType) ? (fp.storageType as RdsStorageType) : 'gp3';
  const storageGi = typeof fp.allocatedStorageGi === 'number' && fp.allocatedStorageGi >= 20 ? fp.allocatedStorageGi : storageGiOf(sizeOf(resource), 20);
  return rdsMonthlyPrice({
    engine: fp.engine === 'mysql' ? 'mysql' : 'postgres',
    region: regionOrNone(resource, provider),
    instanceClass,
    allocatedStorageGb: storageGi,
    storageType,
    multiAZ: fp.multiAZ === true,
  });
}

/** elastiCacheReplicationGroupPrice: node hours of the group's node type, for the primary and its replicas (defaults as the client applies them). */
export function elastiCacheReplicationGroupPrice(resource: KObject, provider: KObject | undefined): MonthlyPrice | NoPrice {
  const fp = forProviderOf(resource);
  const nodeType = (ELASTICACHE_NODE_TYPES as readonly unknown[]).includes(fp.nodeType) ? (fp.nodeType as ElastiCacheNodeType) : 'cache.t4g.micro';
  const replicas = typeof fp.replicas === 'number' && Number.isInteger(fp.replicas) ? Math.min(5, Math.max(0, fp.replicas)) : 1;
  return elastiCacheMonthlyPrice({ region: regionOrNone(resource, provider), nodeType, nodes: replicas + 1 });
}
