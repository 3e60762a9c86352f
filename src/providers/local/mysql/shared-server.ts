/**
 * MySQLServer: an existing MariaDB or MySQL server an admin registers, shared by many
 * claims. Conductor never creates or deletes the server; it checks it can administer it,
 * and gives each bound claim its own database and user (`'<id>'@'%'` with every privilege
 * on that database only; see names.ts for the names, admin.ts for the SQL).
 *
 * Drift: every observe checks the shares of the bound claims and reports a share missing its
 * database or user as broken (spi.ts `brokenShares`); the server itself stays Ready. The
 * claim controller repairs it through bindClaim, which recreates what is missing with the
 * password the claim's Secret already holds — so the Secret does not change, and a share
 * being dropped by a release is never recreated behind the release's back.
 */
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
import {
  adminProblem,
  canLogIn,
  dropShare,
  ensureShare,
  generatePassword,
  recycleShare,
  serverInfo,
  withConnection,
  type SqlConnection,
  type Share,
} from './admin.js';
import { endpointDetails, endpointFromDetails, formatMySqlConnection } from './connection.js';
import { mysqlInstanceClaim, mysqlSecretKeys, mysqlServerKind, type MySQLServer } from './kinds.js';
import { configureSharedServer, matchSharedServer } from './matchers.js';
import { legacyClaimIdentifier, recordedIdentifier } from './names.js';
import { readAdminCredentials } from '../process/admin-credentials.js';
import { releaseShare } from '../../rebind.js';
import { boundClaims } from '../bound-claims.js';
import { kindNames } from '../../kind-definition.js';

const defaultPort = 3306;

/**
 * sharedServerShare is the database and user a claim gets on a shared server: the name its
 * recorded details hold when an earlier version made them (names.ts recordedIdentifier), else
 * the current name.
 */
export function sharedServerShare(claim: ClaimRef, recorded?: ConnectionDetails): Share {
  const id = recordedIdentifier(claim.namespace, claim.name, recorded);
  return { user: id, database: id, host: '%' };
}

/** legacyShare is the share an earlier version made for the claim (checked by observe). */
function legacyShare(claim: ClaimRef): Share {
  const id = legacyClaimIdentifier(claim.namespace, claim.name);
  return { user: id, database: id, host: '%' };
}

