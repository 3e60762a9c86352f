/**
 * Finding the MariaDB server binaries a dedicated instance runs: `mariadbd` and
 * `mariadb-install-db` in a directory given as an option or by `CONDUCTOR_MARIADB_BIN`,
 * else on the usual system paths (Debian puts the server in /usr/sbin and the installer in
 * /usr/bin). The older names `mysqld` and `mysql_install_db` are accepted too.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describeVersion, parseServerVersion } from './version.js';
import { isExecutableFile } from '../process/executable-lookup.js';

const run = promisify(execFile);

/** The environment variable naming a directory with `mariadbd` and `mariadb-install-db`. */
export const mariadbBinEnv = 'CONDUCTOR_MARIADB_BIN';

export type MariaDbBinariesSource = 'option' | 'environment' | 'system';

/** MariaDbBinaries are the programs a dedicated instance needs, and their version. */
export interface MariaDbBinaries {
  server: string;
  installDb: string;
  /** The version text the server reports, e.g. "10.11.19-MariaDB". */
  version: string;
  source: MariaDbBinariesSource;
}

const serverNames = ['mariadbd', 'mysqld'];
const installerNames = ['mariadb-install-db', 'mysql_install_db'];
/** Where distributions install them, searched in order. */
export const systemBinaryDirs = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/usr/local/mysql/bin', '/opt/homebrew/bin'];

async function findProgram(names: string[], dirs: string[]): Promise<string | undefined> {
  for (const name of names) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (await isExecutableFile(path)) return path;
    }
  }
  return undefined;
}

/** readServerVersion runs `<server> --version` and reads e.g. "10.11.19-MariaDB" from its output. */
export async function readServerVersion(server: string): Promise<string> {
  let output: string;
  try {
    output = (await run(server, ['--version'], { timeout: 10_000 })).stdout;
  } catch (err) {
    throw new Error(`${server} --version failed: ${(err as Error).message.trim()}`, { cause: err });
  }
  const match = /Ver\s+(\S+)/.exec(output);
  const text = match?.[1] ?? output.trim();
  const parsed = parseServerVersion(text);
  if (!parsed) throw new Error(`cannot read a version from "${output.trim()}" (${server} --version)`);
  if (parsed.flavor !== 'mariadb') {
    throw new Error(`${server} is ${describeVersion(parsed)}: dedicated instances need MariaDB (mariadbd and mariadb-install-db)`);
  }
  return text.replace(/-MariaDB.*$/i, '-MariaDB');
}

/** inspectBinaries finds both programs among `dirs` and reads the server's version. */
export async function inspectBinaries(dirs: string[], source: MariaDbBinariesSource): Promise<MariaDbBinaries> {
  const server = await findProgram(serverNames, dirs);
  const installDb = await findProgram(installerNames, dirs);
  if (!server || !installDb) {
    const missing = [!server && 'mariadbd', !installDb && 'mariadb-install-db'].filter(Boolean).join(' and ');
    throw new Error(`${missing} not found in ${dirs.join(', ')} (${source})`);
  }
  return { server, installDb, version: await readServerVersion(server), source };
}

export interface ResolveMariaDbOptions {
  /** A directory with `mariadbd` and `mariadb-install-db`; wins over everything else. */
  binDir?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * resolveMariaDbBinaries picks the binaries: an explicit directory (option, then
 * environment) must hold both, else it is an error; otherwise the system paths are searched.
 */
export async function resolveMariaDbBinaries(options: ResolveMariaDbOptions = {}): Promise<MariaDbBinaries> {
  const env = options.env ?? process.env;
  if (options.binDir) return inspectBinaries([options.binDir], 'option');
  const fromEnv = env[mariadbBinEnv];
  if (fromEnv) return inspectBinaries([fromEnv], 'environment');
  try {
    return await inspectBinaries(systemBinaryDirs, 'system');
  } catch (err) {
    throw new Error(
      `no MariaDB server binaries found: ${(err as Error).message}; install MariaDB or set ${mariadbBinEnv} to a directory holding mariadbd and mariadb-install-db`,
      { cause: err },
    );
  }
}
