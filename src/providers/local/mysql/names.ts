/**
 * Deterministic MySQL names: what a claim's database and user are called on a shared
 * server, and which user and database names a claim may ask for. Deterministic so that a
 * repeated call after a crash finds what an earlier call created.
 */
import { createHash } from 'node:crypto';
import type { ConnectionDetails } from '../../spi.js';
import { claimShareName } from '../../share-names.js';

/**
 * MySQL 5.7 and later allow user names of 32 characters (MariaDB allows 80); database
 * names may have 64. Generated names stay within 32 so they fit both.
 */
export const maxUserLength = 32;
export const maxDatabaseLength = 64;
const hashLength = 8;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, hashLength);
}

/**
 * claimIdentifier names a new claim's database and user on a shared server:
 * `<namespace>_<name>_<16 hex>`, lower case, characters outside `[a-z0-9_]` replaced by `_`,
 * prefixed with `c_` unless it begins with a letter, the readable part cut so the whole fits
 * in 32 characters. The 64-bit hash of the exact, length-prefixed parts
 * (providers/share-names.ts) keeps apart claims whose readable parts coincide.
 */
export function claimIdentifier(namespace: string, name: string): string {
  return claimShareName({ namespace, name }, maxUserLength);
}

/**
 * legacyClaimIdentifier is the name earlier versions gave (an 8-hex hash of `namespace/name`
 * on the readable part): kept for claims bound then, recognised only from their records.
 */
export function legacyClaimIdentifier(namespace: string, name: string): string {
  let readable = `${namespace}_${name}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  // Names begin with a letter so they are valid without quoting everywhere.
  if (!/^[a-z]/.test(readable)) readable = `c_${readable}`;
  readable = readable.slice(0, maxUserLength - hashLength - 1).replace(/_+$/, '');
  return `${readable}_${shortHash(`${namespace}/${name}`)}`;
}

/**
 * recordedIdentifier is the name a claim's share has: the earlier version's name when the
 * claim's recorded details (its binding Secret, which only Conductor writes) name that user
 * and database — a share made before the longer hash keeps working — else claimIdentifier.
 */
export function recordedIdentifier(namespace: string, name: string, recorded?: ConnectionDetails): string {
  const legacy = legacyClaimIdentifier(namespace, name);
  if (recorded && recorded.username === legacy && recorded.database === legacy) return legacy;
  return claimIdentifier(namespace, name);
}

const namePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
const reservedUsers = new Set(['root', 'mysql', 'mariadb.sys', 'mysql.sys', 'mysql.session', 'mysql.infoschema', 'conductor', 'public']);
const reservedDatabases = new Set(['mysql', 'information_schema', 'performance_schema', 'sys', 'test']);

/** userNameProblem says why a user name cannot be used, or returns undefined when it can. */
export function userNameProblem(name: string): string | undefined {
  if (!namePattern.test(name) || name.length > maxUserLength) {
    return `user name "${name}" is not valid: want a letter or _ then letters, digits or _, at most ${maxUserLength} characters`;
  }
  if (reservedUsers.has(name.toLowerCase())) return `user name "${name}" is reserved`;
  return undefined;
}

/** databaseNameProblem says why a database name cannot be used, or returns undefined when it can. */
export function databaseNameProblem(name: string): string | undefined {
  if (!namePattern.test(name) || name.length > maxDatabaseLength) {
    return `database name "${name}" is not valid: want a letter or _ then letters, digits or _, at most ${maxDatabaseLength} characters`;
  }
  if (reservedDatabases.has(name.toLowerCase())) return `database name "${name}" is reserved`;
  return undefined;
}
