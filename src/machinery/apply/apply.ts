/**
 * Server-side apply: merging a manager's applied configuration into the live object while
 * tracking, per field, which managers own it.
 */
import type { JSONSchemaProps } from '../schema-types.js';
import { errors } from '../errors.js';
import type { JsonObject, JsonValue, KObject, ManagedFieldsEntry } from '../object.js';
import { deepEqual, isPlainObject } from '../object.js';
import { compareValues } from './compare.js';
import type { Conflict } from './conflict.js';
import { conflictError } from './conflict.js';
import { collectFields, ShapeError } from './field-set-of.js';
import { FieldSet } from './field-set.js';
import type { FieldsEntry } from './managed-fields.js';
import { beforeFirstApplyManager, capUpdateManagers, decodeStoredManagedFields, encodeManagedFields, entryIdentity, formatTime } from './managed-fields.js';
import { mergeApplied, removeFields, stripNulls } from './merge.js';
import { PathFilter } from './path-filter.js';
import { rootSchema } from './type-info.js';

/** Options of apply. */
export interface ApplyOptions {
  /** The object as stored; undefined when the apply creates it. */
  live?: KObject;
  /** The applied configuration (the request body). */
  applied: KObject;
  /** The field manager (`?fieldManager=`); required. */
  manager: string;
  /** Take ownership of conflicting fields instead of failing (`?force=true`). */
  force?: boolean;
  /** The kind's schema (whole object); absent means granular maps and atomic lists everywhere. */
  schema?: JSONSchemaProps;
  /** The version the request was made in (`apps/v1`), recorded in the manager's entry. */
  apiVersion: string;
  /** The time recorded in the manager's entry; defaults to now. */
  now?: Date;
  /** The subresource written (`status`), '' or undefined for the main resource. */
  subresource?: string;
  /**
   * Path prefixes no one owns through this write (e.g. `[['status']]` on the main resource).
   * The merge still copies them from the configuration: reset them afterwards, as the
   * status strategy does for any update.
   */
  ignore?: readonly (readonly string[])[];
}

/** The result of apply. */
export interface ApplyResult {
  /** The merged object, with `metadata.managedFields` set (absent when no one owns anything). */
  object: KObject;
  /** The new managedFields list (also set on `object`). */
  managedFields: ManagedFieldsEntry[];
  /** False when the apply changed neither the object nor the managedFields (a no-op). */
  changed: boolean;
}

/**
 * apply merges `applied` into `live` for `manager` and updates field ownership.
 *
 * - The applied configuration's fields become the manager's Apply entry, replacing its last one.
 * - A field another manager owns whose value the apply would change is a conflict: the apply
 *   fails with 409 Conflict unless `force`, in which case the other manager loses the field.
 *   Applying an equal value shares ownership.
 * - A field the manager applied last time and leaves out now is removed from the object,
 *   unless another manager owns it too (then only this manager's ownership ends).
 * - A live object without managedFields first gets a `before-first-apply` Update entry owning
 *   everything it sets.
 *
 * Bad input (no manager, managedFields in the configuration, unaddressable list items) is a
 * 400 Bad Request. Neither input object is modified.
 */
