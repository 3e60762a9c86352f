/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`): objects merge recursively,
 * `null` removes a key, anything else (arrays included) replaces the target value.
 */
import { deepCopy, deepEqual, type JsonObject, type JsonValue } from '../object.js';
import { asPatchError, describeJsonType, malformedPatch } from './errors.js';
import { getOwn, hasOwn, isJsonObject, setOwn } from './json-access.js';

/** Merges `patch` into `target`, reusing (mutating) target objects the caller owns. */
function mergeInto(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return deepCopy(patch);
  const result: JsonObject = isJsonObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergeInto(getOwn(result, key), value));
  }
  return result;
}

/**
 * applyMergePatch returns `original` with `patch` merged in; neither input is changed.
 * The API server patches objects, so the patch must be a JSON object: anything else
 * (a string, a number, an array, null) is a 400 naming what was sent.
 */
export function applyMergePatch(original: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) {
    throw malformedPatch(`a merge patch must be a JSON object, got ${describeJsonType(patch)}`);
  }
  try {
    return mergeInto(deepCopy(original), patch);
  } catch (err) {
    throw asPatchError(err, 'merge patch');
  }
}

/**
 * createMergePatch returns the smallest merge patch that turns `from` into `to`: changed
 * keys with their new values, removed keys as `null`, objects diffed recursively and
 * arrays whole. (A `null` inside `to`'s objects cannot be expressed by a merge patch.)
 */
export function createMergePatch(from: JsonValue, to: JsonValue): JsonValue {
  if (!isJsonObject(from) || !isJsonObject(to)) return deepCopy(to);
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) {
    if (!hasOwn(to, key)) setOwn(patch, key, null);
  }
  for (const [key, toValue] of Object.entries(to)) {
    const fromValue = getOwn(from, key);
    if (fromValue === undefined) {
      setOwn(patch, key, deepCopy(toValue));
    } else if (!deepEqual(fromValue, toValue)) {
      setOwn(patch, key, isJsonObject(fromValue) && isJsonObject(toValue) ? createMergePatch(fromValue, toValue) : deepCopy(toValue));
    }
  }
  return patch;
}
