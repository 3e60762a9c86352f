/**
 * PostgreSQL refuses to run as root. When Conductor runs as root, dedicated instances run
 * as another user: the one named by the option or `CONDUCTOR_POSTGRES_USER`, else
 * `postgres` when it exists, else `nobody`. Their directories must then be reachable by
 * that user.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** The environment variable naming the user dedicated instances run as when Conductor is root. */
export const postgresUserEnv = 'CONDUCTOR_POSTGRES_USER';

/** A RunAs names the user (and primary group) a child process is switched to. */
export interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

/** parsePasswd reads /etc/passwd text into users by name. */
export function parsePasswd(text: string): Map<string, RunAs> {
  const users = new Map<string, RunAs>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [name, , uid, gid] = line.split(':');
    if (!name || uid === undefined || gid === undefined) continue;
    const u = Number(uid);
    const g = Number(gid);
    if (Number.isInteger(u) && Number.isInteger(g)) users.set(name, { name, uid: u, gid: g });
  }
  return users;
}

/**
 * lookUpUser finds a user by name in /etc/passwd, or takes "uid" or "uid:gid" literally.
 */
export async function lookUpUser(user: string, passwdFile = '/etc/passwd'): Promise<RunAs | undefined> {
  const numeric = /^(\d+)(?::(\d+))?$/.exec(user);
  if (numeric) return { name: user, uid: Number(numeric[1]), gid: Number(numeric[2] ?? numeric[1]) };
  const text = await readFile(passwdFile, 'utf8').catch(() => '');
  return parsePasswd(text).get(user);
}

export interface ResolveRunAsOptions {
  user?: string;
  env?: NodeJS.ProcessEnv;
  /** The effective uid of this process (tests pass one). */
  uid?: number;
  passwdFile?: string;
}

/**
 * resolveRunAs returns the user instances must run as, or undefined when they run as this
 * process's own user (it is not root).
 */
export async function resolveRunAs(options: ResolveRunAsOptions = {}): Promise<RunAs | undefined> {
  const uid = options.uid ?? process.geteuid?.() ?? -1;
  if (uid !== 0) return undefined;
  const env = options.env ?? process.env;
  const wanted = options.user ?? env[postgresUserEnv];
  if (wanted) {
    const user = await lookUpUser(wanted, options.passwdFile);
    if (!user) throw new Error(`cannot run PostgreSQL as user "${wanted}": no such user in /etc/passwd (want a user name or uid[:gid])`);
    if (user.uid === 0) throw new Error(`cannot run PostgreSQL as user "${wanted}": PostgreSQL refuses to run as root`);
    return user;
  }
  for (const fallback of ['postgres', 'nobody']) {
    const user = await lookUpUser(fallback, options.passwdFile);
    if (user && user.uid !== 0) return user;
  }
  throw new Error(`Conductor runs as root and PostgreSQL refuses to: set ${postgresUserEnv} to the user dedicated instances should run as`);
}

/** mayTraverse says whether a user (with no supplementary groups) may search a directory. */
export function mayTraverse(mode: number, owner: number, group: number, user: RunAs): boolean {
  if (user.uid === owner) return (mode & 0o100) !== 0;
  if (user.gid === group) return (mode & 0o010) !== 0;
  return (mode & 0o001) !== 0;
}

/**
 * untraversableAncestor returns the first directory on the way to `path` (from / down,
 * `path` included) that `user` cannot search, or undefined when every one is searchable.
 */
export async function untraversableAncestor(path: string, user: RunAs): Promise<string | undefined> {
  const chain: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    const info = await stat(dir);
    if (!mayTraverse(info.mode, info.uid, info.gid, user)) return dir;
  }
  return undefined;
}
