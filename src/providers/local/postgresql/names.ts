/**
 * Deterministic names: what a claim's database and role are called on a shared server, and
 * (re-exported from process/instance-names.ts) where a dedicated instance keeps its files.
 * Deterministic so that a repeated call after a crash finds what an earlier call created.
 */
import { createHash } from 'node:crypto';
import type { ConnectionDetails } from '../../spi.js';
import { claimShareName } from '../../share-names.js';

/** PostgreSQL truncates identifiers to 63 bytes (NAMEDATALEN - 1). */
export const maxIdentifierLength = 63;
const hashLength = 8;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, hashLength);
}

/**
 * claimIdentifier is the name of a new claim's database and of its role on a shared server
 * (also of its Redis ACL user and NATS account): `<namespace>_<name>_<16 hex>`, lower case,
 * characters outside `[a-z0-9_]` replaced by `_`, the readable part cut so the whole fits in
 * 63 characters. The hash (64 bits of the exact, length-prefixed parts; providers/share-names.ts)
 * is always there because the readable part alone is ambiguous: namespace `a-b` with claim
 * `c` and namespace `a` with claim `b-c` both read `a_b_c`, and two claims must never share
 * a database.
 */
export function claimIdentifier(namespace: string, name: string): string {
  return claimShareName({ namespace, name }, maxIdentifierLength);
}

/**
 * legacyClaimIdentifier is the name earlier versions gave (an 8-hex hash of `namespace/name`,
 * which a tenant could search a collision for): kept for claims bound then, recognised only
 * from their records.
 */
export function legacyClaimIdentifier(namespace: string, name: string): string {
  let readable = `${namespace}_${name}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  // Role names beginning with pg_ are reserved by PostgreSQL.
  if (readable.startsWith('pg_')) readable = `c_${readable}`;
  readable = readable.slice(0, maxIdentifierLength - hashLength - 1).replace(/_+$/, '');
  return `${readable}_${shortHash(`${namespace}/${name}`)}`;
}

/**
 * recordedIdentifier is the name a claim's share has: the earlier version's name when the
 * claim's recorded details (its binding Secret, which only Conductor writes) name that role
 * and database — a share made before the longer hash keeps working — else claimIdentifier.
 */
export function recordedIdentifier(namespace: string, name: string, recorded?: ConnectionDetails): string {
  const legacy = legacyClaimIdentifier(namespace, name);
  if (recorded && recorded.username === legacy && recorded.database === legacy) return legacy;
  return claimIdentifier(namespace, name);
}

export { instanceDirectoryName } from '../process/instance-names.js';

const identifierPattern = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const reservedRoles = new Set(['postgres', 'public', 'none', 'current_user', 'session_user', 'current_role']);
const reservedDatabases = new Set(['postgres', 'template0', 'template1']);

/**
 * roleNameProblem says why a role name a claim or resource asks for cannot be used, or
 * returns undefined when it can.
 */
export function roleNameProblem(name: string): string | undefined {
  if (!identifierPattern.test(name) || name.length > maxIdentifierLength) {
    return `user name "${name}" is not valid: want a letter or _ then letters, digits, _ or -, at most ${maxIdentifierLength} characters`;
  }
  const lower = name.toLowerCase();
  if (reservedRoles.has(lower) || lower.startsWith('pg_')) return `user name "${name}" is reserved`;
  return undefined;
}

/** databaseNameProblem says why a database name cannot be used, or returns undefined. */
export function databaseNameProblem(name: string): string | undefined {
  if (!identifierPattern.test(name) || name.length > maxIdentifierLength) {
    return `database name "${name}" is not valid: want a letter or _ then letters, digits, _ or -, at most ${maxIdentifierLength} characters`;
  }
  if (reservedDatabases.has(name.toLowerCase())) return `database name "${name}" is reserved`;
  return undefined;
}
