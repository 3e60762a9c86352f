import { accessSync, chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { pageCacheBytes } from './options.js';

/** The handle of an open SQLite database. */
export type Db = Database.Database;

/** The schema this code reads and writes (PRAGMA user_version). */
export const schemaVersion = 1;
/** Marks a SQLite file as a Conductor store (PRAGMA application_id, "Cndt"). */
export const applicationId = 0x436e6474;

/**
 * The tables:
 * - `log`: every retained revision, one row each. A put holds the value; a delete (a
 *   tombstone) holds NULL and points at the value it removed through `prev_rev`.
 *   `prev_rev` is the key's previous revision (0 for a create), so an update's prior
 *   value is one primary-key lookup away. The index on `key` is really on (key, rev),
 *   since rev is the rowid.
 * - `kv`: the live keys and the log row holding their current value.
 * - `meta`: the current revision, the compacted revision, and how far compaction has
 *   physically removed rows.
 * - `rev_time`: when each commit happened (its last revision and the wall clock), for
 *   age-based retention.
 */
const createSchema = `
CREATE TABLE log (
  rev        INTEGER PRIMARY KEY,
  key        TEXT    NOT NULL,
  deleted    INTEGER NOT NULL,
  create_rev INTEGER NOT NULL,
  prev_rev   INTEGER NOT NULL,
  value      TEXT
);
CREATE INDEX log_by_key ON log (key);
CREATE TABLE kv (
  key        TEXT    PRIMARY KEY,
  create_rev INTEGER NOT NULL,
  mod_rev    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE meta (
  name  TEXT    PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE rev_time (
  rev   INTEGER PRIMARY KEY,
  at_ms INTEGER NOT NULL
);
CREATE INDEX rev_time_by_time ON rev_time (at_ms);
INSERT INTO meta (name, value) VALUES ('revision', 0), ('compacted', 0), ('compact_progress', 0);
`;

export interface OpenDatabaseOptions {
  /**
   * The caller makes commits durable itself by syncing the WAL before anyone hears of them
   * (the store's pipelined group commit): SQLite then does not sync on commit
   * (`synchronous = OFF`) and does not checkpoint on its own (the caller checkpoints with
   * `synchronous = FULL`). Default false: `synchronous = FULL`, a commit is on disk when it returns.
   */
  deferredSync?: boolean;
}

/**
 * openDatabase opens (creating when needed) the store's SQLite file with durable settings:
 * WAL journal, `synchronous = FULL` unless the caller syncs itself, and an exclusive lock
 * held while open, so a second process cannot write the same file behind our back.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Db {
  const inMemory = path === ':memory:' || path === '';
  let db: Db;
  try {
    if (!inMemory) createPrivate(path);
    db = new Database(path);
  } catch (err) {
    throw new Error(`cannot open store database ${path}: ${explain(path, err)}`, { cause: err });
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('busy_timeout = 500'); // only another process can hold the lock: fail fast
    if (!inMemory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new Error(`journal_mode is ${String(mode)}, expected wal`);
    }
    db.pragma('synchronous = FULL');
    if (options.deferredSync && !inMemory) db.pragma('wal_autocheckpoint = 0');
    db.pragma(`cache_size = -${pageCacheBytes / 1024}`); // negative: KiB, not pages
    db.pragma('temp_store = MEMORY');
    db.pragma('journal_size_limit = 67108864'); // truncate the WAL back to 64 MiB after checkpoints
    migrate(db);
    // Take the write lock now: in exclusive mode it is held until close.
    db.exec('BEGIN IMMEDIATE; COMMIT');
    if (options.deferredSync && !inMemory) db.pragma('synchronous = OFF');
  } catch (err) {
    db.close();
    const message = inMemory ? (err as Error).message : explain(path, err);
    const hint = /locked|busy/i.test(message) ? ' (is another Conductor server using it?)' : '';
    throw new Error(`cannot open store database ${path}: ${message}${hint}`, { cause: err });
  }
  return db;
}

/** The mode of the database file; SQLite gives its -wal and -shm files the same. */
export const databaseFileMode = 0o600;

/**
 * createPrivate creates the database file (and its folder) readable by its owner only, or
 * takes the group and other bits off an existing one and its -wal and -shm files: SQLite
 * would create them with the umask's mode (0644), whatever the folder's.
 */
function createPrivate(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', databaseFileMode));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let mode: number;
    try {
      mode = lstatSync(file).mode;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) chmodSync(file, databaseFileMode);
  }
}

/**
 * explain words an open failure by its cause: SQLite says "disk I/O error" or "attempt to
 * write a readonly database" when the file system is read-only or the file is not writable.
 */
function explain(path: string, err: unknown): string {
  const message = (err as Error).message;
  for (const target of [dirname(path), path]) {
    try {
      accessSync(target, constants.W_OK);
    } catch (accessErr) {
      const code = (accessErr as NodeJS.ErrnoException).code;
      if (code === 'EROFS') return `${target} is on a read-only file system (${message})`;
      if (code === 'EACCES' || code === 'EPERM') return `${target} is not writable by this user (${message})`;
    }
  }
  return message;
}

function migrate(db: Db): void {
  const appId = Number(db.pragma('application_id', { simple: true }));
  const version = Number(db.pragma('user_version', { simple: true }));
  if (appId !== 0 && appId !== applicationId) {
    throw new Error(`the file is not a Conductor store (application_id ${appId}, expected ${applicationId})`);
  }
  if (version === 0) {
    const tables = Number(db.prepare(`SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'`).pluck().get());
    if (tables > 0) throw new Error(`the file holds other tables and no Conductor schema version`);
    db.transaction(() => {
      db.exec(createSchema);
      db.pragma(`application_id = ${applicationId}`);
      db.pragma(`user_version = ${schemaVersion}`);
    }).immediate();
    return;
  }
  if (version !== schemaVersion) {
    throw new Error(`unsupported store schema version ${version}, expected ${schemaVersion}`);
  }
}
