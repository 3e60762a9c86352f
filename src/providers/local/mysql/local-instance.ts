/**
 * LocalMySQLInstance: a dedicated MariaDB server process on this machine for one claim.
 * create/update make it exist and run (mariadb-install-db, start, the application user and
 * database); observe reports a stopped server or a missing user or database as drift so the
 * reconciler repairs it; delete stops it and removes its directory; scrub empties its
 * database and rotates the application password so the next claim gets a clean instance.
 */
import type { KObject } from '../../../machinery/object.js';
import type { CallOptions, ConcreteKind, Connector, ExternalObservation } from '../../spi.js';
import { endSessions, ensureShare, generatePassword, recycleShare, serverInfo, shareExists, withConnection, type Share } from './admin.js';
import type { MariaDbBinaries } from './binaries.js';
import { endpointDetails, formatMySqlConnection } from './connection.js';
import { defaultAppDatabase, defaultAppUser, localMySQLInstanceKind, mysqlInstanceClaim, mysqlSecretKeys, type LocalMySQLInstance } from './kinds.js';
import { adminConfig, type MariaDbInstanceState, type MariaDbServers } from './local-servers.js';
import { configureLocalInstance, localInstanceMatcher } from './matchers.js';
import { databaseNameProblem, userNameProblem } from './names.js';
import { versionMismatch } from './version.js';
import { describeResource, resourceIdentity } from '../process/instance-names.js';
import { DedicatedInstanceClient, watchServerExits } from '../process/dedicated-instance.js';
import { kindNames } from '../../kind-definition.js';

const identity = (resource: KObject) => resourceIdentity('LocalMySQLInstance', resource);
const describe = (resource: KObject) => describeResource('LocalMySQLInstance', resource);

/** instanceShare is the application user and database of an instance. */
export function instanceShare(resource: LocalMySQLInstance): Share {
  return { user: resource.spec.masterUsername || defaultAppUser, database: resource.spec.databaseName || defaultAppDatabase, host: '%' };
}

/** A LocalMySQLInstanceClient manages the dedicated MariaDB servers of one provider. */
export class LocalMySQLInstanceClient extends DedicatedInstanceClient<LocalMySQLInstance, MariaDbServers> {
  constructor(
    servers: MariaDbServers,
    private readonly binaries: MariaDbBinaries,
  ) {
    super(servers, 'LocalMySQLInstance');
  }

  private validate(resource: LocalMySQLInstance): void {
    const share = instanceShare(resource);
    const problem = userNameProblem(share.user) ?? databaseNameProblem(share.database);
    if (problem) throw new Error(`${describe(resource)}: ${problem}`);
    const version = resource.spec.version;
    if (version) {
      const mismatch = versionMismatch(version, this.binaries.version, true);
      if (mismatch) throw new Error(`${describe(resource)} asks for version "${version}" but ${this.binaries.server} is ${this.binaries.version}: ${mismatch}`);
    }
  }

  private details(resource: LocalMySQLInstance, state: MariaDbInstanceState, port: number) {
    const share = instanceShare(resource);
    return endpointDetails({ host: '127.0.0.1', port, username: share.user, password: state.appPassword, database: share.database });
  }

