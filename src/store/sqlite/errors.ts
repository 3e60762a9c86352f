/**
 * Errors of the SQLite store that callers tell apart by class.
 */

/**
 * A StorageFullError rejects writes that did not fit on the disk (SQLITE_FULL). Nothing of
 * them was stored; reads go on, and writes succeed again once space is freed.
 */
export class StorageFullError extends Error {
  constructor(
    message: string,
    /** The database file whose disk is full. */
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StorageFullError';
  }
}

/** True for SQLite's "database or disk is full" (better-sqlite3 puts the result code on `code`). */
export function isSqliteFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || (err as NodeJS.ErrnoException | null)?.code === 'ENOSPC';
}
