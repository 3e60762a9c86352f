/**
 * Reading a ResourceClass's `pool` (docs/design.md 3.3, 3.6 point 6) and `template`. Classes come
 * from an informer as JSON; the API server has validated them against the CRD schema, but
 * this reads defensively so an object written elsewhere (a real cluster without our
 * validation) cannot crash the pool manager.
 */
import { isPlainObject, parseApiVersion, type KObject } from '../../machinery/object.js';

/** PoolSettings are a class's `pool` numbers; 0 means "no warm pool" / "unlimited". */
export interface PoolSettings {
  /** Unbound resources kept provisioned. */
  minFree: number;
  /** Unbound resources above this are deleted; 0 is unlimited. */
  maxFree: number;
  /** The most resources of the class, bound or not; 0 is unlimited. */
  maxInstances: number;
}

/** A PoolTemplate is the concrete resource a class creates. */
export interface PoolTemplate {
  apiVersion: string;
  group: string;
  kind: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  spec: Record<string, unknown>;
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isPlainObject(v)) return out;
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** poolSettingsOf reads a class's `pool`; absent, negative or non-integer numbers read as 0. */
export function poolSettingsOf(cls: KObject): PoolSettings {
  const pool = isPlainObject(cls['pool']) ? cls['pool'] : {};
  return { minFree: count(pool['minFree']), maxFree: count(pool['maxFree']), maxInstances: count(pool['maxInstances']) };
}

/**
 * poolTemplateOf reads a class's `template`, or returns why it cannot be used: it needs an
 * apiVersion with a group (concrete kinds are custom resources) and a kind.
 */
export function poolTemplateOf(cls: KObject): PoolTemplate | { problem: string } {
  const t = cls['template'];
  if (!isPlainObject(t)) return { problem: 'template is missing, expected the concrete resource the class creates' };
  const apiVersion = t['apiVersion'];
  const kind = t['kind'];
  if (typeof apiVersion !== 'string' || !apiVersion.includes('/')) {
    return { problem: `template.apiVersion is ${JSON.stringify(apiVersion)}, expected <group>/<version> of a concrete kind` };
  }
  if (typeof kind !== 'string' || kind === '') return { problem: `template.kind is ${JSON.stringify(kind)}, expected a concrete kind` };
  const meta = isPlainObject(t['metadata']) ? t['metadata'] : {};
  return {
    apiVersion,
    group: parseApiVersion(apiVersion).group,
    kind,
    labels: stringMap(meta['labels']),
    annotations: stringMap(meta['annotations']),
    spec: isPlainObject(t['spec']) ? t['spec'] : {},
  };
}
