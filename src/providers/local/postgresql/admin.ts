/**
 * The SQL work both PostgreSQL kinds do over an administrator's connection: a login role
 * and a database it owns ("a share"), erasing a share's data, and removing a share.
 *
 * Every operation is idempotent. Conductor marks what it creates with a comment naming the
 * owner (`conductor.io <owner>`), and never hands out, erases or drops a role or database
 * that carries no such mark: a same-named object an admin made stays untouched.
 */
import { createHash, createHmac, pbkdf2, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import type pg from 'pg';
import { untilAborted } from '../process/cancellable.js';
import { versionFromServerNum } from './version.js';

/**
 * pgDriver is pg, loaded on first use: a server that runs no PostgreSQL kind never loads it (a
 * few MB of heap every server would carry). Names and texts in SQL are quoted by the client's
 * own `escapeIdentifier`/`escapeLiteral`, never by code written here.
 */
function pgDriver(): Promise<typeof pg> {
  return (driver ??= import('pg').then((m) => m.default));
}
let driver: Promise<typeof pg> | undefined;

/** A ServerInfo is what an admin connection learns about the server and itself. */
export interface ServerInfo {
  version: string;
  versionNum: number;
  user: string;
  superuser: boolean;
  createRole: boolean;
  createDb: boolean;
}

/** A Share is a login role and the database it owns, made for one owner. */
export interface Share {
  role: string;
  database: string;
  /** Who it was made for, e.g. `claim team-a/orders`; recorded on both objects. */
  owner: string;
}

const connectTimeoutMs = 10_000;

/** generatePassword returns a random password safe to put in URIs unencoded. */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

const pbkdf2Async = promisify(pbkdf2);
const scramIterations = 4096;

/**
 * scramVerifier computes the SCRAM-SHA-256 verifier PostgreSQL stores for a password, so
 * the password itself never travels in SQL (nor lands in a server log of statements), as
 * psql's \password does. The password must be ASCII (SASLprep leaves it unchanged), which
 * generated passwords are.
 */
export async function scramVerifier(password: string, salt: Buffer = randomBytes(16)): Promise<string> {
  if (!/^[\x21-\x7e]+$/.test(password)) throw new Error('scramVerifier wants a printable ASCII password');
  const salted = await pbkdf2Async(password, salt, scramIterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${scramIterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** ownerMark is the comment Conductor puts on the roles and databases it creates. */
export function ownerMark(owner: string): string {
  return `conductor.io ${owner}`;
}

/**
 * withClient opens one connection, runs `fn` and closes it. A server that drops the
 * connection (e.g. terminating it) fails the running query instead of crashing the process.
 * When `signal` aborts, the server is asked to cancel the running query (`cancelRequest`),
 * the connection is closed at once, and the call rejects with the signal's reason.
 */
export async function withClient<T>(config: pg.ClientConfig, fn: (client: pg.Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  const { Client } = await pgDriver();
  signal?.throwIfAborted();
  const client = new Client({ connectionTimeoutMillis: connectTimeoutMs, ...config });
  client.on('error', () => {});
  const run = async () => {
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end().catch(() => {});
    }
  };
  return untilAborted(signal, run, async () => {
    const cancelling = cancelRequest(client);
    // With a query running (or the login not finished), end() destroys the socket at once.
    await client.end().catch(() => {});
    await cancelling;
  });
}

/** The key a server gives a session at login, with which another connection may cancel its query (not in pg's types). */
interface BackendKey {
  processID?: number | null;
  secretKey?: number | null;
}

/**
 * cancelRequest asks the server of a logged-in session to cancel the query it runs (the
 * protocol's CancelRequest on a new connection: the backend's process id and secret key).
 * Without it a backend waiting on a lock would wait on after its client left. Best effort:
 * it resolves once the server has closed the request's connection, or after `timeoutMs`.
 */
export function cancelRequest(client: pg.Client, timeoutMs = 5_000): Promise<void> {
  const { processID, secretKey } = client as unknown as BackendKey;
  if (typeof processID !== 'number' || typeof secretKey !== 'number') return Promise.resolve(); // not logged in yet
  return new Promise((resolve) => {
    const socket = connect({ host: client.host, port: client.port });
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    socket.once('error', done);
    socket.once('close', done);
    socket.once('connect', () => {
      const request = Buffer.alloc(16);
      request.writeInt32BE(16, 0);
      request.writeInt32BE(80877102, 4); // the CancelRequest code
      request.writeInt32BE(processID, 8);
      request.writeInt32BE(secretKey, 12);
      socket.end(request);
    });
  });
}

/** serverInfo reads the server version and the connected role's powers. */
export async function serverInfo(client: pg.Client): Promise<ServerInfo> {
  const { rows } = await client.query<{
    num: string;
    user: string;
    rolsuper: boolean;
    rolcreaterole: boolean;
    rolcreatedb: boolean;
  }>(
    `SELECT current_setting('server_version_num') AS num, current_user AS user, r.rolsuper, r.rolcreaterole, r.rolcreatedb
       FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const row = rows[0];
  if (!row) throw new Error('cannot read the connected role from pg_roles');
  const versionNum = Number(row.num);
  return {
    version: versionFromServerNum(versionNum),
    versionNum,
    user: row.user,
    superuser: row.rolsuper,
    createRole: row.rolcreaterole,
    createDb: row.rolcreatedb,
  };
}

/** adminProblem says why a role cannot manage shares, or returns undefined when it can. */
export function adminProblem(info: ServerInfo): string | undefined {
  if (info.superuser) return undefined;
  const missing = [!info.createRole && 'CREATEROLE', !info.createDb && 'CREATEDB'].filter(Boolean);
  return missing.length > 0 ? `role "${info.user}" lacks ${missing.join(' and ')}: want a superuser or a role with CREATEROLE and CREATEDB` : undefined;
}

interface RoleRow {
  comment: string | null;
}
interface DatabaseRow {
  comment: string | null;
  owner: string;
}

async function findRole(client: pg.Client, role: string): Promise<RoleRow | undefined> {
  const { rows } = await client.query<RoleRow>(`SELECT shobj_description(oid, 'pg_authid') AS comment FROM pg_roles WHERE rolname = $1`, [role]);
  return rows[0];
}

async function findDatabase(client: pg.Client, database: string): Promise<DatabaseRow | undefined> {
  const { rows } = await client.query<DatabaseRow>(
    `SELECT shobj_description(oid, 'pg_database') AS comment, pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1`,
    [database],
  );
  return rows[0];
}

function isOurs(comment: string | null, share: Share): boolean {
  return comment === ownerMark(share.owner);
}

/** A database is ours when marked, or unmarked but owned by our role (a crash between CREATE and COMMENT). */
function isOurDatabase(row: DatabaseRow, share: Share, roleIsOurs: boolean): boolean {
  return isOurs(row.comment, share) || (row.comment === null && roleIsOurs && row.owner === share.role);
}

function notOursError(what: string, name: string, share: Share): Error {
  return new Error(`${what} "${name}" already exists and was not created by Conductor for ${share.owner}; refusing to take it over (rename or drop it)`);
}

const duplicateObject = '42710';
const duplicateDatabase = '42P04';

function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/**
 * ensureShare makes the share's role (able to log in, with `password` when given) and its
 * database (owned by the role, closed to other roles) exist. With no `password`, an existing
 * role keeps its password and a new role gets a random one (returned).
 */
export async function ensureShare(client: pg.Client, share: Share, password?: string): Promise<{ password?: string }> {
  const info = await serverInfo(client);
  let role = await findRole(client, share.role);
  let chosen = password;
  let created: string | undefined;
  if (!role) {
    chosen ??= generatePassword();
    created = chosen;
    try {
      // Role and comment in one transaction: a crash leaves both or neither.
      await client.query('BEGIN');
      await client.query(`CREATE ROLE ${client.escapeIdentifier(share.role)} LOGIN PASSWORD ${client.escapeLiteral(await scramVerifier(chosen))}`);
      await client.query(`COMMENT ON ROLE ${client.escapeIdentifier(share.role)} IS ${client.escapeLiteral(ownerMark(share.owner))}`);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      if (sqlState(err) !== duplicateObject) throw err;
      chosen = password; // someone else created it concurrently: treat as existing
      created = undefined;
    }
    role = await findRole(client, share.role);
    if (!role) throw new Error(`role "${share.role}" was created but cannot be found`);
  }
  if (!isOurs(role.comment, share)) throw notOursError('role', share.role, share);
  if (chosen !== undefined && chosen !== created) {
    await client.query(`ALTER ROLE ${client.escapeIdentifier(share.role)} WITH LOGIN PASSWORD ${client.escapeLiteral(await scramVerifier(chosen))}`);
  } else {
    await client.query(`ALTER ROLE ${client.escapeIdentifier(share.role)} WITH LOGIN`);
  }
  // A non-superuser admin must be a member of a role to create a database it owns.
  if (!info.superuser) await client.query(`GRANT ${client.escapeIdentifier(share.role)} TO CURRENT_USER`);

  const database = await findDatabase(client, share.database);
  if (database) {
    if (!isOurDatabase(database, share, true)) throw notOursError('database', share.database, share);
  } else {
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(share.database)} OWNER ${client.escapeIdentifier(share.role)}`);
    } catch (err) {
      if (sqlState(err) !== duplicateDatabase) throw err;
      const raced = await findDatabase(client, share.database);
      if (!raced || !isOurDatabase(raced, share, true)) throw notOursError('database', share.database, share);
    }
  }
  await client.query(`COMMENT ON DATABASE ${client.escapeIdentifier(share.database)} IS ${client.escapeLiteral(ownerMark(share.owner))}`);
  await client.query(`ALTER DATABASE ${client.escapeIdentifier(share.database)} OWNER TO ${client.escapeIdentifier(share.role)}`);
  await client.query(`REVOKE ALL ON DATABASE ${client.escapeIdentifier(share.database)} FROM PUBLIC`);
  return { password: chosen };
}

/** shareExists reports whether the share's role and database both exist (and are ours). */
export async function shareExists(client: pg.Client, share: Share): Promise<{ role: boolean; database: boolean }> {
  return (await sharesPresent(client, [share]))[0];
}

/**
 * sharesPresent is shareExists for many shares in two queries (a shared server's drift poll
 * checks every bound claim): for each share, whether its role and its database exist and
 * are ours.
 */
export async function sharesPresent(client: pg.Client, shares: Share[]): Promise<{ role: boolean; database: boolean }[]> {
  if (shares.length === 0) return [];
  const roles = await client.query<RoleRow & { name: string }>(
    `SELECT rolname AS name, shobj_description(oid, 'pg_authid') AS comment FROM pg_roles WHERE rolname = ANY($1)`,
    [shares.map((s) => s.role)],
  );
  const databases = await client.query<DatabaseRow & { name: string }>(
    `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment, pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = ANY($1)`,
    [shares.map((s) => s.database)],
  );
  const roleByName = new Map(roles.rows.map((r) => [r.name, r]));
  const databaseByName = new Map(databases.rows.map((d) => [d.name, d]));
  return shares.map((share) => {
    const role = roleByName.get(share.role);
    const roleOurs = role !== undefined && isOurs(role.comment, share);
    const database = databaseByName.get(share.database);
    return { role: roleOurs, database: database !== undefined && isOurDatabase(database, share, roleOurs) };
  });
}

async function dropDatabase(client: pg.Client, database: string, versionNum: number): Promise<void> {
  if (versionNum >= 130000) {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(database)} WITH (FORCE)`);
    return;
  }
  // Older servers: end the sessions, then drop (retrying while a session lingers).
  for (let attempt = 0; ; attempt++) {
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    try {
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(database)}`);
      return;
    } catch (err) {
      if (sqlState(err) !== '55006' || attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * recycleShare empties the share's database (drops and recreates it, ending open sessions);
 * the role and its password stay. Without the role there is no share to recycle.
 */
export async function recycleShare(client: pg.Client, share: Share): Promise<void> {
  const info = await serverInfo(client);
  const role = await findRole(client, share.role);
  if (!role || !isOurs(role.comment, share)) return;
  const database = await findDatabase(client, share.database);
  if (database) {
    if (!isOurDatabase(database, share, true)) throw notOursError('database', share.database, share);
    await dropDatabase(client, share.database, info.versionNum);
  }
  await ensureShare(client, share);
}

/**
 * dropShare removes the share's database and role, ending their open sessions first.
 * Objects that are not ours are left alone; what is already gone is skipped.
 */
export async function dropShare(client: pg.Client, share: Share): Promise<void> {
  const info = await serverInfo(client);
  const role = await findRole(client, share.role);
  const roleOurs = role !== undefined && isOurs(role.comment, share);
  const database = await findDatabase(client, share.database);
  if (database && isOurDatabase(database, share, roleOurs)) await dropDatabase(client, share.database, info.versionNum);
  if (!roleOurs) return;
  await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND pid <> pg_backend_pid()', [share.role]);
  // Privileges and objects the role holds in the admin's database would block DROP ROLE.
  await client.query(`DROP OWNED BY ${client.escapeIdentifier(share.role)}`);
  await client.query(`DROP ROLE IF EXISTS ${client.escapeIdentifier(share.role)}`);
}

/** SQLSTATEs meaning "these credentials do not open that database". */
const loginRefused = new Set(['28P01', '28000', '3D000']);

/**
 * canLogIn reports whether the given credentials open a session on the database; other
 * failures (the server unreachable) are thrown, not taken for a refused login.
 */
export async function canLogIn(config: pg.ClientConfig, signal?: AbortSignal): Promise<boolean> {
  try {
    await withClient(
      config,
      async (c) => {
        await c.query('SELECT 1');
      },
      signal,
    );
    return true;
  } catch (err) {
    if (loginRefused.has(sqlState(err) ?? '')) return false;
    throw err;
  }
}
