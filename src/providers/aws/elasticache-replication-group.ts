/**
 * The external client of an ElastiCacheReplicationGroup: an ElastiCache for Redis OSS
 * replication group (cluster mode disabled: one primary, 0–5 replicas), by ID, in the account
 * and region the Provider's keys reach. ElastiCache works in long-running operations — a group
 * is `creating`, then `available`, `modifying` after a change, `snapshotting` during a backup,
 * `deleting` at the end, `create-failed` when it could not be made — so:
 * - observe is DescribeReplicationGroups; a group `creating`, `modifying` or `deleting` is
 *   reported not ready with the state as the reason and polled with backoff (poll-schedule.ts);
 *   `snapshotting` serves clients (it is usable, only not changed until the backup ends);
 *   `create-failed` is reported for an administrator; a missing group is absent. Whether the
 *   group was made for this resource is read from its tags (ListTagsForResource): only then is
 *   Conductor's AUTH token published (an imported group's token is its owner's);
 * - create is CreateReplicationGroup with the ID recorded before it (the resource's name rule:
 *   `deterministicExternalNames`), transit and at-rest encryption on and an AUTH token derived
 *   from the Provider's key (elasticache-auth-token.ts), tagged `conductor.io/resource:
 *   <namespace>/<name>`; `ReplicationGroupAlreadyExists` for a group tagged for this resource is
 *   done (an earlier, interrupted create), for any other is refused (import it with
 *   conductor.io/external-name);
 * - update corrects one difference per call, the group `modifying` in between: the node type
 *   (ModifyReplicationGroup), the number of replicas (IncreaseReplicaCount,
 *   DecreaseReplicaCount; automatic failover is turned off before going to 0 replicas), then
 *   automatic failover and Multi-AZ (on exactly when there are replicas);
 * - delete is DeleteReplicationGroup (a final snapshot `<ID>-final` if asked); a gone or
 *   already deleting group is fine, one still creating or modifying is retried. Retain never
 *   calls delete: the group stays.
 * Capacity, quota, throttling and invalid-parameter errors become conditions (errors.ts).
 */
import {
  CreateReplicationGroupCommand,
  DecreaseReplicaCountCommand,
  DeleteReplicationGroupCommand,
  DescribeReplicationGroupsCommand,
  ElastiCacheClient,
  IncreaseReplicaCountCommand,
  ListTagsForResourceCommand,
  ModifyReplicationGroupCommand,
  type ReplicationGroup,
} from '@aws-sdk/client-elasticache';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import { uriHost } from '../uri-host.js';
import { clientConfig } from './aws-clients.js';
import type { AwsCredentials } from './credentials.js';
import { authToken } from './elasticache-auth-token.js';
import { AwsError, awsError, codeOf, isAbort } from './errors.js';
import type { ElastiCacheReplicationGroup } from './kinds.js';
import { PollSchedule, reasonOf } from './poll-schedule.js';
import { ELASTICACHE_NODE_TYPES, ELASTICACHE_REDIS_VERSIONS, type AwsRegion, type ElastiCacheNodeType } from './price-table.js';
import { elastiCacheMonthlyPrice, priceStatus } from './prices.js';
import { externalNameOf, forProviderOf, regionOf, RESOURCE_TAG } from './settings.js';

const MISSING = new Set(['ReplicationGroupNotFoundFault', 'ReplicationGroupNotFound']);
const ALREADY = new Set(['ReplicationGroupAlreadyExists', 'ReplicationGroupAlreadyExistsFault']);
const BUSY = new Set(['InvalidReplicationGroupState', 'InvalidReplicationGroupStateFault']);

/** The states a replication group leaves by itself (polled with backoff). */
export const ELASTICACHE_PASSING_STATES: ReadonlySet<string> = new Set(['creating', 'modifying', 'deleting']);
/** States in which the group serves clients. */
const USABLE = new Set(['available', 'snapshotting']);

/** elastiCachePollSchedule is the schedule of replication groups' polls (one per running provider). */
export const elastiCachePollSchedule = (now?: () => number) => new PollSchedule(ELASTICACHE_PASSING_STATES, now);

/** The port Redis listens on in every group Conductor creates. */
export const REDIS_PORT = 6379;

