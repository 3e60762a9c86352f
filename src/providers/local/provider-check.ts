/**
 * The local provider's readiness check: the programs its kinds run are found and answer
 * `--version` — postgres and initdb, mariadbd and mariadb-install-db, redis-server,
 * nats-server, haproxy — looked up the way the kinds look them up (`CONDUCTOR_<ENGINE>_BIN`,
 * then PATH and the system directories), afresh on every check, so a program installed or
 * removed after start-up is noticed.
 */
import type { ProviderCheck } from '../spi.js';
import { resolveBinaries } from './postgresql/binaries.js';
import { resolveMariaDbBinaries } from './mysql/binaries.js';
import { resolveRedisBinary } from './redis/binaries.js';
import { resolveNatsBinary } from './nats/binaries.js';
import { resolveHAProxy } from './loadbalancer/haproxy-binary.js';

/** LocalProgramsOptions say where the local provider was told to find its programs. */
export interface LocalProgramsOptions {
  env?: NodeJS.ProcessEnv;
  /** The PostgreSQL binaries directory the provider was given, if any. */
  postgresBin?: string;
}

interface Program {
  /** What it is called in messages. */
  name: string;
  /** What cannot work without it. */
  needs: string;
  /** Finds it and returns a short description (`redis-server 7.0.15`), or throws saying why not. */
  find(): Promise<string>;
}

function programs(options: LocalProgramsOptions): Program[] {
  const env = options.env ?? process.env;
  return [
    {
      name: 'postgres/initdb',
      needs: 'LocalPostgreSQLInstance',
      find: async () => `postgres ${(await resolveBinaries({ binDir: options.postgresBin, env })).version}`,
    },
    { name: 'mariadbd', needs: 'LocalMySQLInstance', find: async () => `mariadbd ${(await resolveMariaDbBinaries({ env })).version}` },
    { name: 'redis-server', needs: 'LocalRedisInstance', find: async () => `redis-server ${(await resolveRedisBinary({ env })).version}` },
    { name: 'nats-server', needs: 'the NATS kinds', find: async () => `nats-server ${(await resolveNatsBinary({ env })).version}` },
    { name: 'haproxy', needs: 'the load balancer kinds', find: async () => `haproxy ${(await resolveHAProxy({ env })).version}` },
  ];
}

/**
 * checkLocalPrograms looks for every program the local kinds run: Ready when all are found,
 * else Ready=False (`ProgramsMissing`) naming each missing program, why, and the kinds that
 * cannot work without it.
 */
export async function checkLocalPrograms(options: LocalProgramsOptions = {}, signal?: AbortSignal): Promise<ProviderCheck> {
  const found: string[] = [];
  const missing: string[] = [];
  for (const program of programs(options)) {
    signal?.throwIfAborted();
    try {
      found.push(await program.find());
    } catch (err) {
      missing.push(`${program.name} (needed by ${program.needs}): ${(err as Error).message}`);
    }
  }
  if (missing.length > 0) {
    return {
      ready: false,
      reason: 'ProgramsMissing',
      message: `${missing.length === 1 ? 'a program' : 'programs'} the local kinds run cannot be found: ${missing.join('; ')}. Install ${missing.length === 1 ? 'it' : 'them'} or set the CONDUCTOR_<ENGINE>_BIN variable to ${missing.length === 1 ? 'its' : 'their'} path, then restart Conductor`,
    };
  }
  return { ready: true, message: `found ${found.join(', ')}` };
}
