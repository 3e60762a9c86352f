/**
 * RedisServer: an existing Redis server (6 or later, for ACLs) an admin registers, shared by
 * many claims. Conductor never starts or stops it; it checks it can administer it, and gives
 * each bound claim an ACL user of its own that may only touch keys and channels under the
 * claim's prefix. A new claim's password is derived from the admin password and the claim's
 * identity. Drift: observe reports a bound claim whose user is gone as a broken share
 * (spi.ts `brokenShares`); the claim controller recreates it through bindClaim, with the
 * password the claim's Secret holds, so a user being removed by a release is never
 * recreated behind the release's back.
 */
import type { KObject } from '../../../machinery/object.js';
import type {
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
import { claimIdentifier, legacyClaimIdentifier } from '../postgresql/names.js';
import {
  aclUsers,
  deleteAclUser,
  deleteKeysByPrefix,
  derivePassword,
  ensureAclUser,
  hasOutdatedRules,
  serverInfo,
  withRedis,
  type RedisCommands,
} from './admin.js';
import { formatRedisConnection, redisEndpointDetails, redisEndpointFromDetails } from './connection.js';
import { redisClusterClaim, redisSecretKeys, redisServerKind, type RedisServer } from './kinds.js';
import { kindNames } from '../../kind-definition.js';
import { configureRedisServer, matchRedisServer } from './matchers.js';
import { readAdminCredentials } from '../process/admin-credentials.js';
import { releaseShare } from '../../rebind.js';
import { boundClaims } from '../bound-claims.js';

const defaultPort = 6379;

/** A RedisShare is a claim's ACL user and key prefix on a shared server. */
export interface RedisShare {
  username: string;
  keyPrefix: string;
  owner: string;
}

/**
 * redisShare names a claim's user (`<namespace>_<name>_<16 hex>`, postgresql/names.ts
 * claimIdentifier) and prefix (the same, then `:`). A claim whose recorded details (its
 * binding Secret, which only Conductor writes) hold the user and prefix an earlier version
 * derived for this very claim keeps them (legacyRedisShare).
 */
export function redisShare(claim: { namespace: string; name: string }, recorded?: ConnectionDetails): RedisShare {
  const legacy = legacyRedisShare(claim);
  if (recorded && recorded.username === legacy.username && recorded.keyPrefix === legacy.keyPrefix) return legacy;
  const id = claimIdentifier(claim.namespace, claim.name);
  return { username: id, keyPrefix: `${id}:`, owner: `claim ${claim.namespace}/${claim.name}` };
}

/** legacyRedisShare is the user and prefix earlier versions gave the claim (an 8-hex hash). */
export function legacyRedisShare(claim: { namespace: string; name: string }): RedisShare {
  const id = legacyClaimIdentifier(claim.namespace, claim.name);
  return { username: id, keyPrefix: `${id}:`, owner: `claim ${claim.namespace}/${claim.name}` };
}

function describe(resource: KObject): string {
  return `RedisServer ${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
}

function claimRefOf(claim: KObject): ClaimRef {
  const { namespace, name, uid } = claim.metadata;
  if (!namespace || !name) throw new Error('claim lacks metadata.namespace or metadata.name: want both to name its Redis user');
  return { namespace, name, uid };
}

/** A RedisServerClient administers one registered server with its admin credentials. */
export class RedisServerClient implements SharedExternalClient<RedisServer> {
  constructor(private readonly admin: { username?: string; password: string }) {}

  private endpoint(resource: RedisServer): { host: string; port: number } {
    const { host, port } = resource.spec;
    if (!host) throw new Error(`${describe(resource)} has no spec.host: want the server's host name or address`);
    return { host, port: port ?? defaultPort };
  }

  /**
   * asAdmin runs `fn` on an admin connection; an abort of `signal` destroys the connection and
   * rejects with the signal's reason as it is (no context added).
   */
  private async asAdmin<T>(resource: RedisServer, what: string, fn: (redis: RedisCommands) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const { host, port } = this.endpoint(resource);
    try {
      return await withRedis({ host, port, username: this.admin.username, password: this.admin.password }, fn, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new Error(`cannot ${what} on ${describe(resource)} (${host}:${port}) as "${this.admin.username ?? 'default'}": ${(err as Error).message}`);
    }
  }

  /** The password a claim gets unless it already has a working one. */
  private passwordFor(resource: RedisServer, claim: ClaimRef): string {
    return derivePassword(this.admin.password, `${resource.metadata.uid ?? ''}/${claim.namespace}/${claim.name}/${claim.uid ?? ''}`);
  }

  /**
   * brokenUsers returns the bound claims whose ACL user is gone, or still has rules an earlier
   * Conductor gave (commands that reach other claims' keys); bindClaim repairs both.
   */
  private async brokenUsers(resource: RedisServer, redis: RedisCommands, version: string): Promise<{ claim: ClaimRef; missing: string }[]> {
    const claims = boundClaims(resource);
    if (claims.length === 0) return [];
    const users = new Set(await aclUsers(redis));
    const broken: { claim: ClaimRef; missing: string }[] = [];
    for (const claim of claims) {
      // A claim bound by an earlier version has its user under the earlier name.
      const current = redisShare(claim).username;
      const earlier = legacyRedisShare(claim).username;
      const username = !users.has(current) && users.has(earlier) ? earlier : current;
      if (!users.has(username)) broken.push({ claim, missing: `ACL user ${username}` });
      else if (await hasOutdatedRules(redis, username, version))
        broken.push({ claim, missing: `the current ACL rules of user ${username} (it may run commands that reach other claims' keys)` });
    }
    return broken;
  }

  /** observe checks the admin may run ACL commands, and reports bound claims whose user is gone (repaired by bindClaim). */
  async observe(resource: RedisServer, options?: CallOptions): Promise<ExternalObservation> {
    const { info, broken } = await this.asAdmin(
      resource,
      'observe the server',
      async (r) => {
        const found = await serverInfo(r);
        return { info: found, broken: await this.brokenUsers(resource, r, found.version) };
      },
      options?.signal,
    );
    const { host, port } = this.endpoint(resource);
    const atProvider = {
      version: info.version,
      evictionPolicy: info.evictionPolicy,
      adminUser: this.admin.username ?? 'default',
      claimUsers: boundClaims(resource).length,
    };
    const brokenShares = broken;
    return { exists: true, upToDate: true, atProvider, connectionDetails: { host, port: String(port) }, brokenShares };
  }

  /** create only verifies: a registered server already exists. */
  async create(resource: RedisServer, options?: CallOptions): Promise<ExternalCreation> {
    await this.observe(resource, options);
    const { host, port } = this.endpoint(resource);
    return { externalName: `${host}:${port}` };
  }

  /** update only verifies: a claim's missing user is recreated by bindClaim, which knows its password. */
  async update(resource: RedisServer, options?: CallOptions): Promise<ExternalUpdate> {
    await this.observe(resource, options);
    return {};
  }

  /** delete forgets the server; the server and the claims' users and keys stay. */
  async delete(): Promise<void> {}

  async bindClaim(resource: RedisServer, claim: KObject, previous?: ConnectionDetails, options?: CallOptions): Promise<ConnectionDetails> {
    const ref = claimRefOf(claim);
    const share = redisShare(ref, previous);
    const { host, port } = this.endpoint(resource);
    const earlier = previous ? redisEndpointFromDetails(previous) : undefined;
    // A claim keeps the password its Secret holds (a user removed by hand comes back with it,
    // one changed by hand is set back); a new claim gets the derived one.
    const keep = earlier && earlier.password && earlier.host === host && earlier.port === port && earlier.username === share.username;
    const password = keep ? earlier.password : this.passwordFor(resource, ref);
    await this.asAdmin(resource, `create the ACL user of ${share.owner}`, (r) => ensureAclUser(r, share.username, password, share.keyPrefix), options?.signal);
    return redisEndpointDetails({ host, port, username: share.username, password, keyPrefix: share.keyPrefix });
  }

  async unbindClaim(resource: RedisServer, claim: ClaimRef, policy: RebindPolicy, recorded?: ConnectionDetails, options?: CallOptions): Promise<void> {
    const share = redisShare(claim, recorded);
    const signal = options?.signal;
    await releaseShare(policy, {
      recycle: () => this.asAdmin(resource, `delete the keys of ${share.owner}`, (r) => deleteKeysByPrefix(r, share.keyPrefix), signal),
      delete: () =>
        this.asAdmin(
          resource,
          `remove the user and keys of ${share.owner}`,
          async (r) => {
            await deleteAclUser(r, share.username);
            await deleteKeysByPrefix(r, share.keyPrefix);
          },
          signal,
        ),
    });
  }
}

/** The connector reads the admin credentials the controller took from the referenced Secret. */
export const redisServerConnector: Connector<RedisServer> = {
  async connect(resource: RedisServer, context: ConnectContext): Promise<RedisServerClient> {
    const { username, password } = readAdminCredentials(describe(resource), resource.spec.adminCredentialsSecretRef, context, {
      usernameRequired: false,
      emptyPasswordAllowed: false,
    });
    return new RedisServerClient({ username, password });
  },
};

/** The RedisServer kind: shared, registered, one ACL user and key prefix per claim. */
export const redisServerConcreteKind: ConcreteKind<RedisServer> = {
  ...kindNames(redisServerKind),
  deterministicExternalNames: true,
  implements: [
    {
      claimKind: redisClusterClaim,
      connectionSecretKeys: redisSecretKeys,
      match: matchRedisServer,
      configure: configureRedisServer,
      formatConnection: formatRedisConnection,
    },
  ],
  credentialsSecretRef(resource: RedisServer): SecretRef | undefined {
    const name = resource.spec.adminCredentialsSecretRef?.name;
    const namespace = resource.metadata.namespace;
    return name && namespace ? { namespace, name } : undefined;
  },
  connector: redisServerConnector,
};
