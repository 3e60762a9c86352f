/**
 * Converts JSON values into the values CEL rules see, guided by the schema as Kubernetes
 * does: integers become `int` (BigInt), numbers `double`, `date-time` strings timestamps,
 * `duration` strings durations, `byte` strings bytes; escaped property names are applied;
 * at the object root, metadata shrinks to name and generateName.
 */
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { isObject, type SchemaNode } from '../node.js';
import { parseDateTime } from '../formats.js';
import { needsEscape, escapePropertyName } from './escape.js';

const GO_DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
const NANOS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Parses a Go duration (`1h30m`, `-1.5s`) into a CEL duration; undefined when it is not one. */
export function parseGoDuration(s: string): Duration | undefined {
  const m = /^([-+]?)((?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(s);
  if (!m) return undefined;
  let nanos = 0n;
  for (const part of m[2].matchAll(GO_DURATION_PART)) {
    const [whole, frac = ''] = part[1].split('.');
    const unit = BigInt(NANOS[part[2]]);
    nanos += BigInt(whole || '0') * unit + (frac ? (BigInt(frac.slice(0, 18)) * unit) / 10n ** BigInt(Math.min(frac.length, 18)) : 0n);
  }
  if (m[1] === '-') nanos = -nanos;
  const seconds = nanos / 1_000_000_000n;
  return new Duration(seconds, Number(nanos - seconds * 1_000_000_000n));
}

/** Sets an own enumerable property, also for the key `__proto__`. */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Converts a value without a schema: integral numbers are ints, others doubles. */
function untyped(v: unknown, memo: WeakMap<object, unknown>, depth: number): unknown {
  if (typeof v === 'number') return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : v;
  if (v === null || typeof v !== 'object') return v;
  const hit = memo.get(v);
  if (hit !== undefined) return hit;
  let out: unknown;
  if (depth > 200) out = null;
  else if (Array.isArray(v)) out = v.map((x) => untyped(x, memo, depth + 1));
  else {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(o, k, untyped(x, memo, depth + 1));
    out = o;
  }
  memo.set(v, out);
  return out;
}

/** A ValueConverter turns JSON into CEL values, memoising converted objects for one validation. */
export class ValueConverter {
  private readonly memo = new WeakMap<object, unknown>();

  convert(node: SchemaNode | undefined, v: unknown): unknown {
    return this.to(node, v, 0);
  }

  private to(node: SchemaNode | undefined, v: unknown, depth: number): unknown {
    if (v === null || v === undefined) return v;
    if (!node || node.intOrString) return untyped(v, this.memo, depth);
    switch (node.type) {
      case 'integer':
        return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : untyped(v, this.memo, depth);
      case 'number':
        return typeof v === 'number' ? v : untyped(v, this.memo, depth);
      case 'string':
        if (typeof v !== 'string') return untyped(v, this.memo, depth);
        if (node.format === 'date-time' || node.format === 'datetime') return parseDateTime(v) ?? v;
        if (node.format === 'duration') return parseGoDuration(v) ?? v;
        if (node.format === 'byte') return new Uint8Array(Buffer.from(v, 'base64'));
        return v;
      case 'array':
        if (!Array.isArray(v)) return untyped(v, this.memo, depth);
        return this.cached(v, () => v.map((x) => this.to(node.items, x, depth + 1)));
      case 'object':
        if (!isObject(v)) return untyped(v, this.memo, depth);
        return this.cached(v, () => this.object(node, v, depth));
      default:
        return untyped(v, this.memo, depth);
    }
  }

  private cached(v: object, make: () => unknown): unknown {
    const hit = this.memo.get(v);
    if (hit !== undefined) return hit;
    const out = make();
    this.memo.set(v, out);
    return out;
  }

  private object(node: SchemaNode, v: Record<string, unknown>, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (node.resourceRoot && (k === 'apiVersion' || k === 'kind')) {
        out[k] = x;
        continue;
      }
      if (node.resourceRoot && k === 'metadata') {
        out[k] = node.isRoot ? rootMetadata(x) : untyped(x, this.memo, depth + 1);
        continue;
      }
      const prop = node.properties?.get(k);
      if (prop) {
        const name = needsEscape(k) ? (escapePropertyName(k) ?? k) : k;
        setOwn(out, name, this.to(prop, x, depth + 1));
      } else {
        setOwn(out, k, node.additional ? this.to(node.additional, x, depth + 1) : untyped(x, this.memo, depth + 1));
      }
    }
    return out;
  }
}

function rootMetadata(meta: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (isObject(meta)) {
    if (typeof meta.name === 'string') out.name = meta.name;
    if (typeof meta.generateName === 'string') out.generateName = meta.generateName;
  }
  return out;
}