export function apply(opts: ApplyOptions): ApplyResult {
  const manager = opts.manager;
  if (!manager) throw errors.badRequest('fieldManager is required for apply requests');
  const applied = opts.applied as unknown as JsonValue;
  if (!isPlainObject(applied)) throw errors.badRequest('the applied configuration must be an object');
  const appliedMeta = applied.metadata;
  if (isPlainObject(appliedMeta) && appliedMeta.managedFields !== undefined && appliedMeta.managedFields !== null) {
    throw errors.badRequest('metadata.managedFields must be nil');
  }
  const subresource = opts.subresource || undefined;
  const schema = rootSchema(opts.schema);
  const filter = PathFilter.of(opts.ignore);
  const now = formatTime(opts.now ?? new Date());

  let appliedSet: FieldSet;
  let merged: JsonValue;
  const liveBody = withoutManagedFields(opts.live);
  try {
    appliedSet = filter.apply(collectFields(applied, schema, filter, true));
    merged = mergeApplied(liveBody, applied, schema) as JsonValue;
  } catch (err) {
    if (err instanceof ShapeError) throw errors.badRequest(`failed to create typed patch object: ${err.message}`);
    throw err;
  }

  let entries = opts.live ? decodeStoredManagedFields(opts.live.metadata?.managedFields) : [];
  if (opts.live && entries.length === 0) {
    const existing = filter.apply(collectFields(liveBody, schema, filter, false));
    if (!existing.isEmpty()) {
      entries = [{ manager: beforeFirstApplyManager, operation: 'Update', apiVersion: opts.apiVersion, set: existing }];
    }
  }

  const ownId = entryIdentity({ manager, operation: 'Apply', apiVersion: opts.apiVersion, subresource });
  const own = entries.find((e) => entryIdentity(e) === ownId);
  const others = entries.filter((e) => e !== own);

  // Fields this manager applied last time and no longer applies go, unless someone still owns them.
  let pruned = merged;
  if (own && !own.set.isEmpty()) {
    const keep = others.reduce((acc, e) => acc.union(e.set), appliedSet);
    const remove = own.set.difference(keep);
    if (!remove.isEmpty()) pruned = removeFields(merged, remove, keep, schema);
  }
  const object = stripNulls(pruned, schema) as JsonObject;

  const change = compareValues(liveBody, object, schema, filter);
  // A field the configuration names that the apply removes (an explicit null) was changed too.
  const touched = change.modified.union(change.added).union(change.removed.intersection(appliedSet));
  const conflicts: Conflict[] = [];
  const lost = new Map<FieldsEntry, FieldSet>();
  for (const e of others) {
    const overlap = e.set.intersection(touched);
    if (overlap.isEmpty()) continue;
    lost.set(e, overlap);
    for (const path of overlap.paths()) conflicts.push({ manager: e, path });
  }
  if (conflicts.length > 0 && !opts.force) throw conflictError(conflicts);

  const objectChanged = !deepEqual(liveBody, object);
  const unchanged = own !== undefined && !objectChanged && own.set.equals(appliedSet) && own.apiVersion === opts.apiVersion;
  const ownEntry: FieldsEntry | undefined = appliedSet.isEmpty()
    ? undefined
    : unchanged
      ? own
      : { manager, operation: 'Apply', apiVersion: opts.apiVersion, time: now, ...(subresource ? { subresource } : {}), set: appliedSet };
  // Entries keep their places here; encodeManagedFields puts them in kube's order.
  const next: FieldsEntry[] = [];
  for (const e of entries) {
    if (e === own) {
      if (ownEntry) next.push(ownEntry);
      continue;
    }
    const set = e.set.difference(lost.get(e) ?? new FieldSet()).difference(change.removed);
    if (!set.isEmpty()) next.push(set.equals(e.set) ? e : { ...e, set });
  }
  if (!own && ownEntry) next.push(ownEntry);
  const managedFields = encodeManagedFields(capUpdateManagers(next));

  const result = object as unknown as KObject;
  setManagedFields(result, managedFields);
  const before = (opts.live?.metadata?.managedFields ?? []) as unknown as JsonValue;
  return { object: result, managedFields, changed: objectChanged || !deepEqual(before, managedFields) };
}

/** A copy of an object's JSON without `metadata.managedFields` (an empty object when absent). */
export function withoutManagedFields(obj: KObject | undefined): JsonObject {
  if (!obj) return {};
  const copy = structuredClone(obj) as unknown as JsonObject;
  const meta = copy.metadata;
  if (isPlainObject(meta)) delete meta.managedFields;
  return copy;
}

/** Sets `metadata.managedFields` on an object, deleting it when the list is empty. */
export function setManagedFields(obj: KObject, managedFields: ManagedFieldsEntry[]): void {
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  if (managedFields.length === 0) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = managedFields;
}
