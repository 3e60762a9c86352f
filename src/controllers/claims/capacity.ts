/**
 * Capacity arithmetic for bindings: what a Shared resource has left once its claims'
 * requests are taken (`status.allocatable`), and whether a bound claim asking for more can be
 * given it (resize).
 */
import { parseQuantity, type Quantity } from '../../machinery/quantity/index.js';
import type { KObject } from '../../machinery/object.js';

type Quantities = Record<string, string | number>;

function capacityOf(obj: KObject): Quantities {
  const spec = (obj.spec ?? {}) as { capabilities?: { capacity?: Quantities } };
  return spec.capabilities?.capacity ?? {};
}

function parse(v: string | number | undefined): Quantity | undefined {
  if (v === undefined) return undefined;
  try {
    return parseQuantity(v);
  } catch {
    return undefined;
  }
}

/** A claim's requested capacity (`spec.requirements.capacity`). */
export function requestsOf(claim: KObject): Quantities | undefined {
  const spec = (claim.spec ?? {}) as { requirements?: { capacity?: Quantities } };
  const cap = spec.requirements?.capacity;
  return cap ? Object.fromEntries(Object.entries(cap).map(([k, v]) => [k, String(v)])) : undefined;
}

/**
 * Capacity minus the requests of `bindings`, per resource name; undefined when the resource
 * states no capacity. Negative amounts are kept (an over-committed resource shows it).
 */
export function allocatable(resource: KObject, bindings: readonly { requests?: Quantities }[]): Record<string, string> | undefined {
  const cap = capacityOf(resource);
  const names = Object.keys(cap);
  if (names.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const name of names) {
    let left = parse(cap[name]);
    if (!left) continue;
    for (const b of bindings) {
      const r = parse(b.requests?.[name]);
      if (r) left = left.sub(r);
    }
    out[name] = left.format();
  }
  return out;
}

export type ResizeVerdict = { type: 'none' } | { type: 'grow'; capacity: Record<string, string> } | { type: 'cannot'; reason: string };

/**
 * What a bound claim asking for `requests` needs of its Exclusive resource: nothing when the
 * resource already has that much; growing to the requested amounts when it was provisioned
 * from a class whose capabilities allow it (`classCapacity`, undefined = no limit); else why not.
 */
export function resizeExclusive(
  resource: KObject,
  requests: Quantities | undefined,
  classCapacity: Quantities | undefined,
  provisioned: boolean,
): ResizeVerdict {
  if (!requests) return { type: 'none' };
  const cap = capacityOf(resource);
  const grow: Record<string, string> = {};
  for (const [name, want] of Object.entries(requests)) {
    const w = parse(want);
    if (!w) continue;
    const have = parse(cap[name]);
    if (have && have.cmp(w) >= 0) continue;
    if (!provisioned) {
      return {
        type: 'cannot',
        reason: `asks for ${name} ${String(want)} but ${resource.kind} ${resource.metadata.name} has ${cap[name] ?? 'no stated'} ${name} and was not provisioned from a class, so it cannot grow`,
      };
    }
    const limit = parse(classCapacity?.[name]);
    if (limit && limit.cmp(w) < 0) {
      return { type: 'cannot', reason: `asks for ${name} ${String(want)} but its class allows at most ${String(classCapacity![name])}` };
    }
    grow[name] = w.format();
  }
  return Object.keys(grow).length
    ? { type: 'grow', capacity: { ...Object.fromEntries(Object.entries(cap).map(([k, v]) => [k, String(v)])), ...grow } }
    : { type: 'none' };
}
