/**
 * S3Server: an s3rver process on this machine that Conductor runs (Managed) and shares
 * between Bucket claims (Shared): each bound claim gets its own bucket (names.ts).
 * create/update make the server run; observe reports a stopped server as drift (update
 * restarts it) and a bound claim's missing bucket as a broken share (the claim controller
 * recreates it through bindClaim); delete stops the server and removes its files. Released claims' buckets are kept (Retain), emptied
 * (Recycle) or removed (Delete).
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
import { bucketDetails, formatBucketConnection } from './connection.js';
import { bucketClaim, bucketSecretKeys, defaultRegion, s3ServerKind, type S3Server } from './kinds.js';
import { boundClaims } from '../bound-claims.js';
import { configureS3Server, matchS3Server } from './matchers.js';
import { bucketName, legacyBucketName } from './names.js';
import type { S3Admin } from './s3-admin.js';
import { endpointFor, type S3Servers } from './s3-servers.js';
import { describeResource, resourceIdentity } from '../process/instance-names.js';
import { discoverServers, watchServerExits } from '../process/dedicated-instance.js';
import { releaseShare } from '../../rebind.js';
import { kindNames } from '../../kind-definition.js';

const identity = (resource: KObject) => resourceIdentity('S3Server', resource, 'its files');
const describe = (resource: KObject) => describeResource('S3Server', resource);

function claimRefOf(claim: KObject): ClaimRef {
  const { namespace, name, uid } = claim.metadata;
  if (!namespace || !name) throw new Error('claim lacks metadata.namespace or metadata.name: want both to name its bucket');
  return { namespace, name, uid };
}

/** An S3ServerClient manages the s3rver processes of one provider and the claims' buckets on them. */
export class S3ServerClient implements SharedExternalClient<S3Server> {
  constructor(private readonly servers: S3Servers) {}

  private dir(resource: S3Server): string {
    const { namespace, name } = identity(resource);
    return this.servers.dirFor(namespace, name);
  }

  private region(resource: S3Server): string {
    return resource.spec.region || defaultRegion;
  }

  /** running makes the server run and returns an S3 client for it, for the call whose signal is `signal`. */
  private async running(resource: S3Server, signal?: AbortSignal): Promise<{ port: number; admin: S3Admin }> {
    const { port } = await this.servers.ensureRunning(this.dir(resource), { ...identity(resource), port: resource.spec.port }, signal);
    return { port, admin: await this.servers.admin(this.dir(resource), port, this.region(resource), signal) };
  }

  async observe(resource: S3Server, options?: CallOptions): Promise<ExternalObservation> {
    const dir = this.dir(resource);
    const status = await this.servers.status(dir);
    if (!status.provisioned || !status.state) return { exists: false, upToDate: false };
    const port = status.port ?? status.state.port;
    const atProvider = {
      running: status.running,
      port,
      endpoint: endpointFor(port),
      ...(status.pid !== undefined ? { pid: status.pid } : {}),
      directory: dir,
      logFile: this.servers.logFile(dir),
      s3rverVersion: this.servers.program.version,
    };
    if (!status.running) return { exists: true, upToDate: false, atProvider, drift: 'the s3rver process is not running' };
    const wantedPort = resource.spec.port;
    if (wantedPort !== undefined && wantedPort !== port) {
      return { exists: true, upToDate: false, atProvider, drift: `s3rver listens on port ${port}, spec.port is ${wantedPort}` };
    }
    let buckets: string[];
    try {
      buckets = await (await this.servers.admin(dir, port, this.region(resource), options?.signal)).listBuckets();
    } catch (err) {
      if (options?.signal?.aborted) throw err; // the call was cancelled: no observation
      return { exists: true, upToDate: false, atProvider, drift: `cannot list the buckets: ${(err as Error).message}` };
    }
    const present = new Set(buckets);
    // A bound claim's missing bucket is a broken share, recreated by the claim controller
    // through bindClaim (never by update, which could race a release deleting it).
    // A claim's key missing from keys.json (removed, or a claim bound before claims had keys)
    // is a broken share too: bindClaim writes it and returns the claim's new details.
    const brokenShares: { claim: ClaimRef; missing: string }[] = [];
    for (const claim of boundClaims(resource)) {
      // A claim bound by an earlier version has its bucket under the earlier name.
      const current = bucketName(claim.namespace, claim.name);
      const earlier = legacyBucketName(claim.namespace, claim.name);
      const bucket = !present.has(current) && present.has(earlier) ? earlier : current;
      if (!present.has(bucket)) brokenShares.push({ claim, missing: `bucket ${bucket}` });
      else if (!(await this.servers.hasClaimKey(dir, claim, bucket))) brokenShares.push({ claim, missing: `the access key of bucket ${bucket}` });
    }
    const observed = { ...atProvider, buckets: buckets.length };
    return {
      exists: true,
      upToDate: true,
      atProvider: observed,
      connectionDetails: { endpoint: endpointFor(port), region: this.region(resource) },
      brokenShares,
    };
  }

