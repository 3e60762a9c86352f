/**
 * Valid sample objects of the azure provider's kinds, for tests (the catalog's: every CRD
 * accepts its samples). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { blobContainerKind, mysqlFlexibleServerKind, postgresqlFlexibleServerKind, redisCacheKind, storageQueueKind } from './kinds.js';

/** One valid object of every kind of the azure provider, in conductor-system. */
export function azureSampleObjects(): KObject[] {
  return [
    blobContainerKind.make({
      metadata: { name: 'azblob-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'azure' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        capabilities: { region: 'westeurope', capacity: { storage: '100Gi' } },
        forProvider: { containerName: 'assets-0001', publicAccess: 'None', location: 'westeurope', redundancy: 'LRS', sasValidityDays: 30 },
      },
    }),
    storageQueueKind.make({
      metadata: { name: 'azqueue-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'azure' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        forProvider: { queueName: 'orders-0001', location: 'eastus', redundancy: 'LRS', sasValidityDays: 30 },
      },
    }),
    postgresqlFlexibleServerKind.make({
      metadata: { name: 'azpg-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'azure' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        capabilities: { region: 'eastus', capacity: { storage: '32Gi' } },
        forProvider: {
          serverName: 'shop-pg-0001',
          location: 'eastus',
          version: '16',
          skuName: 'Standard_B1ms',
          storageSizeGB: 64,
          administratorLogin: 'conductor',
          databaseName: 'app',
        },
      },
    }),
    mysqlFlexibleServerKind.make({
      metadata: { name: 'azmysql-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'azure' },
        rebindPolicy: 'Retain',
        managementPolicy: 'ObserveOnly',
        forProvider: {
          serverName: 'shop-mysql-0001',
          location: 'westeurope',
          version: '8.0.21',
          skuName: 'Standard_B2s',
          storageSizeGB: 32,
          administratorLogin: 'conductor',
          databaseName: 'app',
        },
      },
    }),
    redisCacheKind.make({
      metadata: { name: 'azredis-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'azure' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        forProvider: { cacheName: 'shop-cache-0001', location: 'eastus', sku: 'Standard', capacity: 1 },
      },
    }),
  ];
}