interface Wanted {
  id: string;
  region: AwsRegion;
  engineVersion?: string;
  nodeType: ElastiCacheNodeType;
  replicas: number;
  parameterGroupName?: string;
  cacheSubnetGroupName?: string;
  securityGroupIds?: string[];
  finalSnapshot: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** What the group has, as observe compares it with the spec. */
interface Have {
  nodeType: string;
  replicas: number;
  failover: boolean;
}

function haveOf(group: ReplicationGroup): Have {
  const members = group.MemberClusters?.length ?? 1;
  return {
    nodeType: group.CacheNodeType ?? '',
    replicas: Math.max(0, members - 1),
    failover: group.AutomaticFailover === 'enabled' || group.AutomaticFailover === 'enabling',
  };
}

/** differencesOf lists what differs between the group and the spec, in the order update corrects it. */
function differencesOf(w: Wanted, have: Have): string[] {
  const out: string[] = [];
  if (have.nodeType !== w.nodeType) out.push(`node type is ${have.nodeType}, spec wants ${w.nodeType}`);
  if (have.replicas !== w.replicas) out.push(`replicas are ${have.replicas}, spec wants ${w.replicas}`);
  if (have.failover !== w.replicas > 0) out.push(`automatic failover is ${have.failover ? 'on' : 'off'}, spec wants ${w.replicas > 0 ? 'on' : 'off'}`);
  return out;
}

/** An ElastiCacheReplicationGroupClient is the ExternalClient of replication groups reached with one Provider's keys. */
export class ElastiCacheReplicationGroupClient implements ExternalClient<ElastiCacheReplicationGroup> {
  constructor(
    private readonly credentials: AwsCredentials,
    private readonly provider: KObject | undefined,
    private readonly polls: PollSchedule,
  ) {}

  private wanted(resource: ElastiCacheReplicationGroup): Wanted {
    const fp = forProviderOf(resource);
    const id = externalNameOf(resource, 'replicationGroup', 'replicationGroupId').toLowerCase();
    const nodeType = (ELASTICACHE_NODE_TYPES as readonly unknown[]).includes(fp.nodeType) ? (fp.nodeType as ElastiCacheNodeType) : 'cache.t4g.micro';
    const engineVersion = (ELASTICACHE_REDIS_VERSIONS as readonly unknown[]).includes(fp.engineVersion) ? (fp.engineVersion as string) : undefined;
    const replicas = typeof fp.replicas === 'number' && Number.isInteger(fp.replicas) ? Math.min(5, Math.max(0, fp.replicas)) : 1;
    const groups = Array.isArray(fp.securityGroupIds) ? fp.securityGroupIds.filter((g): g is string => typeof g === 'string') : undefined;
    return {
      id,
      region: regionOf(resource, this.provider, `replication group ${id}`),
      ...(engineVersion ? { engineVersion } : {}),
      nodeType,
      replicas,
      ...(str(fp.parameterGroupName) ? { parameterGroupName: str(fp.parameterGroupName) } : {}),
      ...(str(fp.cacheSubnetGroupName) ? { cacheSubnetGroupName: str(fp.cacheSubnetGroupName) } : {}),
      ...(groups && groups.length > 0 ? { securityGroupIds: groups } : {}),
      finalSnapshot: fp.finalSnapshot === true,
    };
  }

  private client(region: string): ElastiCacheClient {
    return new ElastiCacheClient(clientConfig(this.credentials, region, 'elasticache'));
  }

  private async describe(w: Wanted, signal?: AbortSignal): Promise<ReplicationGroup | undefined> {
    try {
      const out = await this.client(w.region).send(new DescribeReplicationGroupsCommand({ ReplicationGroupId: w.id }), { abortSignal: signal });
      return out.ReplicationGroups?.[0];
    } catch (err) {
      if (MISSING.has(codeOf(err) ?? '')) return undefined;
      throw awsError(err, `describe replication group ${w.id}`);
    }
  }

  private resourceTag(resource: KObject): string {
    return `${resource.metadata.namespace ?? ''}/${resource.metadata.name ?? ''}`;
  }

  /** madeFor is the resource the group was tagged for at creation, if any. */
  private async madeFor(w: Wanted, group: ReplicationGroup, signal?: AbortSignal): Promise<string | undefined> {
    if (!group.ARN) return undefined;
    try {
      const out = await this.client(w.region).send(new ListTagsForResourceCommand({ ResourceName: group.ARN }), { abortSignal: signal });
      return out.TagList?.find((t) => t.Key === RESOURCE_TAG)?.Value;
    } catch (err) {
      throw awsError(err, `list the tags of replication group ${w.id}`);
    }
  }

