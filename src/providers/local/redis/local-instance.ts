/**
 * LocalRedisInstance: a dedicated redis-server process on this machine for one claim.
 * create/update make it exist and run with the spec's eviction settings; observe reports a
 * stopped server or changed settings as drift so the reconciler corrects them; delete stops
 * it and removes its directory; scrub rotates the password, disconnects the previous
 * claim's clients and runs FLUSHALL so the next claim gets a clean instance.
 */
import type { KObject } from '../../../machinery/object.js';
import type { CallOptions, ConcreteKind, Connector, ExternalObservation } from '../../spi.js';
import { versionMismatch } from '../postgresql/version.js';
import { generatePassword } from './admin.js';
import type { RedisBinary } from './binaries.js';
import { formatRedisConnection, redisEndpointDetails } from './connection.js';
import { defaultEvictionPolicy, localRedisInstanceKind, localRedisInstanceSecretKeys, redisClusterClaim, type LocalRedisInstance } from './kinds.js';
import { kindNames } from '../../kind-definition.js';
import type { RedisInstanceState, RedisServers, RedisSettings } from './local-servers.js';
import { configureLocalRedis, localRedisMatcher } from './matchers.js';
import { describeResource, resourceIdentity } from '../process/instance-names.js';
import { DedicatedInstanceClient, watchServerExits } from '../process/dedicated-instance.js';

const identity = (resource: KObject) => resourceIdentity('LocalRedisInstance', resource);
const describe = (resource: KObject) => describeResource('LocalRedisInstance', resource);

function settingsOf(resource: LocalRedisInstance): RedisSettings {
  return { evictionPolicy: resource.spec.evictionPolicy, maxMemory: resource.spec.maxMemory };
}

/** maxMemoryBytes turns a Redis memory amount ("256mb", "1gb", "1024") into bytes. */
export function maxMemoryBytes(amount: string | undefined): number {
  if (!amount) return 0;
  const m = /^(\d+)(b|kb|mb|gb)?$/i.exec(amount.trim());
  if (!m) return Number.NaN;
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb' | 'gb'];
  return Number(m[1]) * unit;
}

/** A LocalRedisClient manages the dedicated Redis servers of one provider. */
export class LocalRedisClient extends DedicatedInstanceClient<LocalRedisInstance, RedisServers> {
  constructor(
    servers: RedisServers,
    private readonly binary: RedisBinary,
  ) {
    super(servers, 'LocalRedisInstance');
  }

  private validate(resource: LocalRedisInstance): void {
    const version = resource.spec.version;
    if (version) {
      const mismatch = versionMismatch(version, this.binary.version, true);
      if (mismatch) throw new Error(`${describe(resource)} asks for Redis "${version}" but ${this.binary.path} is ${this.binary.version}: ${mismatch}`);
    }
    if (Number.isNaN(maxMemoryBytes(resource.spec.maxMemory))) {
      throw new Error(`${describe(resource)} has maxMemory "${resource.spec.maxMemory}": want a number of bytes, or one with kb, mb or gb`);
    }
  }

  private details(state: RedisInstanceState) {
    return redisEndpointDetails({ host: '127.0.0.1', port: state.port, username: 'default', password: state.password, keyPrefix: '' });
  }

  async observe(resource: LocalRedisInstance, options?: CallOptions): Promise<ExternalObservation> {
    const dir = this.dir(resource);
    const status = await this.servers.status(dir);
    if (!status.provisioned || !status.state) return { exists: false, upToDate: false };
    const atProvider = {
      running: status.running,
      port: status.state.port,
      ...(status.pid !== undefined ? { pid: status.pid } : {}),
      directory: dir,
      logFile: this.servers.logFile(dir),
    };
    if (!status.running) return { exists: true, upToDate: false, atProvider, drift: 'the redis-server process is not running' };
    const wantedPort = resource.spec.port;
    if (wantedPort !== undefined && wantedPort !== status.state.port) {
      return { exists: true, upToDate: false, atProvider, drift: `the server listens on port ${status.state.port}, spec.port is ${wantedPort}` };
    }
    let found: { evictionPolicy: string; maxMemory: string; version: string };
    try {
      found = await this.servers.serverSettings(status.state, options?.signal);
    } catch (err) {
      if (options?.signal?.aborted) throw err; // the call was cancelled: no observation
      return { exists: true, upToDate: false, atProvider, drift: `cannot reach the server: ${(err as Error).message}` };
    }
    const withVersion = { ...atProvider, version: found.version, evictionPolicy: found.evictionPolicy };
    const policy = resource.spec.evictionPolicy || defaultEvictionPolicy;
    if (found.evictionPolicy !== policy) {
      return { exists: true, upToDate: false, atProvider: withVersion, drift: `maxmemory-policy is "${found.evictionPolicy}", spec wants "${policy}"` };
    }
    const memory = maxMemoryBytes(resource.spec.maxMemory);
    if (Number(found.maxMemory) !== memory) {
      return { exists: true, upToDate: false, atProvider: withVersion, drift: `maxmemory is ${found.maxMemory} bytes, spec wants ${memory}` };
    }
    return { exists: true, upToDate: true, atProvider: withVersion, connectionDetails: this.details(status.state) };
  }

  protected async ensure(resource: LocalRedisInstance, signal?: AbortSignal) {
    this.validate(resource);
    const dir = this.dir(resource);
    const { state } = await this.servers.ensureRunning(dir, { ...identity(resource), port: resource.spec.port }, settingsOf(resource), signal);
    return { dir, details: this.details(state) };
  }

  /**
   * scrub gives the server a new password, disconnects every client of the previous claim,
   * and empties it. Repeating it after a crash ends the same way (with yet another password).
   */
  async scrub(resource: LocalRedisInstance, options?: CallOptions): Promise<void> {
    this.validate(resource);
    const dir = this.dir(resource);
    await this.servers.ensureRunning(dir, { ...identity(resource), port: resource.spec.port }, settingsOf(resource), options?.signal);
    const state = await this.servers.rotatePassword(dir, generatePassword(), settingsOf(resource));
    await this.servers.withServer(
      state,
      async (r) => {
        await r.send(['CLIENT', 'KILL', 'TYPE', 'normal']);
        await r.send(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
        await r.send(['FLUSHALL']);
      },
      options?.signal,
    );
  }
}

/** localRedisInstanceConcreteKind builds the LocalRedisInstance kind around a supervisor. */
export function localRedisInstanceConcreteKind(
  servers: RedisServers | undefined,
  binary: RedisBinary | undefined,
  unavailable?: string,
): ConcreteKind<LocalRedisInstance> {
  const connector: Connector<LocalRedisInstance> = {
    async connect() {
      if (!servers || !binary) throw new Error(`LocalRedisInstance is unavailable on this machine: ${unavailable ?? 'no redis-server'}`);
      return new LocalRedisClient(servers, binary);
    },
  };
  return {
    ...kindNames(localRedisInstanceKind),
    deterministicExternalNames: true,
    implements: [
      {
        claimKind: redisClusterClaim,
        connectionSecretKeys: localRedisInstanceSecretKeys,
        match: localRedisMatcher(binary?.version),
        configure: configureLocalRedis,
        formatConnection: formatRedisConnection,
      },
    ],
    connector,
    watch: watchServerExits(servers),
    ...(servers ? { logRoot: servers.root } : {}),
  };
}