function describe(resource: KObject): string {
  return `MySQLServer ${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
}

function claimRefOf(claim: KObject): ClaimRef {
  const { namespace, name, uid } = claim.metadata;
  if (!namespace || !name) throw new Error('claim lacks metadata.namespace or metadata.name: want both to name its database');
  return { namespace, name, uid };
}

interface ShareHealth {
  claim: ClaimRef;
  share: Share;
  user: boolean;
  database: boolean;
}

async function shareHealth(conn: SqlConnection, claims: ClaimRef[]): Promise<ShareHealth[]> {
  if (claims.length === 0) return [];
  // A claim bound by an earlier version has its share under the earlier name: whole there, it is whole.
  const shares = claims.map((claim) => ({ claim, share: sharedServerShare(claim), legacy: legacyShare(claim) }));
  const names = shares.flatMap((s) => [s.share.user, s.legacy.user]);
  const [users] = await conn.query("SELECT User AS name FROM mysql.user WHERE Host = '%' AND User IN (?)", [names]);
  const [databases] = await conn.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN (?)', [names]);
  const userSet = new Set((users as { name: string }[]).map((r) => String(r.name)));
  const databaseSet = new Set((databases as { name: string }[]).map((r) => String(r.name)));
  return shares.map(({ claim, share, legacy }) => {
    const current = { claim, share, user: userSet.has(share.user), database: databaseSet.has(share.database) };
    if (current.user && current.database) return current;
    return userSet.has(legacy.user) && databaseSet.has(legacy.database) ? { claim, share: legacy, user: true, database: true } : current;
  });
}

function brokenShares(shares: ShareHealth[]): BrokenShare[] {
  return shares
    .filter((h) => !h.user || !h.database)
    .map((h) => ({
      claim: h.claim,
      missing: [!h.database && `database ${h.share.database}`, !h.user && `user ${h.share.user}`].filter(Boolean).join(' and '),
    }));
}

/** A MySQLServerClient administers one registered server with its admin credentials. */
export class MySQLServerClient implements SharedExternalClient<MySQLServer> {
  constructor(private readonly admin: { username: string; password: string }) {}

  private endpoint(resource: MySQLServer): { host: string; port: number } {
    const { host, port } = resource.spec;
    if (!host) throw new Error(`${describe(resource)} has no spec.host: want the server's host name or address`);
    return { host, port: port ?? defaultPort };
  }

  /**
   * asAdmin runs `fn` on an admin connection; an abort of `signal` ends the session, closes
   * the connection and rejects with the signal's reason as it is (no context added).
   */
  private async asAdmin<T>(resource: MySQLServer, what: string, fn: (conn: SqlConnection) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const { host, port } = this.endpoint(resource);
    try {
      return await withConnection({ host, port, user: this.admin.username, password: this.admin.password }, fn, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new Error(`cannot ${what} on ${describe(resource)} (${host}:${port}) as "${this.admin.username}": ${(err as Error).message}`);
    }
  }

  private async inspect(resource: MySQLServer, signal?: AbortSignal) {
    return this.asAdmin(
      resource,
      'connect',
      async (c) => {
        const info = await serverInfo(c);
        const problem = adminProblem(info);
        if (problem) throw new Error(`it cannot host claims: ${problem}`);
        return { info, shares: await shareHealth(c, boundClaims(resource)) };
      },
      signal,
    );
  }

  /** observe connects as the admin, checks its privileges and the bound claims' shares. */
  async observe(resource: MySQLServer, options?: CallOptions): Promise<ExternalObservation> {
    const { info, shares } = await this.inspect(resource, options?.signal);
    const { host, port } = this.endpoint(resource);
    const atProvider = { version: info.versionText, adminUser: info.user, claims: shares.length };
    return { exists: true, upToDate: true, atProvider, connectionDetails: { host, port: String(port) }, brokenShares: brokenShares(shares) };
  }

  /** create only verifies: a registered server already exists. */
  async create(resource: MySQLServer, options?: CallOptions): Promise<ExternalCreation> {
    await this.inspect(resource, options?.signal);
    const { host, port } = this.endpoint(resource);
    return { externalName: `${host}:${port}` };
  }

  /** update only verifies: claims' shares are repaired by bindClaim (see the file comment). */
  async update(resource: MySQLServer, options?: CallOptions): Promise<ExternalUpdate> {
    await this.inspect(resource, options?.signal);
    return {};
  }

  /** delete forgets the server; the server and the claims' databases on it stay. */
  async delete(): Promise<void> {}

  /**
   * bindClaim makes the claim's database and user exist. With the details it was given
   * before (same server, same names), the claim keeps its password: a user dropped by hand
   * is recreated with it, a password changed by hand is set back. Otherwise a new one.
   */
  async bindClaim(resource: MySQLServer, claim: KObject, previous?: ConnectionDetails, options?: CallOptions): Promise<ConnectionDetails> {
    const signal = options?.signal;
    const ref = claimRefOf(claim);
    const share = sharedServerShare(ref, previous);
    const { host, port } = this.endpoint(resource);
    const wanted = (password: string) => endpointDetails({ host, port, username: share.user, password, database: share.database });
    const whose = `claim ${ref.namespace}/${ref.name}`;
    const earlier = previous ? endpointFromDetails(previous) : undefined;
    if (earlier && earlier.host === host && earlier.port === port && earlier.username === share.user && earlier.database === share.database) {
      // Logging in without naming the database: a dropped database alone needs no password change.
      const works = await canLogIn({ host, port, user: earlier.username, password: earlier.password }, signal);
      await this.asAdmin(resource, `check the database of ${whose}`, (c) => ensureShare(c, share, works ? undefined : earlier.password), signal);
      return wanted(earlier.password);
    }
    const password = generatePassword();
    await this.asAdmin(resource, `create the database of ${whose}`, (c) => ensureShare(c, share, password), signal);
    return wanted(password);
  }

  async unbindClaim(resource: MySQLServer, claim: ClaimRef, policy: RebindPolicy, recorded?: ConnectionDetails, options?: CallOptions): Promise<void> {
    const share = sharedServerShare(claim, recorded);
    const whose = `claim ${claim.namespace}/${claim.name}`;
    const signal = options?.signal;
    await releaseShare(policy, {
      recycle: () => this.asAdmin(resource, `empty the database of ${whose}`, (c) => recycleShare(c, share), signal),
      delete: () => this.asAdmin(resource, `drop the database and user of ${whose}`, (c) => dropShare(c, share), signal),
    });
  }
}

/** The connector reads the admin credentials the controller took from the referenced Secret. */
export const mysqlServerConnector: Connector<MySQLServer> = {
  async connect(resource: MySQLServer, context: ConnectContext): Promise<MySQLServerClient> {
    const { username, password } = readAdminCredentials(describe(resource), resource.spec.adminCredentialsSecretRef, context, {
      usernameRequired: true,
      emptyPasswordAllowed: true,
    });
    return new MySQLServerClient({ username: username!, password });
  },
};

/** The MySQLServer kind: shared, registered, one database and user per claim. */
export const mysqlServerConcreteKind: ConcreteKind<MySQLServer> = {
  ...kindNames(mysqlServerKind),
  deterministicExternalNames: true,
  implements: [
    {
      claimKind: mysqlInstanceClaim,
      connectionSecretKeys: mysqlSecretKeys,
      match: matchSharedServer,
      configure: configureSharedServer,
      formatConnection: formatMySqlConnection,
    },
  ],
  credentialsSecretRef(resource: MySQLServer): SecretRef | undefined {
    const name = resource.spec.adminCredentialsSecretRef?.name;
    const namespace = resource.metadata.namespace;
    return name && namespace ? { namespace, name } : undefined;
  },
  connector: mysqlServerConnector,
};
