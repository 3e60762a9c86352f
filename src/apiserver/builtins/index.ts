/**
 * The built-in kinds: their ResourceTypes (schemas, printer columns, strategies), the
 * shared ObjectMeta schema and validation, and how their tables are laid out.
 */
export { builtinResourceTypes } from './builtins.js';
export { verbsFor } from './verbs.js';
export { objectMetaSchema, newObjectMetaSchema } from './object-meta-schema.js';
export {
  validateObjectMeta,
  validateObjectMetaUpdate,
  objectMetaOptionsFor,
  standardFinalizers,
  type NameFormat,
  type ObjectMetaOptions,
} from './object-meta.js';
export { tableLayoutFor, humanDuration, timestampAge, type TableLayout } from './table.js';
export { namespaceResourceType, kubernetesFinalizer, namespaceNameLabel } from './namespace.js';
export { secretResourceType, defaultSecretType } from './secret.js';
export { pruneKindResourceTypes, readOnlyVerbs } from './prune-kinds.js';
export { configMapResourceType } from './config-map.js';
export { eventResourceType } from './event.js';
export { serviceAccountResourceType } from './service-account.js';
export { leaseResourceType } from './lease.js';
export { rbacResourceTypes, rbacGroup, validateRules, validateBinding } from './rbac.js';
export { crdResourceType, applyCrdDefaults } from './custom-resource-definition.js';
export { crdConditionTrue, storageVersionOf } from './crd-validation.js';
