/**
 * LocalPostgreSQLInstance: a dedicated PostgreSQL server process on this machine for one
 * claim. create/update make it exist and run (initdb, start, the application role and
 * database); observe reports a stopped server as drift so the reconciler starts it again;
 * delete stops it and removes its directory; scrub empties its database and rotates the
 * application password so the next claim gets a clean instance.
 */
import type { KObject } from '../../../machinery/object.js';
import type { CallOptions, ConcreteKind, Connector, ExternalObservation } from '../../spi.js';
import { ensureShare, generatePassword, recycleShare, serverInfo, shareExists, withClient, type Share } from './admin.js';
import type { PostgresBinaries } from './binaries.js';
import { endpointDetails, formatPostgresConnection } from './connection.js';
import {
  defaultAppDatabase,
  defaultAppUser,
  localPostgreSQLInstanceKind,
  postgresqlInstanceClaim,
  postgresqlSecretKeys,
  type LocalPostgreSQLInstance,
} from './kinds.js';
import { superuserConfig, type InstanceState, type LocalServers } from './local-servers.js';
import { configureLocalInstance, localInstanceMatcher } from './matchers.js';
import { databaseNameProblem, roleNameProblem } from './names.js';
import { versionMismatch } from './version.js';
import { describeResource, resourceIdentity } from '../process/instance-names.js';
import { DedicatedInstanceClient, watchServerExits } from '../process/dedicated-instance.js';
import { kindNames } from '../../kind-definition.js';

const identity = (resource: KObject) => resourceIdentity('LocalPostgreSQLInstance', resource);
const describe = (resource: KObject) => describeResource('LocalPostgreSQLInstance', resource);

/** instanceShare is the application role and database of an instance. */
export function instanceShare(resource: LocalPostgreSQLInstance): Share {
  const { namespace, name } = identity(resource);
  return {
    role: resource.spec.masterUsername || defaultAppUser,
    database: resource.spec.databaseName || defaultAppDatabase,
    owner: `LocalPostgreSQLInstance ${namespace}/${name}`,
  };
}

/** A LocalInstanceClient manages the dedicated servers of one provider. */
export class LocalInstanceClient extends DedicatedInstanceClient<LocalPostgreSQLInstance, LocalServers> {
  constructor(
    servers: LocalServers,
    private readonly binaries: PostgresBinaries,
  ) {
    super(servers, 'LocalPostgreSQLInstance');
  }

  private validate(resource: LocalPostgreSQLInstance): void {
    const share = instanceShare(resource);
    const problem = roleNameProblem(share.role) ?? databaseNameProblem(share.database);
    if (problem) throw new Error(`${describe(resource)}: ${problem}`);
    const version = resource.spec.version;
    if (version) {
      const mismatch = versionMismatch(version, this.binaries.version, true);
      if (mismatch) {
        throw new Error(
          `${describe(resource)} asks for PostgreSQL "${version}" but the binaries in ${this.binaries.dir} are ${this.binaries.version}: ${mismatch}`,
        );
      }
    }
  }

  private details(resource: LocalPostgreSQLInstance, state: InstanceState, port: number) {
    const share = instanceShare(resource);
    return endpointDetails({ host: '127.0.0.1', port, username: share.role, password: state.appPassword, database: share.database });
  }

