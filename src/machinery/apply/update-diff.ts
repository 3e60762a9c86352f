/**
 * What an ordinary write changes, in the form trackUpdate needs it: the fields the write takes
 * (adds or changes) and the fields it removes. One walk over both versions that never enters
 * ignored subtrees and builds the two sets level by level, only where something changed.
 */
import type { JsonObject, JsonValue } from '../object.js';
import { deepEqual, isPlainObject } from '../object.js';
import type { PathElement } from './field-path.js';
import { fieldElement } from './field-path.js';
import { FieldSet } from './field-set.js';
import type { PathFilter } from './path-filter.js';
import type { ListItems, Schema } from './type-info.js';
import { fieldSchema, isAtomicMap, ListShapeError, listItems, listTypeOf } from './type-info.js';

/** An UpdateDiff is what a write takes (added or modified fields) and what it removes. */
export interface UpdateDiff {
  taken: FieldSet;
  removed: FieldSet;
}

/**
 * diffForUpdate gives the same sets as comparing with compareValues and filtering with
 * `filter.apply`: `taken` is added ∪ modified and `removed` is removed, both without the
 * paths the filter ignores and without the bare `metadata` node. It is cheaper: ignored
 * subtrees are skipped rather than compared and filtered out afterwards, and paths are not
 * inserted one by one from the root.
 */
export function diffForUpdate(before: JsonValue | undefined, after: JsonValue | undefined, schema: Schema, filter: PathFilter | undefined): UpdateDiff {
  visit(before, after, schema, filter, true);
  const diff = { taken: takenBelow ?? new FieldSet(), removed: removedBelow ?? new FieldSet() };
  takenBelow = undefined;
  removedBelow = undefined;
  return diff;
}

// What `visit` found for the value it compared, read by its caller right after the call: whether
// the value's own path is taken or removed, and the taken and removed paths below it (relative
// to it; undefined when there are none).
let takenSelf = false;
let removedSelf = false;
let takenBelow: FieldSet | undefined;
let removedBelow: FieldSet | undefined;

/** The sets of one level, created when the first change at that level is found. */
interface Level {
  taken: FieldSet | undefined;
  removed: FieldSet | undefined;
}

const NOTHING: JsonObject = Object.freeze({});
const NO_ITEMS: readonly JsonValue[] = Object.freeze([]);

/** Compares two versions of one value (compare.ts's `compare`, reporting through the registers above). */
function visit(l: JsonValue | undefined, r: JsonValue | undefined, schema: Schema, filter: PathFilter | undefined, atRoot: boolean): void {
  takenSelf = false;
  removedSelf = false;
  takenBelow = undefined;
  removedBelow = undefined;
  if (l === undefined && r === undefined) return;
  if (isMapOrAbsent(l) && isMapOrAbsent(r) && !isAtomicMap(schema)) {
    const lm = l ?? NOTHING;
    const rm = r ?? NOTHING;
    const lKeys = Object.keys(lm);
    const rKeys = Object.keys(rm);
    // Two empty (or absent) maps compare as values, so `{}` versus absent is still a change.
    if (lKeys.length === 0 && rKeys.length === 0) return leaf(l, r);
    const level: Level = { taken: undefined, removed: undefined };
    for (const name of lKeys) visitField(lm, rm, name, schema, filter, atRoot, level);
    for (const name of rKeys) if (!hasOwn(lm, name)) visitField(lm, rm, name, schema, filter, atRoot, level);
    report(level);
    return;
  }
  if (isListOrAbsent(l) && isListOrAbsent(r)) {
    const lt = listTypeOf(schema);
    const la = l ?? NO_ITEMS;
    const ra = r ?? NO_ITEMS;
    if (lt.type !== 'atomic' && (la.length > 0 || ra.length > 0)) {
      const lp = listItems(la as JsonValue[], lt, schema?.items);
      const rp = lp instanceof ListShapeError ? lp : listItems(ra as JsonValue[], lt, schema?.items);
      if (!(lp instanceof ListShapeError) && !(rp instanceof ListShapeError)) {
        visitItems(la, lp, ra, rp, lt.type === 'map' ? schema?.items : undefined, lt.type === 'map');
        return;
      }
    }
  }
  leaf(l, r);
}

