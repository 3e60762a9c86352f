/**
 * Deterministic names: what a claim's database and role are called on a shared server, and
 * (re-exported from process/instance-names.ts) where a dedicated instance keeps its files.
 * Deterministic so that a repeated call after a crash finds what an earlier call created.
 */
import { createHash } from 'node:crypto';

/** PostgreSQL truncates identifiers to 63 bytes (NAMEDATALEN - 1). */
export const maxIdentifierLength = 63;
const hashLength = 8;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, hashLength);
}

/**
 * claimIdentifier is the name of a claim's database and of its role on a shared server:
 * `<namespace>_<name>_<hash>`, lower case, characters outside `[a-z0-9_]` replaced by `_`,
 * the readable part cut so the whole fits in 63 characters. The hash (of the exact
 * `namespace/name`) is always there because the readable part alone is ambiguous:
 * namespace `a-b` with claim `c` and namespace `a` with claim `b-c` both read `a_b_c`, and
 * two claims must never share a database.
 */
export function claimIdentifier(namespace: string, name: string): string {
  let readable = `${namespace}_${name}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  // Role names beginning with pg_ are reserved by PostgreSQL.
  if (readable.startsWith('pg_')) readable = `c_${readable}`;
  readable = readable.slice(0, maxIdentifierLength - hashLength - 1).replace(/_+$/, '');
  return `${readable}_${shortHash(`${namespace}/${name}`)}`;
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
