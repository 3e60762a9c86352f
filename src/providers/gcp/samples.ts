/**
 * Valid sample objects of the gcp provider's kinds, for tests (the catalog's: every CRD
 * accepts its samples). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { pubSubTopicKind, spannerDatabaseKind } from './kinds.js';

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
  ];
}
