/**
 * trackUpdate takes shortcuts (a pruned diff, sets rebuilt only where touched, FieldsV1 reused
 * when it is already canonical). These tests hold it to the straightforward algorithm below,
 * on random histories of writes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JsonObject, JsonValue, KObject, ManagedFieldsEntry } from '../object.js';
import { deepCopy, isPlainObject } from '../object.js';
import { compareValues } from './compare.js';
import type { FieldSet } from './field-set.js';
import type { FieldsEntry } from './managed-fields.js';
import { capUpdateManagers, compareManagedFieldsEntries, decodeManagedFields, entryIdentity, formatTime, isResetManagedFields } from './managed-fields.js';
import { PathFilter } from './path-filter.js';
import { chooser, ignoreLists, mix, trackedObject, trackedSchema } from './test-arbitraries.js';
import type { TrackUpdateOptions } from './track-update.js';
import { trackUpdate } from './track-update.js';
import { rootSchema } from './type-info.js';

/**
 * The reference: compare the whole objects, filter afterwards, decode every entry afresh,
 * rebuild every set, and encode every set that did not come unchanged from storage.
 */
function reference(opts: TrackUpdateOptions): ManagedFieldsEntry[] {
  const manager = opts.manager || 'unknown';
  const subresource = opts.subresource || undefined;
  const incoming: unknown = opts.updated.metadata?.managedFields;
  const stored = new Map<FieldSet, unknown>(); // sets decoded from storage, with their FieldsV1
  let entries: FieldsEntry[];
  if (subresource) entries = decodeStored(opts.old?.metadata?.managedFields, stored);
  else if (isResetManagedFields(incoming)) entries = [];
  else if (incoming !== undefined && incoming !== null) {
    entries = decodeManagedFields(incoming, { apiVersion: opts.updated.apiVersion, kind: opts.updated.kind, name: opts.updated.metadata?.name });
  } else entries = decodeStored(opts.old?.metadata?.managedFields, stored);
  if (opts.old && entries.length === 0) return [];

  const filter = PathFilter.of(opts.ignore);
  const change = compareValues(bodyOf(opts.old), bodyOf(opts.updated), rootSchema(opts.schema), filter);
  const removed = filter.apply(change.removed);
  const taken = filter.apply(change.added.union(change.modified));

  const ownId = entryIdentity({ manager, operation: 'Update', apiVersion: opts.apiVersion, subresource });
  const time = formatTime(opts.now ?? new Date());
  const next: FieldsEntry[] = [];
  let ownSeen = false;
  for (const e of entries) {
    const isOwn = entryIdentity(e) === ownId;
    ownSeen ||= isOwn;
    let set = e.set.difference(removed);
    if (isOwn && !taken.isEmpty()) {
      next.push({ ...e, apiVersion: opts.apiVersion, time, set: set.union(taken) });
      continue;
    }
    if (!isOwn) set = set.difference(taken);
    if (!set.isEmpty()) next.push(set.equals(e.set) ? e : { ...e, set });
  }
  if (!ownSeen && !taken.isEmpty()) {
    next.push({ manager, operation: 'Update', apiVersion: opts.apiVersion, time, ...(subresource ? { subresource } : {}), set: taken });
  }
  return [...capUpdateManagers(next)].sort(compareManagedFieldsEntries).map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time !== undefined ? { time: e.time } : {}),
    fieldsType: 'FieldsV1' as const,
    fieldsV1: (stored.get(e.set) as JsonObject | undefined) ?? e.set.toFieldsV1(),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}

/** Decodes a stored list leniently: entries that do not decode are skipped, duplicates merged. */
function decodeStored(value: unknown, stored: Map<FieldSet, unknown>): FieldsEntry[] {
  if (!Array.isArray(value)) return [];
  const out: FieldsEntry[] = [];
  for (const raw of value) {
    let entry: FieldsEntry | undefined;
    try {
      entry = decodeManagedFields([raw])[0];
    } catch {
      continue;
    }
    if (!entry) continue;
    const id = entryIdentity(entry);
    const dup = out.find((e) => entryIdentity(e) === id);
    if (dup) {
      dup.set = dup.set.union(entry.set);
      continue;
    }
    stored.set(entry.set, (raw as { fieldsV1: unknown }).fieldsV1);
    out.push(entry);
  }
  return out;
}

function bodyOf(obj: KObject | undefined): JsonValue {
  if (!obj) return {};
  const meta = obj.metadata;
  if (!meta || meta.managedFields === undefined) return obj as unknown as JsonValue;
  const { managedFields: _ignored, ...rest } = meta;
  return { ...obj, metadata: rest } as unknown as JsonValue;
}

/** FieldsV1 spelled differently but meaning the same: keys in reverse order, leaves as `{".": {}}`. */
function respell(v: unknown): unknown {
  if (!isPlainObject(v)) return v;
  const keys = Object.keys(v).reverse();
  if (keys.length === 0) return { '.': {} };
  return Object.fromEntries(keys.map((k) => [k, k === '.' ? {} : respell(v[k])]));
}

/** What a write sends as metadata.managedFields, given what is stored. */
type Incoming = 'none' | 'same' | 'respelled' | 'reset' | 'reset-entry' | 'edited' | 'invalid';

