/**
 * Valid sample objects of the gcp provider's kinds, for tests (the catalog's: every CRD
 * accepts its samples). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { cloudSqlInstanceKind, gcsBucketKind, memorystoreInstanceKind, pubSubTopicKind, spannerDatabaseKind } from './kinds.js';

/** One valid object of every kind of the gcp provider, in conductor-system. */
export function gcpSampleObjects(): KObject[] {
  return [
    pubSubTopicKind.make({
      metadata: { name: 'gcptopic-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'gcp' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        capabilities: { region: 'europe-west1', capacity: { storage: '10Gi' } },
        forProvider: {
          topicId: 'orders-0001',
          subscriptionId: 'orders-0001-sub',
          messageRetentionSeconds: 86400,
          ackDeadlineSeconds: 30,
          region: 'europe-west1',
        },
      },
    }),
    spannerDatabaseKind.make({
      metadata: { name: 'spanner-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'gcp' },
        rebindPolicy: 'Retain',
        managementPolicy: 'Full',
        forProvider: {
          instanceId: 'shared-pg',
          databaseId: 'orders_0001',
          instanceConfig: 'regional-us-central1',
          processingUnits: 100,
          region: 'us-central1',
        },
      },
    }),
    cloudSqlInstanceKind.make({
      metadata: { name: 'cloudsql-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'gcp' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        capabilities: { region: 'us-central1', capacity: { storage: '20Gi' } },
        forProvider: {
          instanceId: 'orders-pg-0001',
          region: 'us-central1',
          engine: 'POSTGRES',
          databaseVersion: 'POSTGRES_16',
          tier: 'db-custom-2-7680',
          storageGb: 20,
          highAvailability: false,
          publicIp: true,
          databaseName: 'orders',
          username: 'shop',
        },
      },
    }),
    memorystoreInstanceKind.make({
      metadata: { name: 'memorystore-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'gcp' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        forProvider: {
          instanceId: 'sessions-0001',
          region: 'europe-west1',
          tier: 'BASIC',
          memorySizeGb: 1,
          redisVersion: 'REDIS_7_2',
          authEnabled: true,
          transitEncryption: false,
          evictionPolicy: 'allkeys-lru',
        },
      },
    }),
    gcsBucketKind.make({
      metadata: { name: 'gcs-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'gcp' },
        rebindPolicy: 'Retain',
        managementPolicy: 'Full',
        forProvider: { bucketName: 'shop-assets-0001', region: 'us-east1', storageClass: 'STANDARD', versioning: true, publicRead: false, forceDestroy: false },
      },
    }),
  ];
}
