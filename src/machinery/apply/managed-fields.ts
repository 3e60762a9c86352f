/**
 * The `metadata.managedFields` list: decoding it (strictly for what a client sends, leniently
 * for what is stored), encoding it, identifying entries, and capping the number of Update
 * entries the way Kubernetes does.
 */
import type { StatusCause } from '../errors.js';
import { errors } from '../errors.js';
import type { ManagedFieldsEntry } from '../object.js';
import { isPlainObject, parseApiVersion } from '../object.js';
import { FieldSet } from './field-set.js';

/** A FieldsEntry is one decoded managedFields entry: who owns which fields, and how they got them. */
export interface FieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: FieldSet;
}

/** The most Update entries kept; older ones are merged into an `ancient-changes` entry per version. */
export const maxUpdateManagers = 10;

/** The manager that receives the fields of Update entries beyond maxUpdateManagers. */
export const ancientChangesManager = 'ancient-changes';

/** The manager that owns the fields of an object that had no managedFields when it was first applied. */
export const beforeFirstApplyManager = 'before-first-apply';

/**
 * The identity of an entry, as Kubernetes builds it: manager, operation, subresource and, for
 * Update entries only, the apiVersion. Two entries with one identity are one entry.
 */
export function entryIdentity(e: Pick<FieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify({
    manager: e.manager,
    operation: e.operation,
    ...(e.operation === 'Update' ? { apiVersion: e.apiVersion } : {}),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  });
}

/** True when two entries have one identity (see entryIdentity), without building the identities. */
export function sameIdentity(
  a: Pick<FieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
  b: Pick<FieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): boolean {
  return (
    a.manager === b.manager &&
    a.operation === b.operation &&
    (a.operation !== 'Update' || a.apiVersion === b.apiVersion) &&
    (a.subresource || undefined) === (b.subresource || undefined)
  );
}

/** Describes an entry as conflict messages do: `"mgr"`, `"mgr" using v1`, `"mgr" with subresource "status" using v1`. */
export function describeManager(e: Pick<FieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/**
 * True when a client's managedFields ask to reset tracking: an explicit empty list, or a list
 * holding one empty entry (`[{}]`).
 */
export function isResetManagedFields(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  if (value.length === 0) return true;
  return value.length === 1 && isPlainObject(value[0]) && Object.keys(value[0]).length === 0;
}

/** What an invalid managedFields list belongs to, for the 422 it causes. */
export interface ObjectRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
}

/**
 * decodeManagedFields validates and decodes a managedFields list sent by a client. Anything
 * malformed is a 422 Invalid naming the entry and field (`metadata.managedFields[1].operation`).
 */
export function decodeManagedFields(value: unknown, ref: ObjectRef = {}): FieldsEntry[] {
  const causes: StatusCause[] = [];
  const out: FieldsEntry[] = [];
  if (!Array.isArray(value)) {
    causes.push({ reason: 'FieldValueTypeInvalid', field: 'metadata.managedFields', message: 'Invalid value: must be a list of entries' });
  } else {
    const at: number[] = []; // where each entry of `out` came from
    value.forEach((raw, i) => {
      const where = `metadata.managedFields[${i}]`;
      const entry = decodeEntry(raw, where, causes);
      if (!entry) return;
      const first = out.findIndex((e) => sameIdentity(e, entry));
      if (first >= 0) {
        causes.push({
          reason: 'FieldValueDuplicate',
          field: where,
          message: `Duplicate value: the same manager, operation, subresource and version as metadata.managedFields[${at[first]}]`,
        });
        return;
      }
      // A client's FieldsV1 spelled as encodeManagedFields spells it is written back as it came.
      if (lastDecodedCanonical) storedFieldsV1.set(entry.set, (raw as { fieldsV1: unknown }).fieldsV1);
      at.push(i);
      out.push(entry);
    });
  }
  if (causes.length > 0) {
    const { group } = parseApiVersion(ref.apiVersion ?? '');
    throw errors.invalid(ref.kind ?? 'Object', group, ref.name ?? '', causes);
  }
  return out;
}

/** decodeStoredManagedFields decodes a stored list, skipping entries that do not decode. */
export function decodeStoredManagedFields(value: unknown): FieldsEntry[] {
  if (!Array.isArray(value)) return [];
  const out: FieldsEntry[] = [];
  for (const raw of value) {
    const entry = decodeEntry(raw, '', []);
    if (!entry) continue;
    const dup = out.find((e) => sameIdentity(e, entry));
    if (dup) {
      dup.set = dup.set.union(entry.set);
      continue;
    }
    // Stored entries were encoded by encodeManagedFields: an entry a write leaves unchanged
    // (most of them) is written back as it was read, without encoding its set again.
    storedFieldsV1.set(entry.set, (raw as { fieldsV1: unknown }).fieldsV1);
    out.push(entry);
  }
  return out;
}

/** The stored FieldsV1 each decoded set came from (sets are never changed in place). */
const storedFieldsV1 = new WeakMap<FieldSet, unknown>();

/** Whether the last entry decodeEntry decoded had canonical FieldsV1 (see FieldSet.decodeFieldsV1). */
let lastDecodedCanonical = false;

/** An entry's string field; a cause when it is missing but required, or not a string. */
function stringField(raw: Record<string, unknown>, name: string, required: boolean, at: string, causes: StatusCause[]): string | undefined {
  const v = raw[name];
  if (v === undefined || v === null) {
    if (required) causes.push({ reason: 'FieldValueRequired', field: `${at}.${name}`, message: 'Required value' });
    return undefined;
  }
  if (typeof v !== 'string') {
    causes.push({ reason: 'FieldValueTypeInvalid', field: `${at}.${name}`, message: `Invalid value: ${JSON.stringify(v)}: must be a string` });
    return undefined;
  }
  return v;
}

