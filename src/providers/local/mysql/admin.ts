/**
 * The SQL work both MySQL kinds do over an administrator's connection: a user and a
 * database it has every privilege on ("a share"), emptying a share's database, and removing
 * a share. Every operation is idempotent.
 *
 * MySQL has no comments on users and databases (MariaDB has only the latter), so unlike the
 * PostgreSQL kinds a share carries no ownership mark; its names carry a hash of the claim's
 * namespace and name instead (names.ts), which an administrator's own objects will not match.
 */
import { randomBytes } from 'node:crypto';
import type mysql from 'mysql2/promise';
import { untilAborted } from '../process/cancellable.js';
import { parseServerVersion, type ServerVersion } from './version.js';

/**
 * mysqlDriver is mysql2, loaded on first use: a server that runs no MySQL kind never loads it
 * (~90 modules, a few MB of heap that every server would carry). Escaping goes through the
 * driver too (a connection's `escape`/`escapeId`, or the driver's own), never written here.
 */
export function mysqlDriver(): Promise<MysqlDriver> {
  return (driver ??= import('mysql2').then((m) => m.default));
}
type MysqlDriver = typeof import('mysql2');
let driver: Promise<MysqlDriver> | undefined;

/** SqlConnection is an open mysql2 connection. */
export type SqlConnection = mysql.Connection;

/** A ConnectConfig says where and as whom to log in. */
export interface ConnectConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  database?: string;
}

/** A ServerInfo is what an admin connection learns about the server and itself. */
export interface ServerInfo {
  /** The server's version text, e.g. "10.11.19-MariaDB-0+deb12u1". */
  versionText: string;
  version: ServerVersion | undefined;
  /** The account as the server sees it, e.g. "admin@%". */
  user: string;
  createUser: boolean;
  createDb: boolean;
  grantOption: boolean;
  /** Whether it may read mysql.user (to find the users Conductor made). */
  readUsers: boolean;
}

/** A Share is a user and the database it has every privilege on. */
export interface Share {
  user: string;
  database: string;
  /** The host part of the account; `%` (any host) unless told. */
  host?: string;
}

const connectTimeoutMs = 10_000;

/** generatePassword returns a random password safe to put in URIs unencoded. */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * withConnection opens one connection, runs `fn` and closes it. When `signal` aborts, the
 * connection is destroyed at once and the call rejects with the signal's reason; the server
 * ends the session of a closed client, even one whose statement waits on a metadata lock.
 */
export async function withConnection<T>(config: ConnectConfig, fn: (conn: SqlConnection) => Promise<T>, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  const { createConnection } = await mysqlDriver();
  signal?.throwIfAborted();
  const core = createConnection({ ...config, connectTimeout: connectTimeoutMs });
  // A server that goes away mid-call fails the running query; it must not crash the process.
  core.on('error', () => {});
  const run = async () => {
    await new Promise<void>((resolve, reject) => {
      core.once('connect', () => resolve());
      core.once('error', reject);
    });
    const conn = core.promise();
    try {
      return await fn(conn);
    } finally {
      await conn.end().catch(() => conn.destroy());
    }
  };
  return untilAborted(signal, run, () => core.destroy());
}

type Row = Record<string, unknown>;

async function rows(conn: SqlConnection, sql: string, params: unknown[] = []): Promise<Row[]> {
  const [result] = await conn.query(sql, params);
  return Array.isArray(result) ? (result as Row[]) : [];
}

/**
 * globalPrivileges reads the privileges granted on `*.*` from SHOW GRANTS lines (upper case),
 * `ALL PRIVILEGES` standing for all, and whether any carries WITH GRANT OPTION.
 */
export function globalPrivileges(grants: string[]): { all: boolean; privileges: Set<string>; grantOption: boolean } {
  const privileges = new Set<string>();
  let grantOption = false;
  for (const line of grants) {
    const m = /^GRANT (.+?) ON \*\.\* TO /i.exec(line);
    if (!m) continue;
    for (const p of m[1].split(',')) privileges.add(p.trim().toUpperCase());
    if (/WITH GRANT OPTION/i.test(line)) grantOption = true;
  }
  return { all: privileges.has('ALL PRIVILEGES') || privileges.has('ALL'), privileges, grantOption };
}

/** serverInfo reads the server version and the connected account's global privileges. */
export async function serverInfo(conn: SqlConnection): Promise<ServerInfo> {
  const [who] = await rows(conn, 'SELECT VERSION() AS v, CURRENT_USER() AS u');
  const versionText = String(who?.v ?? '');
  const user = String(who?.u ?? '');
  const grants = (await rows(conn, 'SHOW GRANTS')).map((r) => String(Object.values(r)[0] ?? ''));
  const global = globalPrivileges(grants);
  const has = (p: string) => global.all || global.privileges.has(p);
  // Conductor reads mysql.user to find the users it made.
  const readUsers =
    has('SELECT') ||
    (await rows(conn, 'SELECT 1 AS x FROM mysql.user LIMIT 1').then(
      () => true,
      () => false,
    ));
  return {
    versionText,
    version: parseServerVersion(versionText),
    user,
    createUser: has('CREATE USER'),
    createDb: has('CREATE'),
    grantOption: global.grantOption,
    readUsers,
  };
}

