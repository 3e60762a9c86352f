/**
 * Valid sample objects of the azure provider's kinds, for tests (the catalog's: every CRD
 * accepts its samples). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { blobContainerKind, storageQueueKind } from './kinds.js';

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
  ];
}
