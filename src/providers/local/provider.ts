/**
 * The `local` provider's one value (`localProvider`): its kinds, defined once in each engine's
 * `kinds.ts`, and `start`. Only the definitions are loaded with this module: the code that runs
 * the kinds (database clients, the S3 SDK, supervisors) is imported by `start`, so reading the
 * catalog — CRDs, `conductor crds`, the API server's start-up — does not load it.
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { defineProvider } from '../kind-definition.js';
import { localPostgreSQLInstanceKind, postgresqlRefs, postgresqlServerKind } from './postgresql/kinds.js';
import { localMySQLInstanceKind, mysqlRefs, mysqlServerKind } from './mysql/kinds.js';
import { localRedisInstanceKind, redisRefs, redisServerKind } from './redis/kinds.js';
import { natsRefs, natsServerKind } from './nats/kinds.js';
import { s3Refs, s3ServerKind } from './s3/kinds.js';
import { hostPathPoolKind, hostPathRefs } from './hostpath/kinds.js';
import { haproxyLoadBalancerKind, loadBalancerRefs, localPortForwarderKind } from './loadbalancer/kinds.js';
import type { LocalProvider, LocalProviderOptions } from './local-provider.js';

/** The environment variable naming where dedicated PostgreSQL instances keep their data. */
export const instancesDirEnv = 'CONDUCTOR_POSTGRES_INSTANCES_DIR';

/** The local provider's concrete kinds, as defined (CRDs in install order). */
export const localKinds = [
  postgresqlServerKind,
  localPostgreSQLInstanceKind,
  mysqlServerKind,
  localMySQLInstanceKind,
  redisServerKind,
  localRedisInstanceKind,
  natsServerKind,
  s3ServerKind,
  hostPathPoolKind,
  localPortForwarderKind,
  haproxyLoadBalancerKind,
] as const;

/** The local provider's ResourceRefs, by plural. */
export const localRefs = { ...postgresqlRefs, ...mysqlRefs, ...redisRefs, ...natsRefs, ...s3Refs, ...hostPathRefs, ...loadBalancerRefs } as const;

/**
 * Where dedicated PostgreSQL servers keep their data when the options name no directory.
 * PostgreSQL refuses to run as root, so when Conductor is root the servers run as another
 * user, who cannot enter Conductor's private data dir: their data then lives in a directory of
 * their own under /var/tmp, named after the data dir so a restart finds it again.
 * `CONDUCTOR_POSTGRES_INSTANCES_DIR` overrides.
 */
export function instancesDirFor(dataDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env[instancesDirEnv]) return env[instancesDirEnv];
  if (process.getuid?.() !== 0) return undefined;
  // Only named here: the supervisor creates it with the first instance and removes it with the last.
  return join('/var/tmp', `conductor-postgres-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`);
}

/** The `local` provider: its kinds, and `start` (createLocalProvider) for what runs them. */
export const localProvider = defineProvider({
  name: 'local',
  type: 'local',
  kinds: localKinds,
  onServerHost: true,
  async start(options: LocalProviderOptions): Promise<LocalProvider> {
    const { createLocalProvider } = await import('./local-provider.js');
    return createLocalProvider({ ...options, instancesDir: options.instancesDir ?? instancesDirFor(options.dataDir, options.env) });
  },
});
