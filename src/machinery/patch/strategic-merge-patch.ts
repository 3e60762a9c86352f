/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for built-in kinds.
 *
 * How a field merges comes from the kind's schema: `x-kubernetes-patch-strategy`
 * (`merge`, `replace`, `retainKeys`, `merge,retainKeys`) and `x-kubernetes-patch-merge-key`
 * on list properties. Without metadata, objects merge recursively, `null` deletes a key and
 * lists are replaced. Lists with the `merge` strategy merge by their merge key (patch items
 * update the item with the same key or are added); lists of primitives are unioned.
 *
 * Directives:
 *  - `{"$patch": "replace"}` in an object replaces the whole object with the rest of the
 *    patch object; as an item of a merging list it replaces the whole list;
 *  - `{"$patch": "delete"}` in an object empties it; as a list item (with the merge key)
 *    removes the items with that key;
 *  - `"$retainKeys": [...]` drops every key of the original object not listed;
 *  - `"$deleteFromPrimitiveList/<field>": [...]` removes those values from a primitive list;
 *  - `"$setElementOrder/<field>": [...]` orders a merged list: the listed items in that
 *    order, items only the server has keep their place relative to them.
 * Without `$setElementOrder`, items named in the patch take the patch's order and items the
 * patch adds come before the server-only items that follow them (as Kubernetes does).
 * Directive keys never reach the result.
 *
 * A body that is not shaped as a strategic merge patch is a 400; a patch that cannot be
 * merged into this object (mixed or nested lists, a mergeable list without merge key) a 422.
 */
import type { JSONSchemaProps } from '../schema-types.js';
import { deepCopy, type JsonObject, type JsonValue } from '../object.js';
import { asPatchError, describeJsonType, malformedPatch, shortJson, unprocessablePatch } from './errors.js';
import { getOwn, hasOwn, isJsonObject, setOwn } from './json-access.js';
import { fieldSchema, itemSchema, patchMeta } from './patch-meta.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

function isDirectiveKey(key: string): boolean {
  return key === PATCH || key === RETAIN_KEYS || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER);
}

function child(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function where(path: string): string {
  return path ? path : 'the top level';
}

/** A string identity for a primitive (or merge-key) value, for Set and Map lookups. */
function identity(value: JsonValue | undefined): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

function isPrimitive(value: JsonValue): boolean {
  return !isJsonObject(value) && !Array.isArray(value);
}

/**
 * applyStrategicMergePatch returns `original` with `patch` merged in as described above,
 * reading patch metadata from `schema` (the whole object's schema). Inputs are not changed.
 * Every failure is an ApiError: 400 for a malformed patch, 422 for one that cannot apply.
 */
export function applyStrategicMergePatch(original: JsonValue, patch: JsonValue, schema: JSONSchemaProps): JsonValue {
  if (!isJsonObject(patch)) {
    throw malformedPatch(`a strategic merge patch must be a JSON object, got ${describeJsonType(patch)}`);
  }
  try {
    return mergeMap(isJsonObject(original) ? deepCopy(original) : {}, patch, schema, '');
  } catch (err) {
    throw asPatchError(err, 'strategic merge patch');
  }
}

/** Merges `patch` into `original`, which the caller owns and which is changed in place. */
function mergeMap(original: JsonObject, patch: JsonObject, schema: JSONSchemaProps | undefined, path: string): JsonObject {
  if (hasOwn(patch, PATCH)) {
    const directive = patch[PATCH];
    if (directive === 'replace') {
      const rest: JsonObject = {};
      for (const [k, v] of Object.entries(patch)) if (k !== PATCH) setOwn(rest, k, v);
      return mergeMap({}, rest, schema, path);
    }
    if (directive === 'delete') return {};
    throw malformedPatch(`unknown "${PATCH}" directive ${shortJson(directive)} at ${where(path)}: expected "replace" or "delete"`);
  }

  if (hasOwn(patch, RETAIN_KEYS)) retainKeys(original, patch, path);

  for (const [key, values] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) deleteFromPrimitiveList(original, key, values, path);
  }

  for (const [key, value] of Object.entries(patch)) {
    if (isDirectiveKey(key)) continue;
    if (value === null) {
      delete original[key];
      continue;
    }
    const order = getOwn(patch, SET_ELEMENT_ORDER + key);
    setOwn(original, key, mergeField(getOwn(original, key), value, fieldSchema(schema, key), child(path, key), order));
  }

  // $setElementOrder for lists the patch does not otherwise change: reorder them only.
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = key.slice(SET_ELEMENT_ORDER.length);
    if (!field) throw malformedPatch(`"${key}" at ${where(path)} does not name a list`);
    if (hasOwn(patch, field)) continue;
    const current = getOwn(original, field);
    const fs = fieldSchema(schema, field);
    const meta = patchMeta(fs);
    if (!Array.isArray(current) || !meta.strategies.has('merge')) continue;
    setOwn(original, field, mergeList(current, [], itemSchema(fs), meta.mergeKey, child(path, field), order));
  }
  return original;
}

