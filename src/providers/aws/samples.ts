/**
 * Valid sample objects of the aws provider's kinds, for tests (the catalog's: every CRD
 * accepts its samples). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { elastiCacheReplicationGroupKind, rdsInstanceKind, s3BucketKind, sqsQueueKind } from './kinds.js';

/** One valid object of every kind of the aws provider, in conductor-system. */
export function awsSampleObjects(): KObject[] {
  return [
    s3BucketKind.make({
      metadata: { name: 's3b-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'aws' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        capabilities: { region: 'eu-west-1', capacity: { storage: '100Gi' } },
        forProvider: { bucketName: 'assets-0001.example', region: 'eu-west-1', versioning: true },
      },
    }),
    sqsQueueKind.make({
      metadata: { name: 'sqs-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'aws' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        forProvider: { queueName: 'orders-0001.fifo', region: 'us-east-1', fifo: true, messageRetentionSeconds: 86_400, visibilityTimeoutSeconds: 60 },
      },
    }),
    rdsInstanceKind.make({
      metadata: { name: 'rds-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'aws' },
        rebindPolicy: 'Retain',
        managementPolicy: 'Full',
        forProvider: {
          instanceIdentifier: 'orders-db-0001',
          region: 'us-east-1',
          engine: 'postgres',
          engineVersion: '16',
          instanceClass: 'db.t4g.small',
          allocatedStorageGi: 50,
          storageType: 'gp3',
          multiAZ: false,
          publiclyAccessible: false,
          masterUsername: 'orders',
          databaseName: 'orders',
          vpcSecurityGroupIds: ['sg-0123456789abcdef0'],
          finalSnapshot: true,
        },
      },
    }),
    elastiCacheReplicationGroupKind.make({
      metadata: { name: 'ecrg-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'aws' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        capabilities: { region: 'us-east-1', capacity: { memory: '1Gi' } },
        forProvider: {
          replicationGroupId: 'sessions-0001',
          region: 'us-east-1',
          engineVersion: '7.1',
          nodeType: 'cache.t4g.small',
          replicas: 2,
          evictionPolicy: 'allkeys-lru',
          parameterGroupName: 'sessions-allkeys-lru',
          cacheSubnetGroupName: 'private',
          securityGroupIds: ['sg-0123456789abcdef0'],
          finalSnapshot: true,
        },
      },
    }),
  ];
}
