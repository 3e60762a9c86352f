/**
 * The core/v1 ServiceAccount kind: an identity for processes (workloads, controllers) as
 * opposed to people, with the secrets they may use.
 */
import type { ResourceType, Strategy } from '../registry/resource-type.js';
import { localObjectReferenceSchema, objectReferenceSchema, resourceSchema } from './object-meta-schema.js';
import { arr, bool } from './schema-builders.js';
import { verbsFor } from './verbs.js';

function serviceAccountSchema() {
  return resourceSchema('A ServiceAccount is an identity for processes rather than people: workloads and controllers authenticate as it.', {
    secrets: arr(
      'Secrets in the same namespace that workloads running as this account may use. Entries are matched by name when patched.',
      objectReferenceSchema('A reference to a Secret in the same namespace.'),
      { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' },
    ),
    imagePullSecrets: arr(
      'Secrets in the same namespace holding registry credentials, used to pull images for workloads running as this account.',
      localObjectReferenceSchema('A reference to a Secret in the same namespace.'),
    ),
    automountServiceAccountToken: bool('Whether workloads running as this account get an API token mounted automatically; a workload setting overrides it.'),
  });
}

/** A serviceAccountStrategy: ServiceAccounts have no rules beyond their metadata. */
export const serviceAccountStrategy: Strategy = {
  validate: () => [],
  selectableFields: () => ({}),
};

/** The ResourceType of core/v1 ServiceAccount. */
export function serviceAccountResourceType(): ResourceType {
  return {
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    listKind: 'ServiceAccountList',
    resource: 'serviceaccounts',
    singular: 'serviceaccount',
    shortNames: ['sa'],
    categories: [],
    namespaced: true,
    subresources: { status: false },
    verbs: verbsFor('ServiceAccount'),
    schema: serviceAccountSchema(),
    printerColumns: [
      {
        name: 'Secrets',
        type: 'integer',
        description: 'The number of secrets the account may use.',
        cell: (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0),
      },
    ],
    tracksGeneration: false,
    structural: false,
    strategy: serviceAccountStrategy,
    source: { type: 'builtin' },
  };
}