/** Applies `$retainKeys`: every key the patch sets must be listed; unlisted keys of `original` go. */
function retainKeys(original: JsonObject, patch: JsonObject, path: string): void {
  const keep = patch[RETAIN_KEYS];
  if (!Array.isArray(keep) || keep.some((k) => typeof k !== 'string')) {
    throw malformedPatch(`"${RETAIN_KEYS}" at ${where(path)} must be a list of field names, got ${shortJson(keep)}`);
  }
  const kept = new Set(keep as string[]);
  for (const [key, value] of Object.entries(patch)) {
    if (isDirectiveKey(key) || value === null) continue;
    if (!kept.has(key)) {
      throw malformedPatch(`"${RETAIN_KEYS}" at ${where(path)} must list every field the patch sets, but "${key}" is missing`);
    }
  }
  for (const key of Object.keys(original)) if (!kept.has(key)) delete original[key];
}

/** Applies one `$deleteFromPrimitiveList/<field>` directive. */
function deleteFromPrimitiveList(original: JsonObject, key: string, values: JsonValue, path: string): void {
  const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
  if (!field) throw malformedPatch(`"${key}" at ${where(path)} does not name a list`);
  if (!Array.isArray(values) || !values.every(isPrimitive)) {
    throw malformedPatch(`"${key}" at ${where(path)} must be a list of primitive values, got ${shortJson(values)}`);
  }
  const current = getOwn(original, field);
  if (current === undefined || current === null) return;
  if (!Array.isArray(current)) {
    throw unprocessablePatch(`"${key}" deletes from ${child(path, field)}, which is ${describeJsonType(current)}, not a list`);
  }
  const doomed = new Set(values.map(identity));
  setOwn(
    original,
    field,
    current.filter((v) => !doomed.has(identity(v))),
  );
}

/** Merges one field's patch value into its original value (undefined when absent). */
function mergeField(
  original: JsonValue | undefined,
  patch: JsonValue,
  schema: JSONSchemaProps | undefined,
  path: string,
  order: JsonValue | undefined,
): JsonValue {
  const meta = patchMeta(schema);
  if (isJsonObject(patch)) {
    if (isJsonObject(original) && !meta.strategies.has('replace')) return mergeMap(original, patch, schema, path);
    return mergeMap({}, patch, schema, path);
  }
  if (Array.isArray(patch)) {
    if (meta.strategies.has('merge')) {
      return mergeList(Array.isArray(original) ? original : [], patch, itemSchema(schema), meta.mergeKey, path, order);
    }
    return replacementList(patch, itemSchema(schema), path);
  }
  return patch;
}

/** A list that replaces the original: directive items dropped, objects cleaned of nulls and directives. */
function replacementList(list: JsonValue[], items: JSONSchemaProps | undefined, path: string): JsonValue[] {
  const out: JsonValue[] = [];
  for (const item of list) {
    if (isJsonObject(item)) {
      if (hasOwn(item, PATCH)) {
        checkListDirective(item[PATCH], path);
        continue;
      }
      out.push(mergeMap({}, item, items, path));
    } else {
      out.push(deepCopy(item));
    }
  }
  return out;
}

function checkListDirective(directive: JsonValue, path: string): 'replace' | 'delete' {
  if (directive === 'replace' || directive === 'delete') return directive;
  throw malformedPatch(`unknown "${PATCH}" directive ${shortJson(directive)} in the list at ${where(path)}: expected "replace" or "delete"`);
}

/** Merges a patch list into a list with the `merge` strategy. */
function mergeList(
  original: JsonValue[],
  patch: JsonValue[],
  items: JSONSchemaProps | undefined,
  mergeKey: string | undefined,
  path: string,
  order: JsonValue | undefined,
): JsonValue[] {
  if (original.some(Array.isArray) || patch.some(Array.isArray)) {
    throw unprocessablePatch(`the list at ${path} holds lists; a strategic merge patch cannot merge lists of lists`);
  }
  let replaceAll = false;
  const deleted = new Set<string | undefined>();
  const plain: JsonValue[] = [];
  for (const item of patch) {
    if (!isJsonObject(item) || !hasOwn(item, PATCH)) {
      plain.push(item);
      continue;
    }
    if (checkListDirective(item[PATCH], path) === 'replace') {
      replaceAll = true;
      continue;
    }
    if (!mergeKey || !hasOwn(item, mergeKey)) {
      throw malformedPatch(
        `a "${PATCH}": "delete" item in the list at ${path} must carry the list's merge key${mergeKey ? ` "${mergeKey}"` : ''}, got ${shortJson(item)}`,
      );
    }
    deleted.add(identity(item[mergeKey]));
  }

  const server = replaceAll ? [] : original;
  const mapMode = server.some(isJsonObject) || plain.some(isJsonObject);
  let merged: JsonValue[];
  let key: string | undefined;
  if (mapMode) {
    if (![...server, ...plain].every(isJsonObject)) {
      throw unprocessablePatch(`the list at ${path} mixes objects and other values; a strategic merge patch cannot merge it`);
    }
    if (!mergeKey) {
      throw unprocessablePatch(`the list at ${path} holds objects but declares no x-kubernetes-patch-merge-key, so it cannot be merged`);
    }
    key = mergeKey;
    merged = mergeObjectItems(server as JsonObject[], plain as JsonObject[], deleted, mergeKey, items, path);
  } else {
    const seen = new Set<string | undefined>();
    merged = [];
    for (const v of [...server, ...plain]) {
      const id = identity(v);
      if (seen.has(id)) continue;
      seen.add(id);
      merged.push(v);
    }
  }
  if (merged.length === 0) return merged;
  return orderList(merged, plain, server, order, key, path);
}