  async observe(resource: LocalPostgreSQLInstance, options?: CallOptions): Promise<ExternalObservation> {
    const dir = this.dir(resource);
    const status = await this.servers.status(dir);
    if (!status.provisioned || !status.initialized || !status.state) return { exists: false, upToDate: false };
    const atProvider = {
      running: status.running,
      port: status.port ?? status.state.port,
      ...(status.pid !== undefined ? { pid: status.pid } : {}),
      dataVersion: status.dataVersion ?? '',
      directory: dir,
      logFile: this.servers.logFile(dir),
    };
    if (!status.running || status.port === undefined) {
      return { exists: true, upToDate: false, atProvider, drift: 'the PostgreSQL server process is not running' };
    }
    const wantedPort = resource.spec.port;
    if (wantedPort !== undefined && wantedPort !== status.port) {
      return { exists: true, upToDate: false, atProvider, drift: `the server listens on port ${status.port}, spec.port is ${wantedPort}` };
    }
    const share = instanceShare(resource);
    let found: { version: string; role: boolean; database: boolean };
    try {
      found = await withClient(
        superuserConfig(status.state, status.port),
        async (c) => ({
          version: (await serverInfo(c)).version,
          ...(await shareExists(c, share)),
        }),
        options?.signal,
      );
    } catch (err) {
      if (options?.signal?.aborted) throw err; // the call was cancelled: no observation
      return { exists: true, upToDate: false, atProvider, drift: `cannot connect to the server: ${(err as Error).message}` };
    }
    const withVersion = { ...atProvider, version: found.version };
    if (!found.role || !found.database) {
      const missing = [!found.role && `role "${share.role}"`, !found.database && `database "${share.database}"`].filter(Boolean).join(' and ');
      return { exists: true, upToDate: false, atProvider: withVersion, drift: `${missing} missing` };
    }
    return { exists: true, upToDate: true, atProvider: withVersion, connectionDetails: this.details(resource, status.state, status.port) };
  }

  /** ensure makes the instance exist, run and hold the application role and database. */
  protected async ensure(resource: LocalPostgreSQLInstance, signal?: AbortSignal) {
    this.validate(resource);
    const dir = this.dir(resource);
    const { state, port } = await this.servers.ensureRunning(dir, { ...identity(resource), port: resource.spec.port }, signal);
    try {
      await withClient(superuserConfig(state, port), (c) => ensureShare(c, instanceShare(resource), state.appPassword), signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new Error(`cannot create the application role and database in ${describe(resource)}: ${(err as Error).message}`);
    }
    return { dir, details: this.details(resource, state, port) };
  }

  /**
   * scrub empties the application database and gives the role a new password (the claim
   * that used it must not reach the next claim's data). The new password is stored first,
   * so a repeated scrub after a crash ends the same way.
   */
  async scrub(resource: LocalPostgreSQLInstance, options?: CallOptions): Promise<void> {
    const signal = options?.signal;
    this.validate(resource);
    const dir = this.dir(resource);
    const { port } = await this.servers.ensureRunning(dir, { ...identity(resource), port: resource.spec.port }, signal);
    const state = await this.servers.updateState(dir, { appPassword: generatePassword() });
    const share = instanceShare(resource);
    await withClient(
      superuserConfig(state, port),
      async (c) => {
        // New password first, so the previous claim opens no new session; then end its sessions.
        await ensureShare(c, share, state.appPassword);
        await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [share.role]);
        await recycleShare(c, share);
      },
      signal,
    );
  }
}

/** localPostgreSQLInstanceConcreteKind builds the LocalPostgreSQLInstance kind around a supervisor. */
export function localPostgreSQLInstanceConcreteKind(
  servers: LocalServers | undefined,
  binaries: PostgresBinaries | undefined,
  unavailable?: string,
): ConcreteKind<LocalPostgreSQLInstance> {
  const connector: Connector<LocalPostgreSQLInstance> = {
    async connect() {
      if (!servers || !binaries) throw new Error(`LocalPostgreSQLInstance is unavailable on this machine: ${unavailable ?? 'no binaries'}`);
      return new LocalInstanceClient(servers, binaries);
    },
  };
  return {
    ...kindNames(localPostgreSQLInstanceKind),
    deterministicExternalNames: true,
    implements: [
      {
        claimKind: postgresqlInstanceClaim,
        connectionSecretKeys: postgresqlSecretKeys,
        match: localInstanceMatcher(binaries?.version),
        configure: configureLocalInstance,
        formatConnection: formatPostgresConnection,
      },
    ],
    connector,
    watch: watchServerExits(servers),
    ...(servers ? { logRoot: servers.root } : {}),
  };
}
