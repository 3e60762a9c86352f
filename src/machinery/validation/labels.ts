/**
 * Validation of `metadata.labels` and `metadata.annotations`, returning field causes in
 * the shape `errors.invalid(...)` takes.
 */
import type { StatusCause } from '../errors.js';
import { isPlainObject } from '../object.js';
import { fieldInvalid, fieldTooLong, fieldTypeInvalid } from './field-errors.js';
import { byteLength, isQualifiedName, isValidLabelValue } from './names.js';

/** The most bytes all annotation keys and values of one object may add up to (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** validateLabelName checks one label key (a qualified name) and reports problems at `fieldPath`. */
export function validateLabelName(key: string, fieldPath: string): StatusCause[] {
  return isQualifiedName(key).map((msg) => fieldInvalid(fieldPath, key, msg));
}

/**
 * validateLabels checks every key (a qualified name) and value (a label value) of a label
 * map. Problems are reported at `fieldPath` itself, as Kubernetes does.
 */
export function validateLabels(labels: unknown, fieldPath = 'metadata.labels'): StatusCause[] {
  if (labels === undefined || labels === null) return [];
  if (!isPlainObject(labels)) return [fieldTypeInvalid(fieldPath, labels, 'must be an object of string keys and string values')];
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels)) {
    causes.push(...validateLabelName(key, fieldPath));
    if (typeof value !== 'string') {
      causes.push(fieldTypeInvalid(`${fieldPath}[${key}]`, value, 'label values must be strings'));
      continue;
    }
    for (const msg of isValidLabelValue(value)) causes.push(fieldInvalid(fieldPath, value, msg));
  }
  return causes;
}

/**
 * validateAnnotations checks every annotation key (a qualified name, compared in lower
 * case so upper-case prefixes are allowed) and that keys plus values total at most 256 KiB.
 */
export function validateAnnotations(annotations: unknown, fieldPath = 'metadata.annotations'): StatusCause[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isPlainObject(annotations)) {
    return [fieldTypeInvalid(fieldPath, annotations, 'must be an object of string keys and string values')];
  }
  const causes: StatusCause[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(key.toLowerCase())) causes.push(fieldInvalid(fieldPath, key, msg));
    if (typeof value !== 'string') {
      causes.push(fieldTypeInvalid(`${fieldPath}[${key}]`, value, 'annotation values must be strings'));
      continue;
    }
    total += byteLength(key) + byteLength(value);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) causes.push(fieldTooLong(fieldPath, TOTAL_ANNOTATION_SIZE_LIMIT));
  return causes;
}
