/**
 * Server-side apply: field sets and their FieldsV1 encoding, field ownership
 * (`metadata.managedFields`), apply with conflicts, and ownership tracking for ordinary writes.
 */
export type { FieldPath, PathElement } from './field-path.js';
export {
  canonicalJson,
  decodeElement,
  encodeElement,
  elementToString,
  fieldElement,
  indexElement,
  keyElement,
  pathToString,
  PathSyntaxError,
  valueElement,
} from './field-path.js';
export { FieldSet } from './field-set.js';
export type { FieldSetOfOptions } from './field-set-of.js';
export { fieldSetOf } from './field-set-of.js';
export type { Comparison } from './compare.js';
export { compareObjects } from './compare.js';
export type { ListType, Schema } from './type-info.js';
export { listTypeOf, objectMetaSchema } from './type-info.js';
export { defaultIgnoredPaths } from './path-filter.js';
export type { FieldsEntry, ObjectRef } from './managed-fields.js';
export {
  ancientChangesManager,
  beforeFirstApplyManager,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  maxUpdateManagers,
} from './managed-fields.js';
export type { Conflict } from './conflict.js';
export { conflictError } from './conflict.js';
export type { ApplyOptions, ApplyResult } from './apply.js';
export { apply, setManagedFields } from './apply.js';
export type { TrackUpdateOptions } from './track-update.js';
export { trackUpdate } from './track-update.js';
