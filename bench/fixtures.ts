/**
 * The objects the benchmarks write: ConfigMaps whose request body is padded to a fixed
 * size (1 KB by default) with a deterministic, incompressible-looking string.
 */

/** The default size of a ConfigMap request body, in bytes. */
export const DEFAULT_OBJECT_BYTES = 1024;

/** A ConfigMapBody is what the benchmark POSTs. */
export interface ConfigMapBody {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  data: { payload: string };
}

/** objectName returns the name of the i-th benchmark ConfigMap (`cm-000042`). */
export function objectName(i: number): string {
  if (!Number.isInteger(i) || i < 0) throw new RangeError(`object index must be a non-negative integer, got ${i}`);
  return `cm-${String(i).padStart(6, '0')}`;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** filler returns `length` pseudo-random letters and digits, the same for the same seed. */
export function filler(length: number, seed = 1): string {
  let x = seed >>> 0 || 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    // xorshift32: cheap and deterministic.
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out += ALPHABET[x % ALPHABET.length];
  }
  return out;
}

/**
 * configMapJson returns the JSON text of a ConfigMap named `name` in `namespace` whose
 * length is exactly `bytes` (it throws when the name and namespace alone need more).
 */
export function configMapJson(namespace: string, name: string, bytes = DEFAULT_OBJECT_BYTES): string {
  const body = (payload: string): ConfigMapBody => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { app: 'conductor-bench' } },
    data: { payload },
  });
  const overhead = JSON.stringify(body('')).length;
  const pad = bytes - overhead;
  if (pad < 0) throw new RangeError(`a ConfigMap named ${namespace}/${name} needs at least ${overhead} bytes, asked for ${bytes}`);
  return JSON.stringify(body(filler(pad, hashSeed(name))));
}

function hashSeed(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
