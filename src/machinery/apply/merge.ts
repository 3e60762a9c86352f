/**
 * The value operations of server-side apply: merging an applied configuration into the live
 * object, removing fields a manager gave up, and dropping explicit nulls.
 */
import type { JsonObject, JsonValue } from '../object.js';
import { deepCopy, isPlainObject } from '../object.js';
import type { PathElement } from './field-path.js';
import { encodeElement, fieldElement, pathToString } from './field-path.js';
import { ShapeError } from './field-set-of.js';
import type { FieldSet } from './field-set.js';
import type { Schema } from './type-info.js';
import { fieldSchema, isAtomicMap, isNullable, ListShapeError, listItemElements, listTypeOf } from './type-info.js';

/** Sets an own property, even one named `__proto__`, without touching the prototype. */
function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function own(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/**
 * mergeApplied merges an applied configuration into a live value: maps merge key by key,
 * atomic lists and scalars are replaced, sets gain the applied values, and map-lists merge
 * item by item (matched by key). Applied items keep their order; live-only items stay next to
 * the item they followed. Neither input is modified.
 */
export function mergeApplied(live: JsonValue | undefined, applied: JsonValue | undefined, schema: Schema): JsonValue | undefined {
  return merge(live, applied, schema, []);
}

function merge(l: JsonValue | undefined, a: JsonValue | undefined, schema: Schema, path: PathElement[]): JsonValue | undefined {
  if (a === undefined) return l === undefined ? undefined : deepCopy(l);
  if (l === undefined) return deepCopy(a);
  if (isPlainObject(l) && isPlainObject(a) && !isAtomicMap(schema)) {
    const out: JsonObject = {};
    for (const key of Object.keys(l)) {
      const childSchema = fieldSchema(schema, key).schema;
      setOwn(out, key, merge(own(l, key), own(a, key), childSchema, [...path, fieldElement(key)]) as JsonValue);
    }
    for (const key of Object.keys(a)) {
      if (!Object.prototype.hasOwnProperty.call(l, key)) setOwn(out, key, deepCopy(a[key]));
    }
    return out;
  }
  if (Array.isArray(l) && Array.isArray(a)) {
    const lt = listTypeOf(schema);
    if (lt.type === 'atomic') return deepCopy(a);
    const ap = listItemElements(a, lt, schema?.items);
    if (ap instanceof ListShapeError) throw new ShapeError(pathToString(path), ap.message);
    const lp = listItemElements(l, lt, schema?.items);
    // A live list whose items cannot be matched is replaced whole.
    if (lp instanceof ListShapeError) return deepCopy(a);
    return mergeLists(l, lp, a, ap, (li, ai, pe) =>
      lt.type === 'map' && li !== undefined ? (merge(li, ai, schema?.items, [...path, pe]) as JsonValue) : deepCopy(ai),
    );
  }
  return deepCopy(a);
}

/**
 * Orders the union of two lists: applied items in applied order, each live-only item right
 * after the item it followed in the live list.
 */
function mergeLists(
  l: JsonValue[],
  lp: PathElement[],
  a: JsonValue[],
  ap: PathElement[],
  combine: (live: JsonValue | undefined, applied: JsonValue, pe: PathElement) => JsonValue,
): JsonValue[] {
  const lIndex = new Map<string, number>();
  lp.forEach((pe, i) => lIndex.set(encodeElement(pe), i));
  const aIndex = new Map<string, number>();
  ap.forEach((pe, j) => aIndex.set(encodeElement(pe), j));
  const out: JsonValue[] = [];
  let next = 0;
  const emitApplied = (upTo: number): void => {
    for (; next <= upTo; next++) {
      const pe = ap[next];
      const li = lIndex.get(encodeElement(pe));
      out.push(combine(li === undefined ? undefined : l[li], a[next], pe));
    }
  };
  lp.forEach((pe, i) => {
    const j = aIndex.get(encodeElement(pe));
    if (j === undefined) out.push(deepCopy(l[i]));
    else if (j >= next) emitApplied(j);
  });
  emitApplied(a.length - 1);
  return out;
}

/**
 * removeFields returns a copy of a value without the members of `remove`. A member removes
 * its whole subtree, unless `keep` names something below it: then a map field only loses
 * what is removable below it, and a list item stays whole. A map this leaves empty goes too,
 * unless `keep` names it.
 */
export function removeFields(value: JsonValue, remove: FieldSet, keep: FieldSet, schema: Schema): JsonValue {
  if (isPlainObject(value) && !isAtomicMap(schema)) {
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      const pe = fieldElement(key);
      if (remove.hasElement(pe) && keep.childrenOf(pe).isEmpty()) continue;
      const below = remove.childrenOf(pe);
      if (below.isEmpty()) {
        setOwn(out, key, child);
        continue;
      }
      const next = removeFields(child, below, keep.childrenOf(pe), fieldSchema(schema, key).schema);
      const emptied = isPlainObject(child) && Object.keys(child).length > 0 && isPlainObject(next) && Object.keys(next).length === 0;
      if (emptied && !keep.hasElement(pe)) continue;
      setOwn(out, key, next);
    }
    return out;
  }
  if (Array.isArray(value)) {
    const lt = listTypeOf(schema);
    if (lt.type === 'atomic') return value;
    const elements = listItemElements(value, lt, schema?.items);
    if (elements instanceof ListShapeError) return value;
    const out: JsonValue[] = [];
    elements.forEach((pe, i) => {
      const item = value[i];
      if (remove.hasElement(pe)) {
        if (!keep.childrenOf(pe).isEmpty()) out.push(item);
        return;
      }
      const below = remove.childrenOf(pe);
      out.push(below.isEmpty() || lt.type !== 'map' ? item : removeFields(item, below, keep.childrenOf(pe), schema?.items));
    });
    return out;
  }
  return value;
}

/** stripNulls drops map entries whose value is an explicit null, unless the schema makes them nullable. */
export function stripNulls(value: JsonValue, schema: Schema): JsonValue {
  if (isPlainObject(value) && !isAtomicMap(schema)) {
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      const childSchema = fieldSchema(schema, key).schema;
      if (child === null && !isNullable(childSchema)) continue;
      setOwn(out, key, stripNulls(child, childSchema));
    }
    return out;
  }
  if (Array.isArray(value) && listTypeOf(schema).type === 'map') {
    return value.map((item) => stripNulls(item, schema?.items));
  }
  return value;
}