function decodeEntry(raw: unknown, at: string, causes: StatusCause[]): FieldsEntry | undefined {
  if (!isPlainObject(raw)) {
    causes.push({ reason: 'FieldValueTypeInvalid', field: at, message: 'Invalid value: must be an object' });
    return undefined;
  }
  const before = causes.length;
  const str = (name: string, required: boolean): string | undefined => stringField(raw, name, required, at, causes);
  const manager = str('manager', false) ?? '';
  const operation = str('operation', true);
  if (operation !== undefined && operation !== 'Apply' && operation !== 'Update') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: `${at}.operation`,
      message: `Unsupported value: ${JSON.stringify(operation)}: supported values: "Apply", "Update"`,
    });
  }
  const apiVersion = str('apiVersion', false) ?? '';
  const fieldsType = str('fieldsType', true);
  if (fieldsType !== undefined && fieldsType !== 'FieldsV1') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: `${at}.fieldsType`,
      message: `Unsupported value: ${JSON.stringify(fieldsType)}: supported values: "FieldsV1"`,
    });
  }
  const time = str('time', false);
  if (time !== undefined && Number.isNaN(Date.parse(time))) {
    causes.push({ reason: 'FieldValueInvalid', field: `${at}.time`, message: `Invalid value: ${JSON.stringify(time)}: must be an RFC 3339 timestamp` });
  }
  const subresource = str('subresource', false);
  let set: FieldSet | undefined;
  lastDecodedCanonical = false;
  if (raw.fieldsV1 === undefined || raw.fieldsV1 === null) {
    causes.push({ reason: 'FieldValueRequired', field: `${at}.fieldsV1`, message: 'Required value' });
  } else {
    try {
      const decoded = FieldSet.decodeFieldsV1(raw.fieldsV1);
      set = decoded.set;
      lastDecodedCanonical = decoded.canonical;
    } catch (err) {
      causes.push({ reason: 'FieldValueInvalid', field: `${at}.fieldsV1`, message: `Invalid value: ${(err as Error).message}` });
    }
  }
  if (causes.length > before || !set) return undefined;
  return {
    manager,
    operation: operation as 'Apply' | 'Update',
    apiVersion,
    ...(time !== undefined ? { time } : {}),
    ...(subresource ? { subresource } : {}),
    set,
  };
}

/**
 * Encodes entries as the managedFields list, fields in Kubernetes' order, entries in
 * Kubernetes' order: by operation (Apply before Update), then time (whole seconds), manager,
 * apiVersion and subresource — GitOps tools diff this list.
 */
export function encodeManagedFields(entries: readonly FieldsEntry[]): ManagedFieldsEntry[] {
  return [...entries].sort(compareManagedFieldsEntries).map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time !== undefined ? { time: e.time } : {}),
    fieldsType: 'FieldsV1' as const,
    fieldsV1: (storedFieldsV1.get(e.set) as ReturnType<FieldSet['toFieldsV1']> | undefined) ?? e.set.toFieldsV1(),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}

/** Kubernetes' order of managedFields entries: operation, time (whole seconds), manager, apiVersion, subresource. */
export function compareManagedFieldsEntries(a: FieldsEntry, b: FieldsEntry): number {
  const by = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    by(a.operation, b.operation) ||
    seconds(a.time) - seconds(b.time) ||
    by(a.manager, b.manager) ||
    by(a.apiVersion, b.apiVersion) ||
    by(a.subresource ?? '', b.subresource ?? '')
  );
}

/** Formats a time as managedFields do: RFC 3339 in UTC, whole seconds. */
export function formatTime(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z');
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * capUpdateManagers keeps at most `max` Update entries: the oldest ones are folded, version by
 * version, into one `ancient-changes` entry (which takes the place of the first folded entry).
 * Returns a new list; the input is not changed.
 */
export function capUpdateManagers(entries: readonly FieldsEntry[], max = maxUpdateManagers): FieldsEntry[] {
  const list = entries.map((e) => ({ ...e }));
  const updaters = list.filter((e) => e.operation === 'Update');
  if (updaters.length <= max) return list;
  updaters.sort((a, b) => seconds(a.time) - seconds(b.time) || (entryIdentity(a) < entryIdentity(b) ? -1 : 1));
  const firstOfVersion = new Map<string, FieldsEntry>();
  let count = updaters.length;
  for (const e of updaters) {
    if (count <= max) break;
    const first = firstOfVersion.get(e.apiVersion);
    if (!first) {
      firstOfVersion.set(e.apiVersion, e);
      continue;
    }
    let bucket = list.find((x) => x.operation === 'Update' && x.manager === ancientChangesManager && !x.subresource && x.apiVersion === e.apiVersion);
    let absorbed = e;
    if (!bucket) {
      first.manager = ancientChangesManager;
      delete first.subresource;
      bucket = first;
    } else if (bucket === e) {
      absorbed = first;
    }
    bucket.set = bucket.set.union(absorbed.set);
    if (absorbed.time !== undefined && seconds(absorbed.time) >= seconds(bucket.time)) bucket.time = absorbed.time;
    list.splice(list.indexOf(absorbed), 1);
    if (absorbed === first) firstOfVersion.set(e.apiVersion, bucket);
    count--;
  }
  return list;
}
