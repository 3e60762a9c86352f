/**
 * No dedicated server runs as root. When Conductor runs as root, each engine's servers run
 * as another user: the one named by the option or the engine's environment variable
 * (`CONDUCTOR_POSTGRES_USER`, `CONDUCTOR_MARIADB_USER`, `CONDUCTOR_REDIS_USER`,
 * `CONDUCTOR_NATS_USER`, `CONDUCTOR_HAPROXY_USER`, `CONDUCTOR_PROXY_USER`, `CONDUCTOR_S3_USER`),
 * else the engine's usual system user when it exists (`postgres`, `mysql`, `redis`, `nats`,
 * `haproxy`), else `nobody`.
 * Their directories must then be reachable by that user: `serverRootFor` places them outside
 * Conductor's private data dir, `prepareServerDirectories` makes them searchable (not
 * readable) and checks the way there, `giveTo` hands a path to the user.
 */
import { createHash } from 'node:crypto';
import { chmod, chown, lstat, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

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
  /** The engine, for messages (default PostgreSQL). */
  server?: string;
  /** The environment variable naming the user (default `CONDUCTOR_POSTGRES_USER`). */
  envVar?: string;
  /** The users tried in turn when none is named (default `postgres`, then `nobody`). */
  fallbacks?: readonly string[];
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
  const server = options.server ?? 'PostgreSQL';
  const envVar = options.envVar ?? postgresUserEnv;
  const wanted = options.user ?? env[envVar];
  if (wanted) {
    const user = await lookUpUser(wanted, options.passwdFile);
    if (!user) throw new Error(`cannot run ${server} as user "${wanted}": no such user in /etc/passwd (want a user name or uid[:gid])`);
    if (user.uid === 0) throw new Error(`cannot run ${server} as user "${wanted}": dedicated servers never run as root`);
    return user;
  }
  for (const fallback of options.fallbacks ?? ['postgres', 'nobody']) {
    const user = await lookUpUser(fallback, options.passwdFile);
    if (user && user.uid !== 0) return user;
  }
  throw new Error(`Conductor runs as root and ${server} must not: set ${envVar} to the user its dedicated servers should run as`);
}

/** The environment variables naming the users each engine's servers run as when Conductor is root. */
export const mariadbUserEnv = 'CONDUCTOR_MARIADB_USER';
export const redisUserEnv = 'CONDUCTOR_REDIS_USER';
export const natsUserEnv = 'CONDUCTOR_NATS_USER';
export const haproxyUserEnv = 'CONDUCTOR_HAPROXY_USER';
export const proxyUserEnv = 'CONDUCTOR_PROXY_USER';
export const s3UserEnv = 'CONDUCTOR_S3_USER';

/** How each engine's server user is chosen when Conductor is root (see the file comment). */
export const serverUsers = {
  postgresql: { server: 'PostgreSQL', envVar: postgresUserEnv, fallbacks: ['postgres', 'nobody'] },
  mariadb: { server: 'MariaDB', envVar: mariadbUserEnv, fallbacks: ['mysql', 'nobody'] },
  redis: { server: 'Redis', envVar: redisUserEnv, fallbacks: ['redis', 'nobody'] },
  nats: { server: 'NATS', envVar: natsUserEnv, fallbacks: ['nats', 'nobody'] },
  haproxy: { server: 'HAProxy', envVar: haproxyUserEnv, fallbacks: ['haproxy', 'nobody'] },
  proxy: { server: 'the port forwarder', envVar: proxyUserEnv, fallbacks: ['nobody'] },
  s3: { server: 'the S3 gateway', envVar: s3UserEnv, fallbacks: ['nobody'] },
} as const;

/** resolveServerRunAs is resolveRunAs with an engine's defaults. */
export function resolveServerRunAs(
  engine: keyof typeof serverUsers,
  options: Omit<ResolveRunAsOptions, 'server' | 'envVar' | 'fallbacks'> = {},
): Promise<RunAs | undefined> {
  return resolveRunAs({ ...serverUsers[engine], ...options });
}

/**
 * serverRootFor is where an engine keeps its instance directories by default: under
 * Conductor's data dir, or — when its servers run as another user, who cannot enter that
 * private directory — in `/var/tmp/conductor-<engine>-<hash of the data dir>`, so a restart
 * finds it again. Nothing is created here.
 */