  async observe(resource: LocalMySQLInstance, options?: CallOptions): Promise<ExternalObservation> {
    const dir = this.dir(resource);
    const status = await this.servers.status(dir);
    if (!status.provisioned || !status.initialized || !status.state) return { exists: false, upToDate: false };
    const atProvider = {
      running: status.running,
      port: status.port ?? status.state.port,
      ...(status.pid !== undefined ? { pid: status.pid } : {}),
      directory: dir,
      logFile: this.servers.logFile(dir),
    };
    if (!status.running || status.port === undefined) return { exists: true, upToDate: false, atProvider, drift: 'the MariaDB server process is not running' };
    const wantedPort = resource.spec.port;
    if (wantedPort !== undefined && wantedPort !== status.port) {
      return { exists: true, upToDate: false, atProvider, drift: `the server listens on port ${status.port}, spec.port is ${wantedPort}` };
    }
    const share = instanceShare(resource);
    let found: { version: string; user: boolean; database: boolean };
    try {
      found = await withConnection(
        adminConfig(status.state, status.port),
        async (c) => ({
          version: (await serverInfo(c)).versionText,
          ...(await shareExists(c, share)),
        }),
        options?.signal,
      );
    } catch (err) {
      if (options?.signal?.aborted) throw err; // the call was cancelled: no observation
      return { exists: true, upToDate: false, atProvider, drift: `cannot connect to the server as its administrator: ${(err as Error).message}` };
    }
    const withVersion = { ...atProvider, version: found.version };
    if (!found.user || !found.database) {
      const missing = [!found.user && `user "${share.user}"`, !found.database && `database "${share.database}"`].filter(Boolean).join(' and ');
      return { exists: true, upToDate: false, atProvider: withVersion, drift: `${missing} missing` };
    }
    return { exists: true, upToDate: true, atProvider: withVersion, connectionDetails: this.details(resource, status.state, status.port) };
  }

  /** ensure makes the instance exist, run and hold the application user and database. */
  protected async ensure(resource: LocalMySQLInstance, signal?: AbortSignal) {
    this.validate(resource);
    const dir = this.dir(resource);
    const { state, port } = await this.servers.ensureRunning(dir, { ...identity(resource), port: resource.spec.port }, signal);
    try {
      await withConnection(adminConfig(state, port), (c) => ensureShare(c, instanceShare(resource), state.appPassword), signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new Error(`cannot create the application user and database in ${describe(resource)}: ${(err as Error).message}`);
    }
    return { dir, details: this.details(resource, state, port) };
  }

  /**
   * scrub empties the application database and gives the user a new password (the claim
   * that used it must not reach the next claim's data). The new password is stored first,
   * so a repeated scrub after a crash ends the same way.
   */
  async scrub(resource: LocalMySQLInstance, options?: CallOptions): Promise<void> {
    const signal = options?.signal;
    this.validate(resource);
    const dir = this.dir(resource);
    const { port } = await this.servers.ensureRunning(dir, { ...identity(resource), port: resource.spec.port }, signal);
    const state = await this.servers.updateState(dir, { appPassword: generatePassword() });
    const share = instanceShare(resource);
    await withConnection(
      adminConfig(state, port),
      async (c) => {
        // New password first, so the previous claim opens no new session; then end its sessions.
        await ensureShare(c, share, state.appPassword);
        await endSessions(c, share.user);
        await recycleShare(c, share);
      },
      signal,
    );
  }
}

/** localMySQLInstanceConcreteKind builds the LocalMySQLInstance kind around a supervisor. */
export function localMySQLInstanceConcreteKind(
  servers: MariaDbServers | undefined,
  binaries: MariaDbBinaries | undefined,
  unavailable?: string,
): ConcreteKind<LocalMySQLInstance> {
  const connector: Connector<LocalMySQLInstance> = {
    async connect() {
      if (!servers || !binaries) throw new Error(`LocalMySQLInstance is unavailable on this machine: ${unavailable ?? 'no MariaDB binaries'}`);
      return new LocalMySQLInstanceClient(servers, binaries);
    },
  };
  return {
    ...kindNames(localMySQLInstanceKind),
    deterministicExternalNames: true,
    implements: [
      {
        claimKind: mysqlInstanceClaim,
        connectionSecretKeys: mysqlSecretKeys,
        match: localInstanceMatcher(binaries?.version),
        configure: configureLocalInstance,
        formatConnection: formatMySqlConnection,
      },
    ],
    connector,
    watch: watchServerExits(servers),
    ...(servers ? { logRoot: servers.root } : {}),
  };
}
