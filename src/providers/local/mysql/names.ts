/**
 * Deterministic MySQL names: what a claim's database and user are called on a shared
 * server, and which user and database names a claim may ask for. Deterministic so that a
 * repeated call after a crash finds what an earlier call created.
 */
import { createHash } from 'node:crypto';

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
 * claimIdentifier names a claim's database and user on a shared server:
 * `<namespace>_<name>_<hash>`, lower case, characters outside `[a-z0-9_]` replaced by `_`,
 * prefixed with `c_` unless it begins with a letter, the readable part cut so the whole fits
 * in 32 characters. The hash (of the exact
 * `namespace/name`) keeps apart claims whose readable parts coincide (`a-b`/`c` and `a`/`b-c`).
 */
export function claimIdentifier(namespace: string, name: string): string {
  let readable = `${namespace}_${name}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  // Names begin with a letter so they are valid without quoting everywhere.
  if (!/^[a-z]/.test(readable)) readable = `c_${readable}`;
  readable = readable
    .slice(0, maxUserLength - hashLength - 1)
    .replace(/_+$/, '');
  return `${readable}_${shortHash(`${namespace}/${name}`)}`;
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
