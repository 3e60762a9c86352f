/**
 * Field paths and field causes in the shape Kubernetes reports them: a path such as
 * `spec.versions[0].name` or `data[my key]`, and a message that starts with the kind of
 * problem ("Invalid value: ...", "Required value", "Forbidden: ..."). The basic causes
 * come from `src/machinery/validation`; this adds paths and the few kinds it lacks.
 */
import type { StatusCause } from '../../machinery/errors.js';
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, formatBadValue } from '../../machinery/validation/index.js';

export { fieldForbidden as forbidden, fieldInvalid as invalid, fieldNotSupported as notSupported, fieldRequired as required };

/** A field path under `base`: `child('spec', 'group')` gives `spec.group`. */
export function child(base: string, ...names: string[]): string {
  let out = base;
  for (const n of names) out = out ? `${out}.${n}` : n;
  return out;
}

/** The path of a list element: `index('spec.versions', 0)` gives `spec.versions[0]`. */
export function index(base: string, i: number): string {
  return `${base}[${i}]`;
}

/** The path of a map entry: `key('data', 'a.b')` gives `data[a.b]`. */
export function key(base: string, k: string): string {
  return `${base}[${k}]`;
}

/** A FieldValueDuplicate cause. */
export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${formatBadValue(value)}`, field };
}

/** A FieldValueTooLong cause for a limit in bytes; an empty field means the whole object. */
export function tooLong(field: string, maxBytes: number): StatusCause {
  const message = `Too long: may not be more than ${maxBytes} bytes`;
  return field ? { reason: 'FieldValueTooLong', message, field } : { reason: 'FieldValueTooLong', message };
}

/** A FieldValueTooMany cause for a list with more than `max` items. */
export function tooMany(field: string, actual: number, max: number): StatusCause {
  return { reason: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} items`, field };
}

/** A FieldValueInvalid cause for an immutable field that changed. */
export function immutable(field: string, value: unknown): StatusCause {
  return fieldInvalid(field, value, 'field is immutable');
}