  private connectionDetails(w: Wanted, group: ReplicationGroup, ours: boolean): ConnectionDetails {
    const nodeGroup = group.NodeGroups?.[0];
    const host = nodeGroup?.PrimaryEndpoint?.Address ?? '';
    const port = String(nodeGroup?.PrimaryEndpoint?.Port ?? REDIS_PORT);
    const tls = group.TransitEncryptionEnabled === true;
    // Only a group made for this resource has Conductor's token; an imported one's is its owner's.
    const password = ours ? authToken(this.credentials.masterPasswordKey, w.region, w.id) : '';
    const auth = password ? `:${encodeURIComponent(password)}@` : '';
    return {
      host,
      port,
      password,
      uri: `${tls ? 'rediss' : 'redis'}://${auth}${uriHost(host)}:${port}`,
      tls: String(tls),
      readerHost: (group.MemberClusters?.length ?? 1) > 1 ? (nodeGroup?.ReaderEndpoint?.Address ?? '') : '',
      replicationGroupId: w.id,
    };
  }

  async observe(resource: ElastiCacheReplicationGroup, options: CallOptions = {}): Promise<ExternalObservation> {
    const w = this.wanted(resource);
    const key = `${w.region}/${w.id}`;
    const cached = this.polls.cached(key);
    if (cached) return cached;
    const group = await this.describe(w, options.signal);
    if (!group) {
      this.polls.forget(key);
      return { exists: false, upToDate: false };
    }
    const status = group.Status ?? 'unknown';
    const have = haveOf(group);
    const endpoint = group.NodeGroups?.[0]?.PrimaryEndpoint;
    const atProvider = {
      replicationGroupId: w.id,
      region: w.region,
      status,
      nodeType: have.nodeType,
      replicas: have.replicas,
      transitEncryption: group.TransitEncryptionEnabled === true,
      authToken: group.AuthTokenEnabled === true,
      ...(endpoint?.Address ? { primaryEndpoint: `${endpoint.Address}:${endpoint.Port ?? REDIS_PORT}` } : {}),
      ...(group.ARN ? { arn: group.ARN } : {}),
      ...priceStatus(elastiCacheMonthlyPrice({ region: w.region, nodeType: w.nodeType, nodes: w.replicas + 1 })),
    };
    let observation: ExternalObservation;
    if (USABLE.has(status)) {
      const differences = differencesOf(w, have);
      // While a backup runs, nothing is changed (ElastiCache refuses it): up to date until it ends.
      const upToDate = differences.length === 0 || status === 'snapshotting';
      const ours = (await this.madeFor(w, group, options.signal)) === this.resourceTag(resource);
      observation = {
        exists: true,
        upToDate,
        ...(upToDate ? {} : { drift: differences.join('; ') }),
        atProvider,
        connectionDetails: this.connectionDetails(w, group, ours),
      };
    } else {
      const passing = ELASTICACHE_PASSING_STATES.has(status);
      const message = passing
        ? `ElastiCache reports the replication group ${status}; polled with backoff until it is available`
        : `ElastiCache reports the replication group ${status}: it needs an administrator (see the ElastiCache console's events for ${w.id}; delete the resource to remove it)`;
      observation = {
        exists: true,
        upToDate: true,
        atProvider,
        notReady: { reason: passing ? reasonOf(status) : `ReplicationGroup${reasonOf(status)}`, message },
      };
    }
    this.polls.saw(key, status, observation);
    return observation;
  }

  async create(resource: ElastiCacheReplicationGroup, options: CallOptions = {}): Promise<ExternalCreation> {
    const w = this.wanted(resource);
    this.polls.forget(`${w.region}/${w.id}`);
    const failover = w.replicas > 0;
    try {
      await this.client(w.region).send(
        new CreateReplicationGroupCommand({
          ReplicationGroupId: w.id,
          ReplicationGroupDescription: `Conductor ${this.resourceTag(resource)}`.slice(0, 255),
          Engine: 'redis',
          ...(w.engineVersion ? { EngineVersion: w.engineVersion } : {}),
          CacheNodeType: w.nodeType,
          NumCacheClusters: w.replicas + 1,
          AutomaticFailoverEnabled: failover,
          MultiAZEnabled: failover,
          Port: REDIS_PORT,
          TransitEncryptionEnabled: true,
          AtRestEncryptionEnabled: true,
          AuthToken: authToken(this.credentials.masterPasswordKey, w.region, w.id),
          ...(w.parameterGroupName ? { CacheParameterGroupName: w.parameterGroupName } : {}),
          ...(w.cacheSubnetGroupName ? { CacheSubnetGroupName: w.cacheSubnetGroupName } : {}),
          ...(w.securityGroupIds ? { SecurityGroupIds: w.securityGroupIds } : {}),
          Tags: [
            { Key: RESOURCE_TAG, Value: this.resourceTag(resource) },
            { Key: 'conductor.io/managed-by', Value: 'conductor' },
          ],
        }),
        { abortSignal: options.signal },
      );
    } catch (err) {
      if (!ALREADY.has(codeOf(err) ?? '')) throw awsError(err, `create replication group ${w.id}`);
      // An earlier, interrupted create of this resource made it: done. Anything else is not ours to take.
      const existing = await this.describe(w, options.signal);
      const owner = existing ? await this.madeFor(w, existing, options.signal) : undefined;
      if (existing && owner !== this.resourceTag(resource)) {
        throw new AwsError(
          'AlreadyExists',
          `cannot create replication group ${w.id}: a group of that ID exists and was not made for this resource — import it with the annotation conductor.io/external-name (and managementPolicy ObserveOnly), or set another spec.forProvider.replicationGroupId`,
          codeOf(err),
        );
      }
    }
    return { externalName: w.id };
  }

