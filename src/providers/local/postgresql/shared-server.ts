/**
 * PostgreSQLServer: an existing server an admin registers, shared by many claims. Conductor
 * never creates or deletes the server; it checks it can administer it, and gives each bound
 * claim its own database and login role (see names.ts for their names, admin.ts for the SQL).
 *
 * Drift: every observe checks the shares of the bound claims and reports a share missing its
 * database or role as broken (spi.ts `brokenShares`); the server itself stays Ready. The
 * claim controller repairs it through bindClaim, which recreates what is missing with the
 * password the claim's Secret already holds — so the Secret does not change, and a share
 * being dropped by a release is never recreated behind the release's back.
 */
import type pg from 'pg';
import type { KObject } from '../../../machinery/object.js';
import type {
  BrokenShare,
  CallOptions,
  ClaimRef,
  ConcreteKind,
  ConnectContext,
  ConnectionDetails,
  Connector,
  ExternalCreation,
  ExternalObservation,
  ExternalUpdate,
  RebindPolicy,
  SecretRef,
  SharedExternalClient,
} from '../../spi.js';
import { adminProblem, canLogIn, dropShare, ensureShare, generatePassword, recycleShare, serverInfo, sharesPresent, withClient, type Share } from './admin.js';
import { endpointDetails, endpointFromDetails, formatPostgresConnection, type PostgresEndpoint } from './connection.js';
import { postgresqlInstanceClaim, postgresqlSecretKeys, postgresqlServerKind, type PostgreSQLServer, type SslMode } from './kinds.js';
import { configureSharedServer, matchSharedServer } from './matchers.js';
import { legacyClaimIdentifier, recordedIdentifier } from './names.js';
import { readAdminCredentials } from '../process/admin-credentials.js';
import { releaseShare } from '../../rebind.js';
import { boundClaims } from '../bound-claims.js';
import { kindNames } from '../../kind-definition.js';

const defaultPort = 5432;

/**
 * sharedServerShare is the database and role a claim gets on a shared server: the name its
 * recorded details hold when an earlier version made them (names.ts recordedIdentifier), else
 * the current name.
 */
export function sharedServerShare(claim: ClaimRef, recorded?: ConnectionDetails): Share {
  const id = recordedIdentifier(claim.namespace, claim.name, recorded);
  return { role: id, database: id, owner: `claim ${claim.namespace}/${claim.name}` };
}

/** legacyShare is the share an earlier version made for the claim (checked by observe). */
function legacyShare(claim: ClaimRef): Share {
  const id = legacyClaimIdentifier(claim.namespace, claim.name);
  return { role: id, database: id, owner: `claim ${claim.namespace}/${claim.name}` };
}

function sslOption(mode: SslMode | undefined): pg.ClientConfig['ssl'] {
  switch (mode) {
    case undefined:
    case 'disable':
    case 'allow':
    case 'prefer': // node-postgres cannot fall back between plain and TLS: these mean plain here
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
    case 'verify-full':
      return { rejectUnauthorized: true };
    default: {
      const unknown: never = mode;
      throw new Error(`sslMode "${String(unknown)}" is not supported: want disable, allow, prefer, require, verify-ca or verify-full`);
    }
  }
}

