/**
 * NATSServer: a nats-server process Conductor runs for the resource (Shared, Managed). Each
 * bound claim gets an account of its own with one user, allowed to publish and subscribe
 * only under the claim's subject prefix (its `queue`). Core NATS only: messages reach the
 * subscribers connected at the time, nothing is stored (no JetStream).
 *
 * Release policies act on the claim's account: Delete removes it (its user is disconnected
 * and can no longer log in); Recycle keeps the account but gives its user a new password
 * nobody holds, so the old credentials stop working; Retain keeps it as it is.
 */
import { basename } from 'node:path';
import type { KObject } from '../../../machinery/object.js';
import type {
  CallOptions,
  ClaimRef,
  ConcreteKind,
  ConnectionDetails,
  Connector,
  DiscoveredResource,
  ExternalCreation,
  ExternalObservation,
  ExternalUpdate,
  RebindPolicy,
  SharedExternalClient,
} from '../../spi.js';
import { claimIdentifier, legacyClaimIdentifier } from '../postgresql/names.js';
import type { NatsBinary } from './binaries.js';
import type { NatsServerState, NatsSettings } from './config.js';
import { formatNatsConnection, natsEndpoint } from './connection.js';
import { messageQueueClaim, natsSecretKeys, natsServerKind, type NATSServer } from './kinds.js';
import { configureNatsServer, natsMatcher } from './matchers.js';
import type { NatsServers } from './nats-servers.js';
import { resourceIdentity } from '../process/instance-names.js';
import { discoverServers, watchServerExits } from '../process/dedicated-instance.js';
import { releaseShare } from '../../rebind.js';
import { kindNames } from '../../kind-definition.js';

const identity = (resource: KObject) => resourceIdentity('NATSServer', resource, 'its files');

function settingsOf(resource: NATSServer): NatsSettings {
  return { maxPayload: resource.spec.maxPayload };
}

/** A NatsShare is a claim's account, user and subject prefix. */
export interface NatsShare {
  account: string;
  username: string;
  subject: string;
}

/**
 * natsShare names a claim's account and user (`<namespace>_<name>_<16 hex>`,
 * postgresql/names.ts claimIdentifier) and its subject prefix (the same). When `state` holds
 * an account an earlier version made for this very claim (under the earlier 8-hex name, and
 * recorded as this claim's), the claim keeps that account.
 */
export function natsShare(claim: { namespace: string; name: string }, state?: NatsServerState): NatsShare {
  const legacy = legacyClaimIdentifier(claim.namespace, claim.name);
  const recorded = state?.accounts[legacy];
  if (recorded && recorded.claim.namespace === claim.namespace && recorded.claim.name === claim.name) {
    return { account: legacy, username: recorded.username, subject: recorded.subject };
  }
  const id = claimIdentifier(claim.namespace, claim.name);
  return { account: id, username: id, subject: id };
}

/** A NatsServerClient manages NATSServer processes and their claim accounts. */
export class NatsServerClient implements SharedExternalClient<NATSServer> {
  constructor(
    private readonly servers: NatsServers,
    private readonly binary: NatsBinary,
  ) {}

  private dir(resource: NATSServer): string {
    const { namespace, name } = identity(resource);
    return this.servers.dirFor(namespace, name);
  }

  private target(resource: NATSServer) {
    return { ...identity(resource), port: resource.spec.port };
  }

  async observe(resource: NATSServer): Promise<ExternalObservation> {
    const dir = this.dir(resource);
    const status = await this.servers.status(dir, settingsOf(resource));
    if (!status.provisioned || !status.state) return { exists: false, upToDate: false };
    const state = status.state;
    const atProvider = {
      running: status.running,
      port: state.port,
      version: this.binary.version,
      accounts: Object.keys(state.accounts).length,
      ...(status.pid !== undefined ? { pid: status.pid } : {}),
      directory: dir,
      logFile: this.servers.logFile(dir),
    };
    if (!status.running) return { exists: true, upToDate: false, atProvider, drift: 'the nats-server process is not running' };
    if (resource.spec.port !== undefined && resource.spec.port !== state.port) {
      return { exists: true, upToDate: false, atProvider, drift: `the server listens on port ${state.port}, spec.port is ${resource.spec.port}` };
    }
    if (!status.configCurrent) return { exists: true, upToDate: false, atProvider, drift: 'nats.conf differs from the accounts Conductor keeps' };
    return { exists: true, upToDate: true, atProvider, connectionDetails: { endpoint: natsEndpoint('127.0.0.1', state.port) } };
  }

