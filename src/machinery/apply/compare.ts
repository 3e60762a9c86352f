/**
 * Comparing two versions of an object field by field, following the schema's list and map
 * semantics, to learn which fields a write added, modified and removed.
 */
import type { JSONSchemaProps } from '../schema-types.js';
import type { JsonObject, JsonValue } from '../object.js';
import { deepEqual, isPlainObject } from '../object.js';
import type { FieldPath, PathElement } from './field-path.js';
import { encodeElement, fieldElement } from './field-path.js';
import { FieldSet } from './field-set.js';
import { PathFilter } from './path-filter.js';
import type { Schema } from './type-info.js';
import { fieldSchema, isAtomicMap, ListShapeError, listItemElements, listTypeOf, rootSchema } from './type-info.js';

/** A Comparison lists the paths a change added, modified (leaf value changed) and removed. */
export interface Comparison {
  /** Fields, map entries and list items that exist only in the new version (with everything below them). */
  added: FieldSet;
  /** Leaves (scalars, atomic lists and maps) present in both versions with different values. */
  modified: FieldSet;
  /** Fields, map entries and list items that exist only in the old version (with everything below them). */
  removed: FieldSet;
}

/**
 * compareObjects compares two versions of an object (either may be undefined: absent). Type
 * and identity metadata and the `ignore` prefixes are left out, like in fieldSetOf.
 */
export function compareObjects(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  schema?: JSONSchemaProps,
  options: { ignore?: readonly (readonly string[])[] } = {},
): Comparison {
  const filter = PathFilter.of(options.ignore);
  const c = compareValues(before, after, rootSchema(schema), filter);
  return { added: filter.apply(c.added), modified: filter.apply(c.modified), removed: filter.apply(c.removed) };
}

/** compareValues is compareObjects without the default filtering and metadata schema. */
export function compareValues(before: JsonValue | undefined, after: JsonValue | undefined, schema: Schema, filter: PathFilter | undefined): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compare(before, after, schema, filter, [], out);
  return out;
}

function isMapOrAbsent(v: JsonValue | undefined): v is JsonObject | undefined {
  return v === undefined || isPlainObject(v);
}

function isListOrAbsent(v: JsonValue | undefined): v is JsonValue[] | undefined {
  return v === undefined || Array.isArray(v);
}

function leaf(l: JsonValue | undefined, r: JsonValue | undefined, path: FieldPath, out: Comparison): void {
  if (path.length === 0) return;
  if (l === undefined) out.added.insert(path);
  else if (r === undefined) out.removed.insert(path);
  else if (!deepEqual(l, r)) out.modified.insert(path);
}

function compare(l: JsonValue | undefined, r: JsonValue | undefined, schema: Schema, filter: PathFilter | undefined, path: FieldPath, out: Comparison): void {
  if (l === undefined && r === undefined) return;
  if (isMapOrAbsent(l) && isMapOrAbsent(r) && !isAtomicMap(schema)) {
    const lm = l ?? {};
    const rm = r ?? {};
    const lKeys = Object.keys(lm);
    const rKeys = Object.keys(rm);
    // Two empty (or absent) maps compare as values, so `{}` versus absent is still a change.
    if (lKeys.length === 0 && rKeys.length === 0) return leaf(l, r, path, out);
    const keys = [...lKeys, ...rKeys.filter((k) => !Object.prototype.hasOwnProperty.call(lm, k))];
    for (const name of keys) {
      let childFilter: PathFilter | undefined;
      if (filter) {
        const f = filter.enter(name);
        if (f === 'skip') continue;
        childFilter = f;
      }
      const cl = own(lm, name);
      const cr = own(rm, name);
      const childPath = [...path, fieldElement(name)];
      compare(cl, cr, fieldSchema(schema, name).schema, childFilter, childPath, out);
      if (cl === undefined) out.added.insert(childPath);
      else if (cr === undefined) out.removed.insert(childPath);
    }
    return;
  }
  if (isListOrAbsent(l) && isListOrAbsent(r)) {
    const lt = listTypeOf(schema);
    const la = l ?? [];
    const ra = r ?? [];
    if (lt.type !== 'atomic' && (la.length > 0 || ra.length > 0)) {
      const lp = listItemElements(la, lt, schema?.items);
      const rp = listItemElements(ra, lt, schema?.items);
      if (!(lp instanceof ListShapeError) && !(rp instanceof ListShapeError)) {
        compareItems(la, lp, ra, rp, lt.type === 'map' ? schema?.items : undefined, lt.type === 'map', path, out);
        return;
      }
    }
  }
  leaf(l, r, path, out);
}

function compareItems(
  la: JsonValue[],
  lp: PathElement[],
  ra: JsonValue[],
  rp: PathElement[],
  itemSchema: Schema,
  descend: boolean,
  path: FieldPath,
  out: Comparison,
): void {
  const rIndex = new Map<string, number>();
  rp.forEach((pe, j) => rIndex.set(encodeElement(pe), j));
  const lIds = new Set<string>();
  lp.forEach((pe, i) => {
    const id = encodeElement(pe);
    lIds.add(id);
    const j = rIndex.get(id);
    const itemPath = [...path, pe];
    if (descend) compare(la[i], j === undefined ? undefined : ra[j], itemSchema, undefined, itemPath, out);
    if (j === undefined) out.removed.insert(itemPath);
  });
  rp.forEach((pe, j) => {
    if (lIds.has(encodeElement(pe))) return;
    const itemPath = [...path, pe];
    if (descend) compare(undefined, ra[j], itemSchema, undefined, itemPath, out);
    out.added.insert(itemPath);
  });
}

function own(obj: JsonObject, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}
