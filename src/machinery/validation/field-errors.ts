/**
 * Builders for field-level StatusCauses whose messages read like Kubernetes' field errors
 * (`Invalid value: "x": must be ...`). `errors.invalid(...)` prefixes each with its field.
 */
import type { StatusCause } from '../errors.js';

/** formatBadValue renders a rejected value the way field errors quote it. */
export function formatBadValue(value: unknown): string {
  if (value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function withDetail(head: string, detail: string | undefined): string {
  return detail ? `${head}: ${detail}` : head;
}

/** A FieldValueInvalid cause: the value at `field` is not acceptable because of `detail`. */
export function fieldInvalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: withDetail(`Invalid value: ${formatBadValue(value)}`, detail), field };
}

/** A FieldValueRequired cause: `field` must be set. */
export function fieldRequired(field: string, detail?: string): StatusCause {
  return { reason: 'FieldValueRequired', message: withDetail('Required value', detail), field };
}

/** A FieldValueForbidden cause: `field` may not be set (or changed) here. */
export function fieldForbidden(field: string, detail?: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail), field };
}

/** A FieldValueTooLong cause: the value at `field` is longer than `maxBytes`. */
export function fieldTooLong(field: string, maxBytes: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${maxBytes} bytes`, field };
}

/** A FieldValueNotSupported cause: the value at `field` is not one of `supported`. */
export function fieldNotSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return {
    reason: 'FieldValueNotSupported',
    message: withDetail(`Unsupported value: ${formatBadValue(value)}`, supported.length ? `supported values: ${list}` : ''),
    field,
  };
}

/** A FieldValueTypeInvalid cause: the value at `field` has the wrong JSON type. */
export function fieldTypeInvalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueTypeInvalid', message: withDetail(`Invalid value: ${formatBadValue(value)}`, detail), field };
}
