/**
 * Field ownership for ordinary writes (create, update, patch): whoever changes a field owns it.
 */
import type { JSONSchemaProps } from '../../apiserver/registry/resource-type.js';
import type { JsonValue, KObject, ManagedFieldsEntry } from '../object.js';
import { compareValues } from './compare.js';
import type { FieldsEntry } from './managed-fields.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  decodeStoredManagedFields,
  encodeManagedFields,
  entryIdentity,
  formatTime,
  isResetManagedFields,
} from './managed-fields.js';
import { PathFilter } from './path-filter.js';
import { rootSchema } from './type-info.js';

/** Options of trackUpdate. */
export interface TrackUpdateOptions {
  /** The object before the write; undefined for a create. */
  old?: KObject;
  /** The object the write produces (after patching, defaulting and the strategy). */
  updated: KObject;
  /** The field manager; '' becomes `unknown`. */
  manager: string;
  /** The kind's schema (whole object). */
  schema?: JSONSchemaProps;
  /** The version the request was made in. */
  apiVersion: string;
  /** The time recorded when the manager's entry changes; defaults to now. */
  now?: Date;
  /** The subresource written (`status`), '' or undefined for the main resource. */
  subresource?: string;
  /** Path prefixes this write may not set and no one owns through it. */
  ignore?: readonly (readonly string[])[];
}

/**
 * trackUpdate returns the managedFields for an ordinary write: every field the write adds or
 * changes becomes owned by `manager` (its Update entry for this version and subresource) and
 * is taken from other managers; removed fields leave every entry; entries left empty go. The
 * list keeps its order, with a new entry last. An empty result means the object carries no
 * managedFields.
 *
 * Where the tracking starts from, as in Kubernetes:
 * - a write to the main resource that carries valid, non-empty managedFields different from
 *   the stored ones sets them (that is how clients edit ownership); an explicit `[]` or `[{}]`
 *   resets tracking;
 * - otherwise (no managedFields, or a subresource write) the stored managedFields are used;
 * - an existing object whose tracking is empty (reset, or never tracked) stays untracked
 *   until its next apply; a create is always tracked.
 *
 * Malformed managedFields in `updated` are a 422 Invalid naming the entry.
 */
export function trackUpdate(opts: TrackUpdateOptions): ManagedFieldsEntry[] {
  const manager = opts.manager || 'unknown';
  const subresource = opts.subresource || undefined;
  const incoming: unknown = opts.updated.metadata?.managedFields;
  let entries: FieldsEntry[];
  if (subresource) {
    entries = decodeStoredManagedFields(opts.old?.metadata?.managedFields);
  } else if (isResetManagedFields(incoming)) {
    entries = [];
  } else if (incoming !== undefined && incoming !== null) {
    entries = decodeManagedFields(incoming, {
      apiVersion: opts.updated.apiVersion,
      kind: opts.updated.kind,
      name: opts.updated.metadata?.name,
    });
  } else {
    entries = decodeStoredManagedFields(opts.old?.metadata?.managedFields);
  }
  if (opts.old && entries.length === 0) return [];

  const schema = rootSchema(opts.schema);
  const filter = PathFilter.of(opts.ignore);
  const change = compareValues(
    bodyOf(opts.old),
    bodyOf(opts.updated),
    schema,
    filter,
  );
  const removed = filter.apply(change.removed);
  const taken = filter.apply(change.added.union(change.modified));

  const ownId = entryIdentity({ manager, operation: 'Update', apiVersion: opts.apiVersion, subresource });
  const next: FieldsEntry[] = [];
  let ownSeen = false;
  for (const e of entries) {
    const isOwn = entryIdentity(e) === ownId;
    ownSeen ||= isOwn;
    let set = e.set.difference(removed);
    if (isOwn && !taken.isEmpty()) {
      next.push({ ...e, apiVersion: opts.apiVersion, time: formatTime(opts.now ?? new Date()), set: set.union(taken) });
      continue;
    }
    if (!isOwn) set = set.difference(taken);
    if (!set.isEmpty()) next.push(set.equals(e.set) ? e : { ...e, set });
  }
  if (!ownSeen && !taken.isEmpty()) {
    next.push({
      manager,
      operation: 'Update',
      apiVersion: opts.apiVersion,
      time: formatTime(opts.now ?? new Date()),
      ...(subresource ? { subresource } : {}),
      set: taken,
    });
  }
  return encodeManagedFields(capUpdateManagers(next));
}

/**
 * bodyOf is the object without metadata.managedFields, for comparing: a shallow copy that
 * shares everything else with `obj` (the comparison only reads it).
 */
function bodyOf(obj: KObject | undefined): JsonValue {
  if (!obj) return {};
  const meta = obj.metadata;
  if (!meta || meta.managedFields === undefined) return obj as unknown as JsonValue;
  const { managedFields: _ignored, ...rest } = meta;
  return { ...obj, metadata: rest } as unknown as JsonValue;
}
