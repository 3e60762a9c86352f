/**
 * A valid sample object of the kubernetes provider's kind, typed with its TypeScript type,
 * for tests (the catalog's: every CRD accepts its samples). Each call returns fresh objects.
 */
import type { KObject } from '../../machinery/object.js';
import { SYSTEM_NAMESPACE } from '../../apis/well-known.js';
import { kubernetesObjectKind } from './kinds.js';

/** One valid object of every kind of the kubernetes provider, in conductor-system. */
export function kubernetesSampleObjects(): KObject[] {
  return [
    kubernetesObjectKind.make({
      metadata: { name: 'kobj-0001', namespace: SYSTEM_NAMESPACE },
      spec: {
        providerRef: { name: 'target' },
        rebindPolicy: 'Delete',
        managementPolicy: 'Full',
        forProvider: {
          manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { color: 'red' } },
          readiness: { type: 'Conditions' },
          connectionDetails: [
            { fromField: '.data.color', toKey: 'color' },
            { fromConfigMapKey: 'url', configMapName: '$(object.name)-urls', toKey: 'url' },
          ],
        },
      },
    }),
  ];
}
