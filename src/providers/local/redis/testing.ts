/**
 * Test support: a throwaway redis-server on 127.0.0.1 in a temporary directory, run with
 * the same supervisor dedicated instances use. Not used outside tests.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRedisBinary, type RedisBinary } from './binaries.js';
import { RedisServers } from './local-servers.js';
import { startThrowaway } from '../process/throwaway.js';

/** A ThrowawayRedis is a running Redis server whose `default` user has `password`. */
export interface ThrowawayRedis {
  host: string;
  port: number;
  password: string;
  binary: RedisBinary;
  pid: number;
  /** The server's log, as the `log` subresource serves it. */
  logFile: string;
  stop(): Promise<void>;
}

/** startThrowawayRedis starts a server; `stop` stops it and removes its files. */
export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const root = await mkdtemp(join(tmpdir(), 'conductor-redis-'));
  const binary = await resolveRedisBinary();
  const servers = new RedisServers({ root, binary });
  const dir = servers.dirFor('test', 'server');
  return startThrowaway(root, servers, dir, async () => {
    const { pid, port, state } = await servers.ensureRunning(dir, { namespace: 'test', name: 'server' }, {});
    return { host: '127.0.0.1', port, password: state.password, binary, pid, logFile: servers.logFile(dir) };
  });
}