  async update(resource: ElastiCacheReplicationGroup, options: CallOptions = {}): Promise<ExternalUpdate> {
    const w = this.wanted(resource);
    this.polls.forget(`${w.region}/${w.id}`);
    const group = await this.describe(w, options.signal);
    if (!group) throw new AwsError('NotFound', `cannot modify replication group ${w.id}: it is gone (it is created again at the next observation)`);
    const have = haveOf(group);
    const client = this.client(w.region);
    const opts = { abortSignal: options.signal };
    const send = async (what: string, call: () => Promise<unknown>) => {
      try {
        await call();
      } catch (err) {
        throw awsError(err, what);
      }
    };
    if (have.nodeType !== w.nodeType) {
      await send(`change the node type of replication group ${w.id} to ${w.nodeType}`, () =>
        client.send(new ModifyReplicationGroupCommand({ ReplicationGroupId: w.id, CacheNodeType: w.nodeType, ApplyImmediately: true }), opts),
      );
    } else if (have.replicas > w.replicas) {
      if (w.replicas === 0 && have.failover) {
        // A group without replicas cannot fail over: turn it off first, then remove the replicas.
        await send(`turn off automatic failover of replication group ${w.id}`, () =>
          client.send(
            new ModifyReplicationGroupCommand({ ReplicationGroupId: w.id, AutomaticFailoverEnabled: false, MultiAZEnabled: false, ApplyImmediately: true }),
            opts,
          ),
        );
      } else {
        await send(`remove replicas of replication group ${w.id} (to ${w.replicas})`, () =>
          client.send(new DecreaseReplicaCountCommand({ ReplicationGroupId: w.id, NewReplicaCount: w.replicas, ApplyImmediately: true }), opts),
        );
      }
    } else if (have.replicas < w.replicas) {
      await send(`add replicas to replication group ${w.id} (to ${w.replicas})`, () =>
        client.send(new IncreaseReplicaCountCommand({ ReplicationGroupId: w.id, NewReplicaCount: w.replicas, ApplyImmediately: true }), opts),
      );
    } else if (have.failover !== w.replicas > 0) {
      const on = w.replicas > 0;
      await send(`turn ${on ? 'on' : 'off'} automatic failover of replication group ${w.id}`, () =>
        client.send(
          new ModifyReplicationGroupCommand({ ReplicationGroupId: w.id, AutomaticFailoverEnabled: on, MultiAZEnabled: on, ApplyImmediately: true }),
          opts,
        ),
      );
    }
    return {};
  }

  async delete(resource: ElastiCacheReplicationGroup, options: CallOptions = {}): Promise<void> {
    const w = this.wanted(resource);
    this.polls.forget(`${w.region}/${w.id}`);
    try {
      await this.client(w.region).send(
        new DeleteReplicationGroupCommand({
          ReplicationGroupId: w.id,
          RetainPrimaryCluster: false,
          ...(w.finalSnapshot ? { FinalSnapshotIdentifier: `${w.id}-final` } : {}),
        }),
        { abortSignal: options.signal },
      );
    } catch (err) {
      if (isAbort(err)) throw err;
      const code = codeOf(err) ?? '';
      if (MISSING.has(code)) return;
      if (BUSY.has(code)) {
        const now = await this.describe(w, options.signal);
        if (!now || now.Status === 'deleting') return;
        throw awsError(err, `delete replication group ${w.id} (it is ${now.Status ?? 'busy'}; retried)`);
      }
      throw awsError(err, `delete replication group ${w.id}`);
    }
  }
}