/** adminProblem says why an account cannot manage shares, or returns undefined when it can. */
export function adminProblem(info: ServerInfo): string | undefined {
  const missing = [
    !info.createUser && 'CREATE USER',
    !info.createDb && 'CREATE',
    !info.grantOption && 'GRANT OPTION',
    !info.readUsers && 'SELECT on mysql.user',
  ].filter(Boolean);
  return missing.length > 0
    ? `account ${info.user} lacks ${missing.join(', ')}: want an account with CREATE USER, CREATE and GRANT OPTION on *.* that can read mysql.user (e.g. ALL PRIVILEGES ON *.* ... WITH GRANT OPTION)`
    : undefined;
}

/**
 * grantTarget is a database name as a GRANT pattern: `_` and `%` are wildcards there unless
 * escaped. `escaper` is a connection (or mysql2 itself): its `escapeId` quotes the name.
 */
export function grantTarget(escaper: Pick<SqlConnection, 'escapeId'>, database: string): string {
  return `${escaper.escapeId(database.replace(/[\\_%]/g, (c) => `\\${c}`))}.*`;
}

const hostOf = (share: Share): string => share.host ?? '%';

async function userExists(conn: SqlConnection, share: Share): Promise<boolean> {
  return (await rows(conn, 'SELECT 1 AS x FROM mysql.user WHERE User = ? AND Host = ?', [share.user, hostOf(share)])).length > 0;
}

async function databaseExists(conn: SqlConnection, database: string): Promise<boolean> {
  return (await rows(conn, 'SELECT 1 AS x FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [database])).length > 0;
}

/**
 * ensureShare makes the share's user (with `password` when given) and its database exist,
 * and grants the user every privilege on the database. With no `password`, an existing user
 * keeps its password and a new user gets a random one (returned).
 */
export async function ensureShare(conn: SqlConnection, share: Share, password?: string): Promise<{ password?: string }> {
  const account = [share.user, hostOf(share)];
  let chosen = password;
  if (!(await userExists(conn, share))) {
    chosen ??= generatePassword();
    await conn.query('CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?', [...account, chosen]);
  } else if (password !== undefined) {
    await conn.query('ALTER USER ?@? IDENTIFIED BY ?', [...account, password]);
  }
  await conn.query(`CREATE DATABASE IF NOT EXISTS ${conn.escapeId(share.database)} CHARACTER SET utf8mb4`);
  await conn.query(`GRANT ALL PRIVILEGES ON ${grantTarget(conn, share.database)} TO ?@?`, account);
  return { password: chosen };
}

/** shareExists reports whether the share's user and database exist. */
export async function shareExists(conn: SqlConnection, share: Share): Promise<{ user: boolean; database: boolean }> {
  return { user: await userExists(conn, share), database: await databaseExists(conn, share.database) };
}

/** endSessions ends every session of the share's user (other than this one). */
export async function endSessions(conn: SqlConnection, user: string): Promise<void> {
  const sessions = await rows(conn, 'SELECT ID AS id FROM information_schema.PROCESSLIST WHERE USER = ? AND ID <> CONNECTION_ID()', [user]);
  for (const { id } of sessions) {
    await conn.query('KILL ?', [Number(id)]).catch(() => {}); // it may have ended meanwhile
  }
}

/**
 * recycleShare empties the share's database (ends the user's sessions, drops the database
 * and creates it again); the user, its password and its privileges stay.
 */
export async function recycleShare(conn: SqlConnection, share: Share): Promise<void> {
  await endSessions(conn, share.user);
  await conn.query(`DROP DATABASE IF EXISTS ${conn.escapeId(share.database)}`);
  await conn.query(`CREATE DATABASE IF NOT EXISTS ${conn.escapeId(share.database)} CHARACTER SET utf8mb4`);
  if (await userExists(conn, share)) await conn.query(`GRANT ALL PRIVILEGES ON ${grantTarget(conn, share.database)} TO ?@?`, [share.user, hostOf(share)]);
}

/** dropShare removes the share's database and user, ending the user's sessions first. */
export async function dropShare(conn: SqlConnection, share: Share): Promise<void> {
  await endSessions(conn, share.user);
  await conn.query(`DROP DATABASE IF EXISTS ${conn.escapeId(share.database)}`);
  await conn.query('DROP USER IF EXISTS ?@?', [share.user, hostOf(share)]);
}

/** Server error codes meaning "these credentials do not open that database". */
const loginRefused = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR', 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR']);

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/**
 * canLogIn reports whether the credentials open a session on the database; other failures
 * (the server unreachable) are thrown, not taken for a refused login.
 */
export async function canLogIn(config: ConnectConfig, signal?: AbortSignal): Promise<boolean> {
  try {
    await withConnection(
      config,
      async (c) => {
        await c.query('SELECT 1');
      },
      signal,
    );
    return true;
  } catch (err) {
    if (loginRefused.has(errorCode(err) ?? '')) return false;
    throw err;
  }
}