function describe(resource: KObject): string {
  return `PostgreSQLServer ${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
}

function claimRefOf(claim: KObject): ClaimRef {
  const { namespace, name, uid } = claim.metadata;
  if (!namespace || !name) throw new Error(`claim lacks metadata.namespace or metadata.name: want both to name its database`);
  return { namespace, name, uid };
}

interface ShareHealth {
  claim: ClaimRef;
  share: Share;
  role: boolean;
  database: boolean;
}

function brokenShares(shares: ShareHealth[]): BrokenShare[] {
  return shares
    .filter((h) => !h.role || !h.database)
    .map((h) => ({
      claim: h.claim,
      missing: [!h.database && `database ${h.share.database}`, !h.role && `role ${h.share.role}`].filter(Boolean).join(' and '),
    }));
}

/** A SharedServerClient administers one registered server with its admin credentials. */
export class SharedServerClient implements SharedExternalClient<PostgreSQLServer> {
  constructor(private readonly admin: { username: string; password: string }) {}

  private endpoint(resource: PostgreSQLServer): { host: string; port: number; sslMode?: SslMode } {
    const { host, port, sslMode } = resource.spec;
    if (!host) throw new Error(`${describe(resource)} has no spec.host: want the server's host name or address`);
    return { host, port: port ?? defaultPort, sslMode };
  }

  private adminConfig(resource: PostgreSQLServer): pg.ClientConfig {
    const { host, port, sslMode } = this.endpoint(resource);
    return {
      host,
      port,
      user: this.admin.username,
      password: this.admin.password,
      database: 'postgres',
      ssl: sslOption(sslMode),
    };
  }

  /**
   * asAdmin runs `fn` on an admin connection; an abort of `signal` cancels the query, closes
   * the connection and rejects with the signal's reason as it is (no context added).
   */
  private async asAdmin<T>(resource: PostgreSQLServer, what: string, fn: (client: pg.Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const { host, port } = this.endpoint(resource);
    try {
      return await withClient(this.adminConfig(resource), fn, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new Error(`cannot ${what} on ${describe(resource)} (${host}:${port}) as "${this.admin.username}": ${(err as Error).message}`);
    }
  }

  /**
   * The bound claims' shares, each with what of it is missing. A claim bound by an earlier
   * version has its share under the earlier name: whole there, it is whole.
   */
  private async shareHealth(resource: PostgreSQLServer, c: pg.Client): Promise<ShareHealth[]> {
    const claims = boundClaims(resource);
    const shares = claims.map((claim) => sharedServerShare(claim));
    const legacy = claims.map((claim) => legacyShare(claim));
    const present = await sharesPresent(c, [...shares, ...legacy]);
    return claims.map((claim, i) => {
      const current = { claim, share: shares[i], ...present[i] };
      const old = present[claims.length + i];
      if ((current.role && current.database) || !(old.role && old.database)) return current;
      return { claim, share: legacy[i], ...old };
    });
  }

  private async inspect(resource: PostgreSQLServer, signal?: AbortSignal) {
    return this.asAdmin(
      resource,
      'connect',
      async (c) => {
        const info = await serverInfo(c);
        const problem = adminProblem(info);
        if (problem) throw new Error(`it cannot host claims: ${problem}`);
        return { info, shares: await this.shareHealth(resource, c) };
      },
      signal,
    );
  }

  /** observe connects as the admin, checks it may create roles and databases, and checks the bound claims' shares. */
  async observe(resource: PostgreSQLServer, options?: CallOptions): Promise<ExternalObservation> {
    const { info, shares } = await this.inspect(resource, options?.signal);
    const { host, port } = this.endpoint(resource);
    const atProvider = { version: info.version, adminUser: info.user, superuser: info.superuser, claims: shares.length };
    return { exists: true, upToDate: true, atProvider, connectionDetails: { host, port: String(port) }, brokenShares: brokenShares(shares) };
  }

  /** create only verifies: a registered server already exists. */
  async create(resource: PostgreSQLServer, options?: CallOptions): Promise<ExternalCreation> {
    await this.inspect(resource, options?.signal);
    const { host, port } = this.endpoint(resource);
    return { externalName: `${host}:${port}` };
  }

  /** update only verifies: claims' shares are repaired by bindClaim (see the file comment). */
  async update(resource: PostgreSQLServer, options?: CallOptions): Promise<ExternalUpdate> {
    await this.inspect(resource, options?.signal);
    return {};
  }

  /** delete forgets the server; the server and the claims' databases on it stay. */
  async delete(): Promise<void> {}

  /**
   * bindClaim makes the claim's database and role exist. With the details it was given
   * before (same server, same names), the claim keeps its password: a role dropped by hand
   * is recreated with it, a password changed by hand is set back. Otherwise a new one.
   */
  async bindClaim(resource: PostgreSQLServer, claim: KObject, previous?: ConnectionDetails, options?: CallOptions): Promise<ConnectionDetails> {
    const signal = options?.signal;
    const share = sharedServerShare(claimRefOf(claim), previous);
    const { host, port, sslMode } = this.endpoint(resource);
    const wanted = (password: string): PostgresEndpoint => ({ host, port, username: share.role, password, database: share.database, sslMode });
    const earlier = previous ? endpointFromDetails(previous) : undefined;
    if (earlier && earlier.host === host && earlier.port === port && earlier.username === share.role && earlier.database === share.database) {
      // (A dropped database also refuses the login: the password is then set again, unchanged.)
      const works = await canLogIn(
        { host, port, user: earlier.username, password: earlier.password, database: earlier.database, ssl: sslOption(sslMode) },
        signal,
      );
      await this.asAdmin(resource, `check the database of ${share.owner}`, (c) => ensureShare(c, share, works ? undefined : earlier.password), signal);
      return endpointDetails(wanted(earlier.password));
    }
    const password = generatePassword();
    await this.asAdmin(resource, `create the database of ${share.owner}`, (c) => ensureShare(c, share, password), signal);
    return endpointDetails(wanted(password));
  }

  async unbindClaim(resource: PostgreSQLServer, claim: ClaimRef, policy: RebindPolicy, recorded?: ConnectionDetails, options?: CallOptions): Promise<void> {
    const share = sharedServerShare(claim, recorded);
    const signal = options?.signal;
    await releaseShare(policy, {
      recycle: () => this.asAdmin(resource, `empty the database of ${share.owner}`, (c) => recycleShare(c, share), signal),
      delete: () => this.asAdmin(resource, `drop the database and role of ${share.owner}`, (c) => dropShare(c, share), signal),
    });
  }
}

/** The connector reads the admin credentials the controller took from the referenced Secret. */
export const sharedServerConnector: Connector<PostgreSQLServer> = {
  async connect(resource: PostgreSQLServer, context: ConnectContext): Promise<SharedServerClient> {
    const { username, password } = readAdminCredentials(describe(resource), resource.spec.adminCredentialsSecretRef, context, {
      usernameRequired: true,
      emptyPasswordAllowed: false,
    });
    return new SharedServerClient({ username: username!, password });
  },
};

/** The PostgreSQLServer kind: shared, registered, one database and role per claim. */
export const postgresqlServerConcreteKind: ConcreteKind<PostgreSQLServer> = {
  ...kindNames(postgresqlServerKind),
  deterministicExternalNames: true,
  implements: [
    {
      claimKind: postgresqlInstanceClaim,
      connectionSecretKeys: postgresqlSecretKeys,
      match: matchSharedServer,
      configure: configureSharedServer,
      formatConnection: formatPostgresConnection,
    },
  ],
  credentialsSecretRef(resource: PostgreSQLServer): SecretRef | undefined {
    const name = resource.spec.adminCredentialsSecretRef?.name;
    const namespace = resource.metadata.namespace;
    return name && namespace ? { namespace, name } : undefined;
  },
  connector: sharedServerConnector,
};
