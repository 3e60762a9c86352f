/**
 * Names of the shares a provider makes for a claim on a shared resource (a database and its
 * user, a Redis ACL user and key prefix, a NATS account, a bucket).
 *
 * A tenant chooses its namespace and claim names, and the readable part of a share name is
 * lower-cased, sanitized and cut to fit the engine, so two claims' readable parts may agree.
 * What keeps them apart is the hash suffix: 16 hex digits (64 bits) of SHA-256 over the exact
 * parts, each preceded by its length in bytes (so `a-b` + `c` and `a` + `b-c` hash apart).
 * Finding two claim names with the same suffix takes about 2^32 tries for a birthday
 * collision between two names one tenant controls, and about 2^64 to hit a given other
 * tenant's share — neither within reach, unlike the 32-bit suffix earlier versions used.
 *
 * Shares made by earlier versions keep their names: each engine prefers a name recorded for
 * the claim (its binding Secret, or the engine's own record) when that is the name the
 * earlier version derived for this very claim (see `legacy…` in each engine's names).
 */
import { createHash } from 'node:crypto';

/** Hex digits of a share name's hash suffix: 64 bits. */
export const SHARE_HASH_LENGTH = 16;

/** sharePartsHash is SHA-256 over the parts, each as `<byte length>:<part>;`, in hex, cut to `length`. */
export function sharePartsHash(parts: readonly string[], length = SHARE_HASH_LENGTH): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${Buffer.byteLength(p)}:${p};`);
  return h.digest('hex').slice(0, length);
}

/**
 * A ShareNameStyle says what characters a name may hold:
 * - `identifier`: `[a-z0-9_]`, beginning with a letter and never with `pg_` (SQL databases
 *   and users, Redis ACL users, NATS accounts); parts joined and other characters turned into `_`.
 * - `label`: `[a-z0-9-]`, beginning and ending with a letter or digit, no `--` (S3 buckets);
 *   runs of other characters turned into one `-`.
 */
export type ShareNameStyle = 'identifier' | 'label';

/**
 * shareName is `<readable><sep><hash of the exact parts>`, at most `limit` characters (limit
 * at least SHARE_HASH_LENGTH + 3). The readable part is the parts joined, lower case, in the
 * style's characters, cut to fit; it may be empty for parts with nothing readable, then
 * `c_`/`claim-` stands in.
 */
export function shareName(parts: readonly string[], limit: number, style: ShareNameStyle): string {
  if (limit < SHARE_HASH_LENGTH + 3) throw new Error(`share name limit ${limit} is too small: want at least ${SHARE_HASH_LENGTH + 3}`);
  const hash = sharePartsHash(parts);
  const room = limit - SHARE_HASH_LENGTH - 1;
  if (style === 'label') {
    const readable = parts
      .join('-')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, room)
      .replace(/^-+|-+$/g, '');
    return `${readable || 'claim'}-${hash}`;
  }
  let readable = parts
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
  // Names begin with a letter (valid unquoted everywhere), never with PostgreSQL's reserved pg_.
  if (!/^[a-z]/.test(readable) || readable.startsWith('pg_')) readable = `c_${readable}`;
  readable = readable.slice(0, room).replace(/_+$/, '');
  return `${readable}_${hash}`;
}

/** claimShareName names a claim's share: shareName of its namespace and name. */
export function claimShareName(claim: { namespace: string; name: string }, limit: number, style: ShareNameStyle = 'identifier'): string {
  return shareName([claim.namespace, claim.name], limit, style);
}
