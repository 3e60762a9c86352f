/**
 * Deterministic names of pool members: `<class>-pool-<n>` with the lowest `n` not taken, so
 * a pool manager that crashes after a create, or retries one, picks the same name again and
 * finds the member instead of making a second one.
 */
import { createHash } from 'node:crypto';

/** The longest member name; like provisioned resources, a DNS label so any kind accepts it. */
export const POOL_NAME_LIMIT = 63;

const HASH_LENGTH = 10;

/**
 * poolMemberName names member `n` of a class's pool: `<class>-pool-<n>`. A class name too
 * long for the result to fit in 63 characters is cut and followed by a hash of the whole
 * class name, so two long class names sharing a prefix still get different members.
 */
export function poolMemberName(className: string, n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`cannot name pool member ${n}: expected a non-negative integer`);
  const suffix = `-pool-${n}`;
  const base = className.toLowerCase();
  if (base.length + suffix.length <= POOL_NAME_LIMIT) return `${base}${suffix}`;
  const hash = createHash('sha256').update(base).digest('hex').slice(0, HASH_LENGTH);
  const room = POOL_NAME_LIMIT - suffix.length - HASH_LENGTH - 1;
  const cut = base.slice(0, room).replace(/[-.]+$/, '');
  return `${cut}-${hash}${suffix}`;
}

/**
 * poolIndexOf reads `n` back from a member name of the class, or undefined when the name
 * is not one of the class's member names.
 */
export function poolIndexOf(className: string, name: string): number | undefined {
  const m = /-pool-(0|[1-9][0-9]*)$/.exec(name);
  if (!m) return undefined;
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n)) return undefined;
  return poolMemberName(className, n) === name ? n : undefined;
}

/**
 * nextFreeNames returns `count` member names for the class, lowest index first, skipping
 * every name `taken` reports as in use (by a member or by anything else of that kind).
 */
export function nextFreeNames(className: string, count: number, taken: (name: string) => boolean): string[] {
  const names: string[] = [];
  for (let n = 0; names.length < count; n++) {
    const name = poolMemberName(className, n);
    if (!taken(name)) names.push(name);
  }
  return names;
}
