/**
 * Field ownership for ordinary writes (create, update, patch): whoever changes a field owns it.
 */
import type { JSONSchemaProps } from '../schema-types.js';
import type { JsonValue, KObject, ManagedFieldsEntry } from '../object.js';
import type { FieldsEntry } from './managed-fields.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  decodeStoredManagedFields,
  encodeManagedFields,
  formatTime,
  isResetManagedFields,
  sameIdentity,
} from './managed-fields.js';
import { PathFilter } from './path-filter.js';
import { rootSchema } from './type-info.js';
import { diffForUpdate } from './update-diff.js';

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

  // Ignored subtrees (status on a main-resource write, everything but status on a status write,
  // metadata.managedFields always) are skipped by the walk rather than compared.
  const { taken, removed } = diffForUpdate(
    (opts.old ?? {}) as unknown as JsonValue,
    opts.updated as unknown as JsonValue,
    rootSchema(opts.schema),
    filterFor(opts.ignore),
  );

  const own = { manager, operation: 'Update' as const, apiVersion: opts.apiVersion, subresource };
  const next: FieldsEntry[] = [];
  let ownSeen = false;
  for (const e of entries) {
    const isOwn = sameIdentity(e, own);
    ownSeen ||= isOwn;
    // Sets are only rebuilt where the write touches them: most entries pass through unchanged.
    let set = !removed.isEmpty() && e.set.intersects(removed) ? e.set.difference(removed) : e.set;
    if (isOwn && !taken.isEmpty()) {
      next.push({ ...e, apiVersion: opts.apiVersion, time: timeOf(opts.now), set: set.union(taken) });
      continue;
    }
    if (!isOwn && !taken.isEmpty() && set.intersects(taken)) set = set.difference(taken);
    if (!set.isEmpty()) next.push(set === e.set ? e : { ...e, set });
  }
  if (!ownSeen && !taken.isEmpty()) {
    next.push({
      manager,
      operation: 'Update',
      apiVersion: opts.apiVersion,
      time: timeOf(opts.now),
      ...(subresource ? { subresource } : {}),
      set: taken,
    });
  }
  return encodeManagedFields(capUpdateManagers(next));
}

/** The filters of recent `ignore` lists (a handful per kind), most recently used first. */
const filters: { ignore: string[][]; filter: PathFilter }[] = [];
const maxFilters = 64;

/** The PathFilter of the default paths plus `ignore`, built once per distinct list. */
function filterFor(ignore: readonly (readonly string[])[] = []): PathFilter {
  const i = filters.findIndex((f) => sameLists(f.ignore, ignore));
  if (i >= 0) {
    const hit = filters[i];
    if (i > 0) {
      filters.splice(i, 1);
      filters.unshift(hit);
    }
    return hit.filter;
  }
  const made = { ignore: ignore.map((p) => [...p]), filter: PathFilter.of(ignore) };
  filters.unshift(made);
  if (filters.length > maxFilters) filters.pop();
  return made.filter;
}

function sameLists(a: readonly (readonly string[])[], b: readonly (readonly string[])[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

let lastTime: { ms: number; text: string } | undefined;

/** formatTime of `now` (default: the current time), remembering the last answer. */
function timeOf(now: Date | undefined): string {
  const ms = (now ?? new Date()).getTime();
  if (lastTime?.ms !== ms) lastTime = { ms, text: formatTime(new Date(ms)) };
  return lastTime.text;
}
