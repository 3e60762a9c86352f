export { applyMergePatch, createMergePatch } from './merge-patch.js';
export { MAX_JSON_PATCH_OPERATIONS, applyJsonPatch, parseJsonPatch, parseJsonPointer, type JsonPatchOp, type JsonPatchOperation } from './json-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export { fieldSchema, itemSchema, patchMeta, type PatchMeta } from './patch-meta.js';
export { UNPROCESSABLE_PATCH_PREFIX, malformedPatch, unprocessablePatch } from './errors.js';
