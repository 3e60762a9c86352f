/**
 * Finding a server's executable: an explicit path (an option or an environment variable)
 * wins; otherwise the first match on PATH or in the usual system directories (Debian puts
 * some servers in /usr/sbin, which is not on every PATH).
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** The directories searched after PATH. */
export const systemExecutableDirs = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** isExecutableFile says whether path is a file this process may execute (symbolic links followed). */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** An ExecutableLookup says which program to find and where an explicit path may come from. */
export interface ExecutableLookup {
  /** The program's file name, e.g. `redis-server`. */
  name: string;
  /** An explicit path (an option), tried first. */
  explicit?: string;
  /** The environment variable that may hold an explicit path, e.g. `CONDUCTOR_REDIS_BIN`. */
  envVar?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * findExecutable returns the path of the program, or throws saying where it looked. An
 * explicit path that is not an executable file is an error, not a reason to search on.
 */
export async function findExecutable(lookup: ExecutableLookup): Promise<string> {
  const env = lookup.env ?? process.env;
  const explicit = lookup.explicit ?? (lookup.envVar ? env[lookup.envVar] : undefined);
  if (explicit) {
    if (await isExecutableFile(explicit)) return explicit;
    const source = lookup.explicit ? 'the option' : lookup.envVar;
    throw new Error(`${lookup.name} path "${explicit}" (from ${source}) is not an executable file: want the path of the ${lookup.name} program`);
  }
  const dirs = [...(env.PATH ?? '').split(':').filter((d) => d !== ''), ...systemExecutableDirs];
  for (const dir of [...new Set(dirs)]) {
    const candidate = join(dir, lookup.name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  const hint = lookup.envVar ? `; install it or set ${lookup.envVar} to its path` : '';
  throw new Error(`cannot find ${lookup.name} on PATH or in ${systemExecutableDirs.join(', ')}${hint}`);
}

/** programOutput runs a program briefly (e.g. `--version`) and returns its stdout and stderr. */
export function programOutput(program: string, args: string[], timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${program} ${args.join(' ')} failed: ${err.message}`));
      else resolve(`${stdout}${stderr}`);
    });
  });
}
