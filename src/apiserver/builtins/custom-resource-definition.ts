/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition kind. Its strategy applies the v1
 * defaults (singular, listKind, conversion), starts the status afresh on create with the
 * storage version recorded in storedVersions, and adds each new storage version to that
 * list on update.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { ResourceType, Strategy } from '../registry/resource-type.js';
import { crdSchema } from './crd-schema.js';
import { storageVersionOf, validateCrd } from './crd-validation.js';
import { verbsFor } from './verbs.js';

/** Fills in the defaults the v1 API gives a CRD spec. */
export function applyCrdDefaults(crd: KObject): void {
  if (!isPlainObject(crd.spec)) return;
  const spec = crd.spec;
  if (isPlainObject(spec.names)) {
    const names = spec.names;
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if ((names.singular === undefined || names.singular === '') && kind !== '') names.singular = kind.toLowerCase();
    if ((names.listKind === undefined || names.listKind === '') && kind !== '') names.listKind = `${kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const conversion = spec.conversion;
  if (isPlainObject(conversion) && isPlainObject(conversion.webhook) && isPlainObject(conversion.webhook.clientConfig)) {
    const service = conversion.webhook.clientConfig.service;
    if (isPlainObject(service) && service.port === undefined) service.port = 443;
  }
}

/** A crdStrategy holds CustomResourceDefinition defaults and checks. */
export const crdStrategy: Strategy = {
  prepareForCreate(crd: KObject): void {
    applyCrdDefaults(crd);
    const storage = storageVersionOf(crd);
    crd.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: storage !== undefined ? [storage] : [] };
  },
  prepareForUpdate(crd: KObject, old: KObject): void {
    applyCrdDefaults(crd);
    // Status belongs to the /status subresource; only the new storage version is recorded here.
    const status = isPlainObject(old.status) ? structuredClone(old.status) : {};
    const stored: unknown[] = Array.isArray(status.storedVersions) ? [...(status.storedVersions as unknown[])] : [];
    const storage = storageVersionOf(crd);
    if (storage !== undefined && !stored.includes(storage)) stored.push(storage);
    status.storedVersions = stored;
    crd.status = status;
  },
  validate: validateCrd,
  selectableFields: () => ({}),
};

/** The ResourceType of apiextensions.k8s.io/v1 CustomResourceDefinition. */
export function crdResourceType(): ResourceType {
  return {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    listKind: 'CustomResourceDefinitionList',
    resource: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    namespaced: false,
    subresources: { status: true },
    verbs: verbsFor('CustomResourceDefinition'),
    schema: crdSchema(),
    printerColumns: [
      {
        // kubectl shows the creation time itself here, not an age: the value is the
        // RFC 3339 timestamp, so the column is a string (the table must not humanise it).
        name: 'Created At',
        type: 'string',
        format: 'date-time',
        description: 'When the definition was created (RFC 3339).',
        jsonPath: '.metadata.creationTimestamp',
        cell: (o) => o.metadata.creationTimestamp ?? '',
      },
    ],
    tracksGeneration: true,
    structural: false,
    strategy: crdStrategy,
    source: { type: 'builtin' },
  };
}