/** Merges patch items into the original items with the same merge key; new items are appended. */
function mergeObjectItems(
  server: JsonObject[],
  plain: JsonObject[],
  deleted: Set<string | undefined>,
  mergeKey: string,
  items: JSONSchemaProps | undefined,
  path: string,
): JsonValue[] {
  const merged: JsonObject[] = server.filter((item) => !hasOwn(item, mergeKey) || !deleted.has(identity(item[mergeKey])));
  const byKey = new Map<string, number>();
  merged.forEach((item, i) => {
    const id = identity(getOwn(item, mergeKey));
    if (id !== undefined && !byKey.has(id)) byKey.set(id, i);
  });
  for (const item of plain) {
    if (!hasOwn(item, mergeKey)) {
      throw malformedPatch(`an item of the list at ${path} has no merge key "${mergeKey}": ${shortJson(item)}`);
    }
    const id = identity(item[mergeKey])!;
    const itemPath = `${path}[${mergeKey}=${shortJson(item[mergeKey], 40)}]`;
    const at = byKey.get(id);
    if (at !== undefined) {
      merged[at] = mergeMap(merged[at], item, items, itemPath);
    } else {
      byKey.set(id, merged.length);
      merged.push(mergeMap({}, item, items, itemPath));
    }
  }
  return merged;
}

/**
 * Orders a merged list. The items the patch names (in `$setElementOrder`, else in the
 * patch list) come in that order; the other items keep the server's order; the two runs
 * are interleaved so that a server-only item stays before a named item it preceded.
 */
function orderList(
  merged: JsonValue[],
  plain: JsonValue[],
  server: JsonValue[],
  order: JsonValue | undefined,
  mergeKey: string | undefined,
  path: string,
): JsonValue[] {
  const idOf = (v: JsonValue): string | undefined => (mergeKey === undefined ? identity(v) : isJsonObject(v) ? identity(getOwn(v, mergeKey)) : undefined);

  const directive = `${SET_ELEMENT_ORDER}${path.slice(path.lastIndexOf('.') + 1)}`;
  const wanted: string[] = [];
  if (order !== undefined) {
    if (!Array.isArray(order)) {
      throw malformedPatch(`"${directive}" at ${path} must be a list, got ${describeJsonType(order)}`);
    }
    for (const entry of order) {
      if (mergeKey !== undefined) {
        if (!isJsonObject(entry) || !hasOwn(entry, mergeKey)) {
          throw malformedPatch(`each entry of "${directive}" at ${path} must be an object with the merge key "${mergeKey}", got ${shortJson(entry)}`);
        }
      } else if (!isPrimitive(entry)) {
        throw malformedPatch(`"${directive}" at ${path} must hold primitive values, got ${shortJson(entry)}`);
      }
      wanted.push(idOf(entry)!);
    }
  }
  for (const item of plain) {
    const id = idOf(item);
    if (id !== undefined) wanted.push(id);
  }
  const rank = new Map<string, number>();
  wanted.forEach((id, i) => {
    if (!rank.has(id)) rank.set(id, i);
  });

  const named: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const item of merged) {
    const id = idOf(item);
    (id !== undefined && rank.has(id) ? named : serverOnly).push(item);
  }
  named.sort((a, b) => rank.get(idOf(a)!)! - rank.get(idOf(b)!)!);

  const serverIndex = new Map<string, number>();
  const serverRef = new Map<JsonValue, number>();
  server.forEach((item, i) => {
    const id = idOf(item);
    if (id !== undefined && !serverIndex.has(id)) serverIndex.set(id, i);
    if (!serverRef.has(item)) serverRef.set(item, i);
  });
  const positionOf = (item: JsonValue): number => {
    const id = idOf(item);
    return (id === undefined ? serverRef.get(item) : serverIndex.get(id)) ?? -1;
  };

  const result: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length) result.push(serverOnly[i++]);
    else if (i >= serverOnly.length) result.push(named[j++]);
    else {
      const a = positionOf(serverOnly[i]);
      const b = positionOf(named[j]);
      if (a >= 0 && b >= 0 && a < b) result.push(serverOnly[i++]);
      else result.push(named[j++]);
    }
  }
  return result;
}
