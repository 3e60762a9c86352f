/**
 * Own-property access for JSON objects. Patches may carry keys such as `__proto__` or
 * `constructor`; reading them through the prototype or assigning `__proto__` would corrupt
 * the result, so every patch reads and writes keys through these helpers.
 */
import type { JsonObject, JsonValue } from '../object.js';

/** A JsonObject is a plain (non-array, non-null) object. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own value at `key`, or undefined. */
export function getOwn(obj: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets an own, enumerable property, even for the key `__proto__`. */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
