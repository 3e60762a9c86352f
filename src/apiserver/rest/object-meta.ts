/**
 * The metadata rules the server applies to every object it writes, whatever its kind:
 * system fields on create, immutable fields on update, generation, key order.
 */
import { randomUUID, randomInt } from 'node:crypto';
import type { KObject } from '../../machinery/object.js';
import { deepEqual } from '../../machinery/object.js';

const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** A random 5-character suffix for generateName, from Kubernetes' unambiguous alphabet. */
export function generateNameSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += generateNameAlphabet[randomInt(generateNameAlphabet.length)];
  return s;
}

export function newUid(): string {
  return randomUUID();
}

/** RFC 3339 with second precision, as Kubernetes writes timestamps. */
export function timestamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Returns `obj` with apiVersion, kind and metadata first (stored JSON starts with apiVersion). */
export function normalizeKeyOrder(obj: KObject): KObject {
  const { apiVersion, kind, metadata, ...rest } = obj;
  return { apiVersion, kind, metadata, ...rest };
}

/** True when anything besides metadata and status differs (the "spec" in a broad sense). */
export function specChanged(a: KObject, b: KObject): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind') continue;
    if (!deepEqual(a[k], b[k])) return true;
  }
  return false;
}

/** Metadata equality ignoring resourceVersion and managedFields timestamps. */
export function sameMetadataForNoop(a: KObject, b: KObject): boolean {
  const strip = (o: KObject) => {
    const { resourceVersion: _rv, managedFields, ...m } = o.metadata;
    return { ...m, managedFields: managedFields?.map(({ time: _t, ...e }) => e) };
  };
  return deepEqual(strip(a), strip(b));
}