function visitField(lm: JsonObject, rm: JsonObject, name: string, schema: Schema, filter: PathFilter | undefined, atRoot: boolean, level: Level): void {
  let childFilter: PathFilter | undefined;
  if (filter) {
    const f = filter.enter(name);
    if (f === 'skip') return;
    childFilter = f;
  }
  const cl = own(lm, name);
  const cr = own(rm, name);
  visit(cl, cr, fieldSchema(schema, name).schema, childFilter, false);
  let ts = takenSelf;
  let rs = removedSelf;
  if (cl === undefined) ts = true;
  else if (cr === undefined) rs = true;
  // The bare `metadata` node is never owned.
  if (atRoot && name === 'metadata') ts = rs = false;
  if (ts || rs || takenBelow || removedBelow) collect(level, fieldKey(name), undefined, name, ts, rs);
}

/**
 * The recent field names' encodings (`f:name`). A name from a parsed object has its hash
 * computed already, a freshly concatenated key would need hashing again for every set it
 * goes into; and the same names recur on every write.
 */
const fieldKeys = new Map<string, string>();
const maxFieldKeys = 4096;

function fieldKey(name: string): string {
  let key = fieldKeys.get(name);
  if (key === undefined) {
    if (fieldKeys.size >= maxFieldKeys) fieldKeys.clear();
    key = `f:${name}`;
    fieldKeys.set(name, key);
  }
  return key;
}

function visitItems(la: readonly JsonValue[], lp: ListItems, ra: readonly JsonValue[], rp: ListItems, itemSchema: Schema, descend: boolean): void {
  const rIndex = new Map<string, number>();
  rp.keys.forEach((key, j) => rIndex.set(key, j));
  const level: Level = { taken: undefined, removed: undefined };
  lp.keys.forEach((key, i) => {
    const j = rIndex.get(key);
    if (descend) visit(la[i], j === undefined ? undefined : ra[j], itemSchema, undefined, false);
    else clearRegisters();
    collect(level, key, lp.elements[i], '', takenSelf, removedSelf || j === undefined);
  });
  if (rp.keys.length > 0) {
    const lIds = new Set(lp.keys);
    rp.keys.forEach((key, j) => {
      if (lIds.has(key)) return;
      if (descend) visit(undefined, ra[j], itemSchema, undefined, false);
      else clearRegisters();
      collect(level, key, rp.elements[j], '', true, removedSelf);
    });
  }
  report(level);
}

/**
 * Adds one child's findings (the registers' sets below it, plus its own membership) to its
 * level. The element is `element`, or the field `name` when element is undefined.
 */
function collect(level: Level, key: string, element: PathElement | undefined, name: string, ts: boolean, rs: boolean): void {
  const tb = takenBelow;
  const rb = removedBelow;
  if (!ts && !tb && !rs && !rb) return;
  const pe = element ?? fieldElement(name);
  if (ts || tb) (level.taken ??= new FieldSet()).attach(key, pe, ts, tb);
  if (rs || rb) (level.removed ??= new FieldSet()).attach(key, pe, rs, rb);
}

function report(level: Level): void {
  takenSelf = false;
  removedSelf = false;
  takenBelow = level.taken;
  removedBelow = level.removed;
}

function clearRegisters(): void {
  takenSelf = false;
  removedSelf = false;
  takenBelow = undefined;
  removedBelow = undefined;
}

/** A scalar, atomic or mismatched value: its own path is added, removed or modified. */
function leaf(l: JsonValue | undefined, r: JsonValue | undefined): void {
  if (l === undefined) takenSelf = true;
  else if (r === undefined) removedSelf = true;
  else if (!deepEqual(l, r)) takenSelf = true;
}

function isMapOrAbsent(v: JsonValue | undefined): v is JsonObject | undefined {
  return v === undefined || isPlainObject(v);
}

function isListOrAbsent(v: JsonValue | undefined): v is JsonValue[] | undefined {
  return v === undefined || Array.isArray(v);
}

function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

function own(obj: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(obj, key) ? obj[key] : undefined;
}