function incomingList(kind: Incoming, stored: ManagedFieldsEntry[] | undefined): unknown {
  switch (kind) {
    case 'none':
      return undefined;
    case 'same':
      return deepCopy(stored);
    case 'respelled':
      return stored?.map((e) => ({ ...deepCopy(e), fieldsV1: respell(e.fieldsV1) }));
    case 'reset':
      return [];
    case 'reset-entry':
      return [{}];
    case 'edited':
      return stored?.slice(1).map((e) => ({ ...deepCopy(e), manager: `${e.manager}-edited` }));
    case 'invalid':
      return [...deepCopy(stored ?? []), { manager: 'x', operation: 'Patch', fieldsType: 'FieldsV1', fieldsV1: {} }];
  }
}

/** The result of running a tracker: the list, or the error it threw. */
function outcome(run: () => ManagedFieldsEntry[]): { ok: string } | { error: string } {
  try {
    return { ok: JSON.stringify(run()) };
  } catch (err) {
    return { error: JSON.stringify({ message: (err as Error).message, status: (err as { status?: unknown }).status }) };
  }
}

const step = fc.record({
  other: trackedObject,
  choose: chooser,
  manager: fc.constantFrom('a', 'b', 'c', ''),
  apiVersion: fc.constantFrom('example.com/v1', 'example.com/v2'),
  subresource: fc.constantFrom<string | undefined>(undefined, undefined, 'status'),
  ignore: ignoreLists,
  incoming: fc.constantFrom<Incoming>('none', 'none', 'same', 'same', 'respelled', 'reset', 'reset-entry', 'edited', 'invalid'),
  at: fc.constantFrom('2024-01-01T00:00:00Z', '2024-01-01T00:00:00.900Z', '2024-01-02T10:00:00Z'),
});

describe('trackUpdate against the reference algorithm', () => {
  test('gives the same lists (byte for byte) and the same errors over random histories (property)', () => {
    fc.assert(
      fc.property(trackedObject, fc.constantFrom('a', 'b'), fc.array(step, { minLength: 1, maxLength: 6 }), (first, creator, steps) => {
        const created = deepCopy(first) as unknown as KObject;
        const base = { manager: creator, schema: trackedSchema, apiVersion: 'example.com/v1', now: new Date('2024-01-01T00:00:00Z') };
        const made = outcome(() => trackUpdate({ ...base, updated: created }));
        assert.deepEqual(
          made,
          outcome(() => reference({ ...base, updated: created })),
        );
        if (!('ok' in made)) return;
        let current = created;
        current.metadata.managedFields = JSON.parse(made.ok) as ManagedFieldsEntry[];
        for (const s of steps) {
          const updated = mix(current as unknown as JsonObject, s.other, s.choose) as unknown as KObject;
          const list = incomingList(s.incoming, current.metadata?.managedFields);
          if (isPlainObject(updated.metadata)) {
            if (list === undefined) delete updated.metadata.managedFields;
            else updated.metadata.managedFields = list;
          }
          const opts: TrackUpdateOptions = {
            old: current,
            updated,
            manager: s.manager,
            schema: trackedSchema,
            apiVersion: s.apiVersion,
            now: new Date(s.at),
            ...(s.subresource ? { subresource: s.subresource } : {}),
            ...(s.ignore ? { ignore: s.ignore } : {}),
          };
          const got = outcome(() => trackUpdate(opts));
          assert.deepEqual(
            got,
            outcome(() => reference(opts)),
          );
          if (!('ok' in got)) continue;
          current = deepCopy(updated);
          if (!isPlainObject(current.metadata)) current.metadata = { name: 'w' };
          current.metadata.managedFields = JSON.parse(got.ok) as ManagedFieldsEntry[];
        }
      }),
      { numRuns: 250 },
    );
  });

  test('an entry a write leaves alone keeps its FieldsV1 object when that is canonical, and is re-encoded when not', () => {
    const entry = (manager: string, fieldsV1: JsonObject): ManagedFieldsEntry => ({
      manager,
      operation: 'Update',
      apiVersion: 'example.com/v1',
      time: '2024-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1,
    });
    const old = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', managedFields: [entry('a', { 'f:spec': { 'f:replicas': {} } }), entry('z', { 'f:spec': { '.': {}, 'f:image': {} } })] },
      spec: { replicas: 1, image: 'i' },
    } as KObject;
    const write = (managedFields: unknown): ManagedFieldsEntry | undefined => {
      const updated = deepCopy(old);
      (updated.spec as JsonObject).replicas = 2;
      if (managedFields === undefined) delete updated.metadata.managedFields;
      else (updated.metadata as Record<string, unknown>).managedFields = managedFields;
      const got = trackUpdate({ old, updated, manager: 'b', schema: trackedSchema, apiVersion: 'example.com/v1' });
      assert.deepEqual(
        got.map((e) => e.manager),
        ['z', 'b'],
        'a lost its only field to b',
      );
      return got.find((e) => e.manager === 'z');
    };
    assert.equal(write(undefined)?.fieldsV1, old.metadata.managedFields?.[1]?.fieldsV1, 'the stored object is written back');
    const sent = deepCopy(old.metadata.managedFields);
    assert.equal(write(sent)?.fieldsV1, sent?.[1]?.fieldsV1, 'canonical FieldsV1 from the client is passed through');
    const respelled = [entry('a', { 'f:spec': { 'f:replicas': {} } }), entry('z', { 'f:spec': { 'f:image': { '.': {} }, '.': {} } })];
    const fixed = write(respelled);
    assert.notEqual(fixed?.fieldsV1, respelled[1]?.fieldsV1);
    assert.equal(JSON.stringify(fixed?.fieldsV1), '{"f:spec":{".":{},"f:image":{}}}', 'other spellings are encoded canonically');
  });
});
