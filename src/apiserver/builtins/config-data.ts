/**
 * Rules shared by Secrets and ConfigMaps: key names, the 1 MiB size limit, and the
 * `immutable` flag that freezes the data once set.
 */
import type { KObject } from '../../machinery/object.js';
import { deepEqual, isPlainObject } from '../../machinery/object.js';
import type { StatusCause } from '../../machinery/errors.js';
import { forbidden, invalid, key } from './field-errors.js';
import { isConfigMapKey } from './names.js';

/** The most bytes of data one Secret or ConfigMap may hold. */
export const maxDataSize = 1024 * 1024;

/** The message Kubernetes gives for any change to frozen data. */
export const immutableWhenSetMessage = 'field is immutable when `immutable` is set';

/** The string-valued entries of a map field, or an empty list when the field is not a map. */
export function stringEntries(value: unknown): [string, string][] {
  if (!isPlainObject(value)) return [];
  return Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string');
}

/** The number of bytes a base64 string decodes to (malformed input is reported by the schema). */
export function decodedLength(b64: string): number {
  return Buffer.from(b64, 'base64').length;
}

/** Causes for the invalid keys of the map at `fieldPath`. */
export function validateKeys(map: unknown, fieldPath: string): StatusCause[] {
  if (!isPlainObject(map)) return [];
  const causes: StatusCause[] = [];
  for (const k of Object.keys(map)) {
    for (const m of isConfigMapKey(k)) causes.push(invalid(key(fieldPath, k), k, m));
  }
  return causes;
}

/**
 * Causes for an update of an object whose old version had `immutable: true`: the flag may
 * not be unset and the listed data fields may not change.
 */
export function validateImmutableData(next: KObject, old: KObject, dataFields: string[]): StatusCause[] {
  if (old.immutable !== true) return [];
  const causes: StatusCause[] = [];
  if (next.immutable !== true) causes.push(forbidden('immutable', immutableWhenSetMessage));
  for (const f of dataFields) {
    if (!deepEqual(emptyAsUndefined(next[f]), emptyAsUndefined(old[f]))) causes.push(forbidden(f, immutableWhenSetMessage));
  }
  return causes;
}

/** An empty map and a missing map are the same data. */
function emptyAsUndefined(v: unknown): unknown {
  return isPlainObject(v) && Object.keys(v).length === 0 ? undefined : v;
}
