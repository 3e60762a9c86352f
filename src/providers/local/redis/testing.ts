/**
 * Test support: a throwaway redis-server on 127.0.0.1 in a temporary directory, run with
 * the same supervisor dedicated instances use. Not used outside tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRedisBinary, type RedisBinary } from './binaries.js';
import { RedisServers } from './local-servers.js';

/** A ThrowawayRedis is a running Redis server whose `default` user has `password`. */
export interface ThrowawayRedis {
  host: string;
  port: number;
  password: string;
  binary: RedisBinary;
  pid: number;
  stop(): Promise<void>;
}

/** startThrowawayRedis starts a server; `stop` stops it and removes its files. */
export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const root = await mkdtemp(join(tmpdir(), 'conductor-redis-'));
  const binary = await resolveRedisBinary();
  const servers = new RedisServers({ root, binary });
  const dir = servers.dirFor('test', 'server');
  try {
    const { pid, port, state } = await servers.ensureRunning(dir, { namespace: 'test', name: 'server' }, {});
    return {
      host: '127.0.0.1',
      port,
      password: state.password,
      binary,
      pid,
      async stop() {
        await servers.remove(dir);
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await servers.remove(dir).catch(() => {});
    await rm(root, { recursive: true, force: true });
    throw err;
  }
}