  async create(resource: S3Server, options?: CallOptions): Promise<ExternalCreation> {
    const { port } = await this.running(resource, options?.signal);
    return { externalName: basename(this.dir(resource)), connectionDetails: { endpoint: endpointFor(port), region: this.region(resource) } };
  }

  /** update makes the server run (again) on its port; the claims' buckets are the claim controller's. */
  async update(resource: S3Server, options?: CallOptions): Promise<ExternalUpdate> {
    const { port } = await this.running(resource, options?.signal);
    return { connectionDetails: { endpoint: endpointFor(port), region: this.region(resource) } };
  }

  /** delete stops the server and removes its files, every bucket included. */
  async delete(resource: S3Server): Promise<void> {
    await this.servers.remove(this.dir(resource));
  }

  /**
   * bucketOf is the claim's bucket: the one an earlier version named (8-hex hash) when the
   * claim's records name it — its binding Secret (`recorded`, which only Conductor writes)
   * or its key in keys.json (derived from the claim's uid) — else the current name.
   */
  private async bucketOf(resource: S3Server, claim: ClaimRef, recorded?: ConnectionDetails): Promise<string> {
    const legacy = legacyBucketName(claim.namespace, claim.name);
    if (recorded?.bucket === legacy) return legacy;
    const keyed = await this.servers.hasClaimKey(this.dir(resource), claim, legacy).catch(() => false);
    return keyed ? legacy : bucketName(claim.namespace, claim.name);
  }

  /** bindClaim makes the claim's bucket exist; the details never change while the port is kept. */
  async bindClaim(resource: S3Server, claim: KObject, previous?: ConnectionDetails, options?: CallOptions): Promise<ConnectionDetails> {
    const ref = claimRefOf(claim);
    const { port, admin } = await this.running(resource, options?.signal);
    const bucket = await this.bucketOf(resource, ref, previous);
    try {
      await admin.createBucket(bucket);
    } catch (err) {
      if (options?.signal?.aborted) throw err; // the signal's reason, as it is
      throw new Error(`cannot create bucket ${bucket} of claim ${ref.namespace}/${ref.name} on ${describe(resource)}: ${(err as Error).message}`);
    }
    const key = await this.servers.claimKey(this.dir(resource), ref, bucket);
    return bucketDetails({ endpoint: endpointFor(port), bucket, region: this.region(resource), ...key });
  }

  async unbindClaim(resource: S3Server, claim: ClaimRef, policy: RebindPolicy, recorded?: ConnectionDetails, options?: CallOptions): Promise<void> {
    const signal = options?.signal;
    const bucket = await this.bucketOf(resource, claim, recorded);
    const what = `bucket ${bucket} of claim ${claim.namespace}/${claim.name} on ${describe(resource)}`;
    await releaseShare(policy, {
      recycle: async () => {
        const { admin } = await this.running(resource, signal);
        await admin.emptyBucket(bucket).catch((err: Error) => {
          throw signal?.aborted ? err : new Error(`cannot empty ${what}: ${err.message}`);
        });
      },
      delete: async () => {
        await this.servers.removeClaimKey(this.dir(resource), claim);
        const { admin } = await this.running(resource, signal);
        await admin.deleteBucket(bucket).catch((err: Error) => {
          throw signal?.aborted ? err : new Error(`cannot delete ${what}: ${err.message}`);
        });
      },
    });
  }

  /** discover lists the S3 server directories on this machine. */
  async discover(): Promise<DiscoveredResource[]> {
    return discoverServers(this.servers);
  }
}

/**
 * s3ServerConcreteKind builds the S3Server kind around a supervisor; without one (s3rver missing)
 * the kind stays registered and every connect says why it cannot work.
 */
export function s3ServerConcreteKind(servers: S3Servers | undefined, unavailable?: string): ConcreteKind<S3Server> {
  const connector: Connector<S3Server> = {
    async connect() {
      if (!servers) throw new Error(`S3Server is unavailable on this machine: ${unavailable ?? 's3rver was not found'}`);
      return new S3ServerClient(servers);
    },
  };
  return {
    ...kindNames(s3ServerKind),
    deterministicExternalNames: true,
    implements: [
      {
        claimKind: bucketClaim,
        connectionSecretKeys: bucketSecretKeys,
        match: matchS3Server,
        configure: configureS3Server,
        formatConnection: formatBucketConnection,
      },
    ],
    connector,
    watch: watchServerExits(servers),
    ...(servers ? { logRoot: servers.root } : {}),
  };
}
