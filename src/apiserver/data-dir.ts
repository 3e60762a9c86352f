/**
 * The data directory: checked and tightened before anything is read from it or written to
 * it. Conductor keeps its private keys, tokens, kubeconfig and state there, so the directory
 * must be writable by nobody but its owner (anyone else could replace a key or the state),
 * and every file Conductor keeps there is 0600 (directories 0700) whatever an older version
 * or the umask left.
 */
import { constants } from 'node:fs';
import { access, chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The mode of every file Conductor creates in the data directory. */
export const DATA_FILE_MODE = 0o600;
/** The mode of every directory Conductor creates in the data directory. */
export const DATA_DIR_MODE = 0o700;

/** What Conductor itself keeps in the data directory (providers/ belongs to the providers). */
const OWN_FILES = ['state.db', 'state.db-wal', 'state.db-shm', 'kubeconfig'];
const OWN_DIRS = ['pki', 'encryption', 'users'];

/**
 * prepareDataDir creates `dir` (0700) when missing, refuses a directory that others may
 * write to or that cannot be written (a read-only file system says so, instead of SQLite's
 * "disk I/O error" later), and tightens the modes of the files Conductor keeps there.
 */
export async function prepareDataDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: DATA_DIR_MODE });
  } catch (err) {
    throw new Error(`cannot create the data directory ${dir}: ${describe(err)}`, { cause: err });
  }
  // A data dir given as a symlink is fine: its target is checked.
  const st = await stat(dir);
  await checkDir(dir, st.mode, st.isDirectory());
}

async function checkDir(dir: string, mode: number, isDir: boolean): Promise<void> {
  if (!isDir) throw new Error(`the data directory ${dir} is not a directory`);
  if (mode & 0o022) {
    const who = [mode & 0o020 ? 'its group' : '', mode & 0o002 ? 'all users' : ''].filter(Boolean).join(' and ');
    throw new Error(
      `the data directory ${dir} is writable by ${who} (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): anyone who can write there could replace Conductor's keys and state; make it private (chmod 700 ${dir}) or choose another --data-dir`,
    );
  }
  try {
    await access(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS')
      throw new Error(
        `the data directory ${dir} is on a read-only file system: Conductor must write its state there; mount it read-write or choose another --data-dir`,
        { cause: err },
      );
    throw new Error(`the data directory ${dir} is not writable by this user (${describe(err)}); choose another --data-dir`, { cause: err });
  }
  for (const name of OWN_FILES) await tighten(join(dir, name), DATA_FILE_MODE);
  for (const name of OWN_DIRS) await tightenTree(join(dir, name));
}

async function tightenTree(path: string): Promise<void> {
  const st = await lstatIfExists(path);
  if (!st) return;
  if (st.isDirectory()) {
    await tighten(path, DATA_DIR_MODE);
    for (const entry of await readdir(path)) await tightenTree(join(path, entry));
  } else if (st.isFile()) {
    await tighten(path, DATA_FILE_MODE);
  }
}

/** Removes the group and other bits of an existing file or directory (symlinks are left alone). */
async function tighten(path: string, mode: number): Promise<void> {
  const st = await lstatIfExists(path);
  if (!st || st.isSymbolicLink() || (st.mode & 0o077) === 0) return;
  try {
    await chmod(path, mode);
  } catch (err) {
    throw new Error(`cannot make ${path} private (mode ${mode.toString(8)}): ${describe(err)}`, { cause: err });
  }
}

async function lstatIfExists(path: string) {
  try {
    return await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