export function serverRootFor(engine: string, dataDir: string, runAs: RunAs | undefined): string {
  if (!runAs) return join(dataDir, 'providers', 'local', engine);
  return join('/var/tmp', `conductor-${engine}-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`);
}

/**
 * serverRootKeepingLegacy is `serverRootFor`, except that a root Conductor whose instances an
 * earlier version kept under the data dir keeps them there, so none is lost: starting them
 * then says how to let their user reach that directory.
 */
export async function serverRootKeepingLegacy(engine: string, dataDir: string, runAs: RunAs | undefined): Promise<string> {
  const legacy = join(dataDir, 'providers', 'local', engine);
  if (
    runAs &&
    (await readdir(legacy).then(
      (names) => names.length > 0,
      () => false,
    ))
  )
    return legacy;
  return serverRootFor(engine, dataDir, runAs);
}

/**
 * prepareServerDirectories makes `root` and `dir` exist. With a `runAs` user both are
 * root-owned and searchable only (0711), and the way to `dir` is checked to be searchable
 * by that user; without one they are 0700.
 */
export async function prepareServerDirectories(root: string, dir: string, runAs: RunAs | undefined, server: string): Promise<void> {
  const mode = runAs ? 0o711 : 0o700;
  await makeDirectoryUnderRoot(root, dir, mode);
  if (!runAs) return;
  // Only search permission, and only on directories this provider owns.
  await chmod(root, 0o711);
  await chmod(dir, 0o711);
  const blocked = await untraversableAncestor(dir, runAs);
  if (blocked) {
    throw new Error(
      `${server} runs as user "${runAs.name}" (uid ${runAs.uid}) because Conductor runs as root, and that user cannot reach ${dir}: ` +
        `${blocked} is not searchable by it (chmod o+x ${blocked}), or choose an instances directory it can reach, or run Conductor as another user`,
    );
  }
}

/** How often `makeDirectoryUnderRoot` starts over when the root vanished under it. */
const rootVanishedRetries = 20;

/**
 * makeDirectoryUnderRoot makes `root` and `dir` (a directory in it) exist. The supervisor
 * removes an empty root (after the last instance directory goes, and at start-up), so the root
 * may vanish between making it and making `dir` in it: then it starts over. Once `dir` exists
 * the root is not empty and stays. (A recursive mkdir is not used for the root: it reports
 * ENOENT when the directory it found existing is removed before it checks it.)
 */
export async function makeDirectoryUnderRoot(root: string, dir: string, mode: number): Promise<void> {
  await mkdir(dirname(root), { recursive: true, mode });
  for (let attempt = 0; ; attempt++) {
    await mkdir(root, { mode }).catch(unlessCode('EEXIST'));
    try {
      await mkdir(dir, { mode });
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return;
      if (code !== 'ENOENT' || attempt >= rootVanishedRetries) throw err;
    }
  }
}

/** unlessCode rethrows an error unless it has the given errno code. */
function unlessCode(code: string): (err: unknown) => void {
  return (err) => {
    if ((err as NodeJS.ErrnoException).code !== code) throw err;
  };
}

/** giveTo makes `path` the `runAs` user's (nothing without one). */
export async function giveTo(path: string, runAs: RunAs | undefined): Promise<void> {
  if (runAs) await chown(path, runAs.uid, runAs.gid);
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

/**
 * giveTreeTo makes `path` and everything under it the `runAs` user's when `path` is not
 * already (data made by an earlier version, whose servers ran as root); symbolic links are
 * changed themselves, never followed.
 */
export async function giveTreeTo(path: string, runAs: RunAs | undefined): Promise<void> {
  if (!runAs) return;
  const info = await lstat(path).catch(() => undefined);
  if (!info || info.uid === runAs.uid) return;
  const walk = async (p: string): Promise<void> => {
    const st = await lstat(p);
    await chown(p, runAs.uid, runAs.gid).catch(() => {});
    if (st.isDirectory()) for (const entry of await readdir(p)) await walk(join(p, entry));
  };
  await walk(path);
}
