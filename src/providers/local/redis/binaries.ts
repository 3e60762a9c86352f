/**
 * Finding redis-server: `CONDUCTOR_REDIS_BIN` (or the option) names it, else PATH and the
 * usual system directories; its version comes from `redis-server --version`.
 */
import { findExecutable, programOutput } from '../process/executable-lookup.js';
import { redisBinEnv } from './kinds.js';

/** A RedisBinary is the redis-server program dedicated instances run, and its version. */
export interface RedisBinary {
  path: string;
  version: string;
}

/** parseRedisVersion reads the version out of `redis-server --version` ("Redis server v=7.0.15 sha=..."). */
export function parseRedisVersion(output: string): string | undefined {
  return /\bv=(\d+\.\d+(?:\.\d+)?)/.exec(output)?.[1] ?? /\b(\d+\.\d+\.\d+)\b/.exec(output)?.[1];
}

/** resolveRedisBinary finds redis-server and asks it its version. */
export async function resolveRedisBinary(options: { path?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RedisBinary> {
  const path = await findExecutable({ name: 'redis-server', explicit: options.path, envVar: redisBinEnv, env: options.env });
  const output = await programOutput(path, ['--version']);
  const version = parseRedisVersion(output);
  if (!version) throw new Error(`cannot read the version of ${path} from "${output.trim()}": want "Redis server v=<version> ..."`);
  return { path, version };
}