  async create(resource: NATSServer, options?: CallOptions): Promise<ExternalCreation> {
    const { state } = await this.servers.ensureRunning(this.dir(resource), this.target(resource), settingsOf(resource), options?.signal);
    return { externalName: basename(this.dir(resource)), connectionDetails: { endpoint: natsEndpoint('127.0.0.1', state.port) } };
  }

  async update(resource: NATSServer, options?: CallOptions): Promise<ExternalUpdate> {
    const { state } = await this.servers.ensureRunning(this.dir(resource), this.target(resource), settingsOf(resource), options?.signal);
    return { connectionDetails: { endpoint: natsEndpoint('127.0.0.1', state.port) } };
  }

  async delete(resource: NATSServer): Promise<void> {
    await this.servers.remove(this.dir(resource));
  }

  /**
   * bindClaim makes the claim's account exist. The stored password is kept; when the
   * account is missing (the server's files were lost) the password the claim already has
   * is restored, so its applications keep working.
   */
  async bindClaim(resource: NATSServer, claim: KObject, previous?: ConnectionDetails): Promise<ConnectionDetails> {
    const { namespace, name, uid } = claim.metadata;
    if (!namespace || !name) throw new Error('claim lacks metadata.namespace or metadata.name: want both to name its NATS account');
    const dir = this.dir(resource);
    const state = await this.servers.readState(dir);
    const share = natsShare({ namespace, name }, state);
    const restore = !state?.accounts[share.account] && previous?.username === share.username && previous.password ? previous.password : undefined;
    const { account, port } = await this.servers.ensureAccount(dir, this.target(resource), settingsOf(resource), share.account, {
      claim: { namespace, name, ...(uid ? { uid } : {}) },
      username: share.username,
      subject: share.subject,
      ...(restore ? { password: restore } : {}),
    });
    return { endpoint: natsEndpoint('127.0.0.1', port), queue: account.subject, username: account.username, password: account.password };
  }

  async unbindClaim(resource: NATSServer, claim: ClaimRef, policy: RebindPolicy): Promise<void> {
    const dir = this.dir(resource);
    const share = natsShare(claim, await this.servers.readState(dir));
    await releaseShare(policy, {
      recycle: () => this.servers.rotateAccount(dir, this.target(resource), settingsOf(resource), share.account),
      delete: () => this.servers.removeAccount(dir, this.target(resource), settingsOf(resource), share.account),
    });
  }

  /** discover lists the NATS server directories on this machine. */
  async discover(): Promise<DiscoveredResource[]> {
    return discoverServers(this.servers, (dir, state) => ({ directory: dir, accounts: Object.keys(state.accounts).length }));
  }
}

/** natsServerConcreteKind builds the NATSServer kind around a supervisor. */
export function natsServerConcreteKind(servers: NatsServers | undefined, binary: NatsBinary | undefined, unavailable?: string): ConcreteKind<NATSServer> {
  const connector: Connector<NATSServer> = {
    async connect() {
      if (!servers || !binary) throw new Error(`NATSServer is unavailable on this machine: ${unavailable ?? 'no nats-server'}`);
      return new NatsServerClient(servers, binary);
    },
  };
  return {
    ...kindNames(natsServerKind),
    deterministicExternalNames: true,
    implements: [
      {
        claimKind: messageQueueClaim,
        connectionSecretKeys: natsSecretKeys,
        match: natsMatcher(binary?.version),
        configure: configureNatsServer,
        formatConnection: formatNatsConnection,
      },
    ],
    connector,
    watch: watchServerExits(servers),
    ...(servers ? { logRoot: servers.root } : {}),
  };
}
