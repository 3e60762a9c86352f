/**
 * A valid sample object of the memory provider's kind, typed with its TypeScript type, for
 * tests (the catalog's: every CRD accepts its samples). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { memoryDatabaseKind } from './kinds.js';

/** One valid object of every kind of the memory provider, in conductor-system. */
export function memorySampleObjects(): KObject[] {
  return [
    memoryDatabaseKind.make({
      metadata: { name: 'memdb-0001', namespace: SYSTEM_NAMESPACE, labels: { environment: 'dev' } },
      spec: {
        version: '16.4',
        masterUsername: 'app',
        databaseName: 'app',
        port: 5432,
        rebindPolicy: 'Recycle',
        managementPolicy: 'Full',
        capabilities: { capacity: { storage: '10Gi' }, region: 'us-east-1', cost: 'free-tier' },
        sharing: { mode: 'Exclusive' },
      },
    }),
  ];
}
