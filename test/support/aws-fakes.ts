/**
 * Test support: fakes of the AWS services that have no emulator here (RDS, ElastiCache, SQS, STS), at the
 * SDK's request level with aws-sdk-client-mock — every `send` of every client of the service
 * reaches the fake, which keeps state and answers as the service documents:
 * - RDS: instances `creating` → `available`, `modifying` after ModifyDBInstance, `deleting`
 *   then gone; DBInstanceAlreadyExists, DBInstanceNotFound, InvalidDBInstanceState; any call
 *   can be made to fail next (InstanceQuotaExceeded, Throttling, InvalidParameterValue…).
 *   State moves only when the test says so (`advance`): no timing.
 * - ElastiCache: replication groups `creating` → `available`, `modifying` after
 *   ModifyReplicationGroup / IncreaseReplicaCount / DecreaseReplicaCount, `deleting` then gone;
 *   ReplicationGroupAlreadyExists, ReplicationGroupNotFoundFault, InvalidReplicationGroupState,
 *   the AUTH token's rules (transit encryption, 16–128 characters, few specials), automatic
 *   failover needing a replica; tags by ARN; any call can be made to fail next. `advance` moves state.
 * - SQS: queues by name with attributes; CreateQueue idempotent for the same attributes,
 *   QueueNameExists for others, QueueDeletedRecently after a delete until `forgetDeleted`.
 * - STS: GetCallerIdentity, AssumeRole, GetFederationToken for one known access key; other
 *   keys get InvalidClientTokenId.
 * Never shipped: only tests import this.
 */
import { mockClient, type AwsStub } from 'aws-sdk-client-mock';
import {
  CreateDBInstanceCommand,
  DBInstanceAlreadyExistsFault,
  DBInstanceNotFoundFault,
  DeleteDBInstanceCommand,
  DescribeDBInstancesCommand,
  InvalidDBInstanceStateFault,
  ModifyDBInstanceCommand,
  RDSClient,
  RDSServiceException,
  type CreateDBInstanceCommandInput,
  type DBInstance,
} from '@aws-sdk/client-rds';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueDeletedRecently,
  QueueDoesNotExist,
  QueueNameExists,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  ClusterQuotaForCustomerExceededFault,
  CreateReplicationGroupCommand,
  DecreaseReplicaCountCommand,
  DeleteReplicationGroupCommand,
  DescribeReplicationGroupsCommand,
  ElastiCacheClient,
  ElastiCacheServiceException,
  IncreaseReplicaCountCommand,
  InsufficientCacheClusterCapacityFault,
  InvalidParameterCombinationException,
  InvalidParameterValueException,
  InvalidReplicationGroupStateFault,
  ListTagsForResourceCommand,
  ModifyReplicationGroupCommand,
  NodeQuotaForCustomerExceededFault,
  ReplicationGroupAlreadyExistsFault,
  ReplicationGroupNotFoundFault,
  type CreateReplicationGroupCommandInput,
  type ReplicationGroup,
} from '@aws-sdk/client-elasticache';
import { AssumeRoleCommand, GetCallerIdentityCommand, GetFederationTokenCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';

export const FAKE_ACCOUNT = '123456789012';
const meta = (status: number) => ({ $metadata: { httpStatusCode: status } });

/** rdsError is an RDS error as the SDK raises it for a code it has no class for (Throttling, InvalidParameterValue). */
export const rdsError = (name: string, message: string, status = 400) => new RDSServiceException({ name, $fault: 'client', message, ...meta(status) });

/**
 * withResponseHeaders gives an SDK error the HTTP response the SDK attaches to it (`$response`,
 * not enumerable), with `headers` — e.g. a throttling answer's `Retry-After` or `x-amz-retry-after`.
 */
export function withResponseHeaders<E extends Error>(err: E, headers: Record<string, string>, statusCode = 400): E {
  return Object.defineProperty(err, '$response', { value: { statusCode, headers, body: undefined }, enumerable: false });
}

/** A FakeInstance is what the fake RDS keeps per instance (the password too, so tests can compare). */
export interface FakeInstance {
  input: CreateDBInstanceCommandInput;
  status: string;
  instanceClass: string;
  storage: number;
  multiAZ: boolean;
  pending: { DBInstanceClass?: string; AllocatedStorage?: number; MultiAZ?: boolean };
}

/** FakeRds is RDS's DB instance API, in memory. */
export class FakeRds {
  readonly instances = new Map<string, FakeInstance>();
  readonly calls: string[] = [];
  readonly stub: AwsStub<any, any, any>;
  private readonly failures = new Map<string, Error[]>();

  constructor() {
    this.stub = mockClient(RDSClient);
    this.stub.on(CreateDBInstanceCommand).callsFake((input) => this.call('CreateDBInstance', () => this.create(input)));
    this.stub.on(DescribeDBInstancesCommand).callsFake((input) => this.call('DescribeDBInstances', () => this.describe(input.DBInstanceIdentifier)));
    this.stub.on(ModifyDBInstanceCommand).callsFake((input) => this.call('ModifyDBInstance', () => this.modify(input)));
    this.stub.on(DeleteDBInstanceCommand).callsFake((input) => this.call('DeleteDBInstance', () => this.remove(input.DBInstanceIdentifier)));
  }

  /** failNext makes the next call of `operation` fail with `err`. */
  failNext(operation: string, err: Error): void {
    this.failures.set(operation, [...(this.failures.get(operation) ?? []), err]);
  }

  private call<T>(operation: string, run: () => T): T {
    this.calls.push(operation);
    const queued = this.failures.get(operation);
    const err = queued?.shift();
    if (err) throw err;
    return run();
  }

  private view(id: string, i: FakeInstance): DBInstance {
    const pending = Object.keys(i.pending).length > 0 ? { PendingModifiedValues: i.pending } : {};
    return {
      DBInstanceIdentifier: id,
      DBInstanceArn: `arn:aws:rds:us-east-1:${FAKE_ACCOUNT}:db:${id}`,
      DBInstanceStatus: i.status,
      Engine: i.input.Engine,
      EngineVersion: i.input.EngineVersion ?? (i.input.Engine === 'mysql' ? '8.0.36' : '16.3'),
      DBInstanceClass: i.instanceClass,
      AllocatedStorage: i.storage,
      MultiAZ: i.multiAZ,
      MasterUsername: i.input.MasterUsername,
      DBName: i.input.DBName,
      TagList: i.input.Tags,
      // RDS gives the endpoint once the instance is past creating.
      ...(i.status === 'creating'
        ? {}
        : { Endpoint: { Address: `${id}.abcdefghijkl.us-east-1.rds.amazonaws.com`, Port: i.input.Engine === 'mysql' ? 3306 : 5432 } }),
      ...pending,
    };
  }

  private create(input: CreateDBInstanceCommandInput) {
    const id = (input.DBInstanceIdentifier ?? '').toLowerCase();
    if (this.instances.has(id)) throw new DBInstanceAlreadyExistsFault({ message: `DB instance already exists`, ...meta(400) });
    if (!input.MasterUserPassword || input.MasterUserPassword.length < 8)
      throw rdsError('InvalidParameterValue', 'The parameter MasterUserPassword is not a valid password.');
    if ((input.AllocatedStorage ?? 0) < 20) throw rdsError('InvalidParameterValue', 'Invalid storage size for engine name postgres and storage type gp3: 10');
    const i: FakeInstance = {
      input,
      status: 'creating',
      instanceClass: input.DBInstanceClass ?? '',
      storage: input.AllocatedStorage ?? 0,
      multiAZ: input.MultiAZ ?? false,
      pending: {},
    };
    this.instances.set(id, i);
    return { DBInstance: this.view(id, i) };
  }

  private describe(identifier: string | undefined) {
    const id = (identifier ?? '').toLowerCase();
    const i = this.instances.get(id);
    if (!i) throw new DBInstanceNotFoundFault({ message: `DBInstance ${identifier} not found.`, ...meta(404) });
    return { DBInstances: [this.view(id, i)] };
  }

  private modify(input: { DBInstanceIdentifier?: string; DBInstanceClass?: string; AllocatedStorage?: number; MultiAZ?: boolean }) {
    const id = (input.DBInstanceIdentifier ?? '').toLowerCase();
    const i = this.instances.get(id);
    if (!i) throw new DBInstanceNotFoundFault({ message: `DBInstance ${input.DBInstanceIdentifier} not found.`, ...meta(404) });
    if (i.status !== 'available') throw new InvalidDBInstanceStateFault({ message: `Database instance is not in available state.`, ...meta(400) });
    if (input.AllocatedStorage !== undefined && input.AllocatedStorage < i.storage)
      throw rdsError('InvalidParameterValue', 'Invalid storage size: allocated storage cannot be decreased');
    i.pending = {
      ...(input.DBInstanceClass && input.DBInstanceClass !== i.instanceClass ? { DBInstanceClass: input.DBInstanceClass } : {}),
      ...(input.AllocatedStorage !== undefined && input.AllocatedStorage !== i.storage ? { AllocatedStorage: input.AllocatedStorage } : {}),
      ...(input.MultiAZ !== undefined && input.MultiAZ !== i.multiAZ ? { MultiAZ: input.MultiAZ } : {}),
    };
    i.status = 'modifying';
    return { DBInstance: this.view(id, i) };
  }

  private remove(identifier: string | undefined) {
    const id = (identifier ?? '').toLowerCase();
    const i = this.instances.get(id);
    if (!i) throw new DBInstanceNotFoundFault({ message: `DBInstance ${identifier} not found.`, ...meta(404) });
    if (i.status === 'deleting') throw new InvalidDBInstanceStateFault({ message: 'Instance is already being deleted.', ...meta(400) });
    if (i.status === 'creating') throw new InvalidDBInstanceStateFault({ message: 'Instance is not in available state (creating).', ...meta(400) });
    i.status = 'deleting';
    return { DBInstance: this.view(id, i) };
  }

  /** advance moves an instance to its next state: creating/modifying → available (modifications applied), deleting → gone. */
  advance(identifier: string): void {
    const id = identifier.toLowerCase();
    const i = this.instances.get(id);
    if (!i) throw new Error(`no fake instance ${identifier}`);
    if (i.status === 'deleting') {
      this.instances.delete(id);
      return;
    }
    if (i.pending.DBInstanceClass) i.instanceClass = i.pending.DBInstanceClass;
    if (i.pending.AllocatedStorage) i.storage = i.pending.AllocatedStorage;
    if (i.pending.MultiAZ !== undefined) i.multiAZ = i.pending.MultiAZ;
    i.pending = {};
    i.status = 'available';
  }

  restore(): void {
    this.stub.restore();
  }
}

/** elastiCacheError is an ElastiCache error as the SDK raises it for a code it has no class for (Throttling). */
export const elastiCacheError = (name: string, message: string, status = 400) =>
  new ElastiCacheServiceException({ name, $fault: 'client', message, ...meta(status) });

/** ElastiCache's errors by name, as the SDK raises them, for `failNext`. */
export const elastiCacheErrors = {
  insufficientCapacity: () =>
    new InsufficientCacheClusterCapacityFault({
      message: 'cache.r7g.xlarge (VPC) is not currently supported in the availability zone us-east-1e.',
      ...meta(400),
    }),
  nodeQuota: () => new NodeQuotaForCustomerExceededFault({ message: 'Node quota for customer exceeded', ...meta(400) }),
  clusterQuota: () => new ClusterQuotaForCustomerExceededFault({ message: 'Cluster quota for customer exceeded', ...meta(400) }),
  throttling: () => elastiCacheError('Throttling', 'Rate exceeded'),
  invalidParameter: (message: string) => new InvalidParameterValueException({ message, ...meta(400) }),
};

/** A FakeGroup is what the fake ElastiCache keeps per replication group (the AUTH token too, so tests can compare). */
export interface FakeGroup {
  input: CreateReplicationGroupCommandInput;
  arn: string;
  status: string;
  nodeType: string;
  replicas: number;
  failover: boolean;
  pending: { nodeType?: string; replicas?: number };
}

/** The specials ElastiCache allows in an AUTH token. */
const AUTH_TOKEN = /^[A-Za-z0-9!&#$^<>-]{16,128}$/;

/** FakeElastiCache is ElastiCache's replication group API (cluster mode disabled), in memory, in us-east-1. */
export class FakeElastiCache {
  readonly groups = new Map<string, FakeGroup>();
  readonly calls: string[] = [];
  readonly inputs: { operation: string; input: any }[] = [];
  readonly stub: AwsStub<any, any, any>;
  private readonly failures = new Map<string, Error[]>();

  constructor() {
    this.stub = mockClient(ElastiCacheClient);
    this.stub.on(CreateReplicationGroupCommand).callsFake((input) => this.call('CreateReplicationGroup', input, () => this.create(input)));
    this.stub
      .on(DescribeReplicationGroupsCommand)
      .callsFake((input) => this.call('DescribeReplicationGroups', input, () => ({ ReplicationGroups: [this.view(this.named(input.ReplicationGroupId))] })));
    this.stub.on(ListTagsForResourceCommand).callsFake((input) => this.call('ListTagsForResource', input, () => this.tags(input.ResourceName)));
    this.stub.on(ModifyReplicationGroupCommand).callsFake((input) => this.call('ModifyReplicationGroup', input, () => this.modify(input)));
    this.stub
      .on(IncreaseReplicaCountCommand)
      .callsFake((input) => this.call('IncreaseReplicaCount', input, () => this.replicaCount(input.ReplicationGroupId, input.NewReplicaCount, 'up')));
    this.stub
      .on(DecreaseReplicaCountCommand)
      .callsFake((input) => this.call('DecreaseReplicaCount', input, () => this.replicaCount(input.ReplicationGroupId, input.NewReplicaCount, 'down')));
    this.stub.on(DeleteReplicationGroupCommand).callsFake((input) => this.call('DeleteReplicationGroup', input, () => this.remove(input.ReplicationGroupId)));
  }

  /** failNext makes the next call of `operation` fail with `err`. */
  failNext(operation: string, err: Error): void {
    this.failures.set(operation, [...(this.failures.get(operation) ?? []), err]);
  }

  private call<T>(operation: string, input: unknown, run: () => T): T {
    this.calls.push(operation);
    this.inputs.push({ operation, input });
    const err = this.failures.get(operation)?.shift();
    if (err) throw err;
    return run();
  }

  private id(name: string | undefined): string {
    return (name ?? '').toLowerCase();
  }

  private named(name: string | undefined): string {
    const id = this.id(name);
    if (!this.groups.has(id)) throw new ReplicationGroupNotFoundFault({ message: `ReplicationGroup ${name} not found.`, ...meta(404) });
    return id;
  }

  private view(id: string): ReplicationGroup {
    const g = this.groups.get(id)!;
    const members = Array.from({ length: g.replicas + 1 }, (_, i) => `${id}-${String(i + 1).padStart(3, '0')}`);
    // The endpoints exist once the group is past creating.
    const endpoints =
      g.status === 'creating'
        ? {}
        : {
            PrimaryEndpoint: { Address: `master.${id}.abc123.use1.cache.amazonaws.com`, Port: g.input.Port ?? 6379 },
            ReaderEndpoint: { Address: `replica.${id}.abc123.use1.cache.amazonaws.com`, Port: g.input.Port ?? 6379 },
          };
    return {
      ReplicationGroupId: id,
      ARN: g.arn,
      Status: g.status,
      CacheNodeType: g.nodeType,
      MemberClusters: members,
      NodeGroups: [{ NodeGroupId: '0001', Status: g.status, ...endpoints }],
      AutomaticFailover: g.failover ? 'enabled' : 'disabled',
      MultiAZ: g.failover ? 'enabled' : 'disabled',
      ClusterEnabled: false,
      TransitEncryptionEnabled: g.input.TransitEncryptionEnabled === true,
      AtRestEncryptionEnabled: g.input.AtRestEncryptionEnabled === true,
      AuthTokenEnabled: g.input.AuthToken !== undefined,
    };
  }

  private create(input: CreateReplicationGroupCommandInput) {
    const id = this.id(input.ReplicationGroupId);
    if (this.groups.has(id)) throw new ReplicationGroupAlreadyExistsFault({ message: 'Replication group already exists', ...meta(400) });
    if (!input.ReplicationGroupDescription)
      throw new InvalidParameterValueException({ message: 'The parameter ReplicationGroupDescription must be provided.', ...meta(400) });
    if (input.AuthToken !== undefined && input.TransitEncryptionEnabled !== true)
      throw new InvalidParameterCombinationException({ message: 'AuthToken can only be specified with TransitEncryptionEnabled.', ...meta(400) });
    if (input.AuthToken !== undefined && !AUTH_TOKEN.test(input.AuthToken))
      throw new InvalidParameterValueException({ message: 'Invalid AuthToken provided.', ...meta(400) });
    const nodes = input.NumCacheClusters ?? 1;
    if (nodes < 1 || nodes > 6) throw new InvalidParameterValueException({ message: 'NumCacheClusters must be between 1 and 6.', ...meta(400) });
    if (input.AutomaticFailoverEnabled === true && nodes < 2)
      throw new InvalidParameterCombinationException({ message: 'Automatic failover needs at least one replica.', ...meta(400) });
    const g: FakeGroup = {
      input,
      arn: `arn:aws:elasticache:us-east-1:${FAKE_ACCOUNT}:replicationgroup:${id}`,
      status: 'creating',
      nodeType: input.CacheNodeType ?? 'cache.t4g.micro',
      replicas: nodes - 1,
      failover: input.AutomaticFailoverEnabled === true,
      pending: {},
    };
    this.groups.set(id, g);
    return { ReplicationGroup: this.view(id) };
  }

  private tags(arn: string | undefined) {
    const g = [...this.groups.values()].find((x) => x.arn === arn);
    if (!g) throw new ReplicationGroupNotFoundFault({ message: `No replication group for ${arn}.`, ...meta(404) });
    return { TagList: g.input.Tags ?? [] };
  }

  private available(name: string | undefined): FakeGroup {
    const g = this.groups.get(this.named(name))!;
    if (g.status !== 'available')
      throw new InvalidReplicationGroupStateFault({ message: `Replication group must be in available state to modify (it is ${g.status}).`, ...meta(400) });
    return g;
  }

  private modify(input: { ReplicationGroupId?: string; CacheNodeType?: string; AutomaticFailoverEnabled?: boolean }) {
    const g = this.available(input.ReplicationGroupId);
    if (input.AutomaticFailoverEnabled === true && g.replicas === 0)
      throw new InvalidParameterCombinationException({ message: 'Automatic failover needs at least one replica.', ...meta(400) });
    if (input.AutomaticFailoverEnabled !== undefined) g.failover = input.AutomaticFailoverEnabled;
    if (input.CacheNodeType !== undefined && input.CacheNodeType !== g.nodeType) g.pending.nodeType = input.CacheNodeType;
    g.status = 'modifying';
    return { ReplicationGroup: this.view(this.id(input.ReplicationGroupId)) };
  }

  private replicaCount(name: string | undefined, count: number | undefined, way: 'up' | 'down') {
    const g = this.available(name);
    const n = count ?? -1;
    if (n < 0 || n > 5) throw new InvalidParameterValueException({ message: 'NewReplicaCount must be between 0 and 5.', ...meta(400) });
    if (way === 'up' ? n <= g.replicas : n >= g.replicas)
      throw new InvalidParameterValueException({
        message: `NewReplicaCount ${n} does not ${way === 'up' ? 'increase' : 'decrease'} the replicas.`,
        ...meta(400),
      });
    if (way === 'down' && n === 0 && g.failover)
      throw new InvalidParameterCombinationException({ message: 'Cannot remove the last replica while automatic failover is enabled.', ...meta(400) });
    g.pending.replicas = n;
    g.status = 'modifying';
    return { ReplicationGroup: this.view(this.id(name)) };
  }

  private remove(name: string | undefined) {
    const id = this.named(name);
    const g = this.groups.get(id)!;
    if (g.status !== 'available' && g.status !== 'create-failed')
      throw new InvalidReplicationGroupStateFault({ message: `Replication group ${id} is not in available state (it is ${g.status}).`, ...meta(400) });
    g.status = 'deleting';
    return { ReplicationGroup: this.view(id) };
  }

  /** advance moves a group to its next state: creating/modifying → available (changes applied), deleting → gone. */
  advance(name: string): void {
    const id = this.id(name);
    const g = this.groups.get(id);
    if (!g) throw new Error(`no fake replication group ${name}`);
    if (g.status === 'deleting') {
      this.groups.delete(id);
      return;
    }
    if (g.pending.nodeType) g.nodeType = g.pending.nodeType;
    if (g.pending.replicas !== undefined) g.replicas = g.pending.replicas;
    g.pending = {};
    g.status = 'available';
  }

  restore(): void {
    this.stub.restore();
  }
}

/** FakeSqs is SQS's queue API, in memory, in us-east-1. */
export class FakeSqs {
  readonly queues = new Map<string, { attributes: Record<string, string>; messages: string[] }>();
  readonly deletedRecently = new Set<string>();
  readonly calls: string[] = [];
  readonly stub: AwsStub<any, any, any>;
  private readonly failures = new Map<string, Error[]>();

  constructor(readonly endpoint = 'https://sqs.us-east-1.amazonaws.com') {
    this.stub = mockClient(SQSClient);
    this.stub.on(CreateQueueCommand).callsFake((input) => this.call('CreateQueue', () => this.create(input.QueueName, input.Attributes ?? {})));
    this.stub.on(GetQueueUrlCommand).callsFake((input) => this.call('GetQueueUrl', () => ({ QueueUrl: this.urlOf(this.named(input.QueueName)) })));
    this.stub.on(GetQueueAttributesCommand).callsFake((input) => this.call('GetQueueAttributes', () => this.attributes(input.QueueUrl)));
    this.stub.on(SetQueueAttributesCommand).callsFake((input) =>
      this.call('SetQueueAttributes', () => {
        Object.assign(this.queues.get(this.byUrl(input.QueueUrl))!.attributes, input.Attributes);
        return {};
      }),
    );
    this.stub.on(DeleteQueueCommand).callsFake((input) =>
      this.call('DeleteQueue', () => {
        const name = this.byUrl(input.QueueUrl);
        this.queues.delete(name);
        this.deletedRecently.add(name);
        return {};
      }),
    );
  }

  failNext(operation: string, err: Error): void {
    this.failures.set(operation, [...(this.failures.get(operation) ?? []), err]);
  }

  private call<T>(operation: string, run: () => T): T {
    this.calls.push(operation);
    const err = this.failures.get(operation)?.shift();
    if (err) throw err;
    return run();
  }

  urlOf(name: string): string {
    return `${this.endpoint}/${FAKE_ACCOUNT}/${name}`;
  }

  private missing(): Error {
    return new QueueDoesNotExist({ message: 'The specified queue does not exist.', ...meta(400) });
  }

  private named(name: string | undefined): string {
    if (!name || !this.queues.has(name)) throw this.missing();
    return name;
  }

  private byUrl(url: string | undefined): string {
    const name = (url ?? '').split('/').pop() ?? '';
    return this.named(name);
  }

  private create(name: string | undefined, attributes: Record<string, string>) {
    if (!name) throw new Error('no QueueName');
    if (this.deletedRecently.has(name))
      throw new QueueDeletedRecently({
        message: 'You must wait 60 seconds after deleting a queue before you can create another with the same name.',
        ...meta(400),
      });
    const existing = this.queues.get(name);
    const wanted = { MessageRetentionPeriod: '345600', VisibilityTimeout: '30', ...attributes };
    if (existing) {
      const same = Object.entries(wanted).every(([k, v]) => existing.attributes[k] === v);
      if (!same) throw new QueueNameExists({ message: 'A queue already exists with the same name and a different value for attribute(s).', ...meta(400) });
      return { QueueUrl: this.urlOf(name) };
    }
    if (name.endsWith('.fifo') !== (attributes.FifoQueue === 'true'))
      throw new SQSClientError(
        'InvalidParameterValue',
        'The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix.',
      );
    this.queues.set(name, {
      attributes: { ...wanted, QueueArn: `arn:aws:sqs:us-east-1:${FAKE_ACCOUNT}:${name}`, ApproximateNumberOfMessages: '0' },
      messages: [],
    });
    return { QueueUrl: this.urlOf(name) };
  }

  private attributes(url: string | undefined) {
    return { Attributes: { ...this.queues.get(this.byUrl(url))!.attributes } };
  }

  forgetDeleted(): void {
    this.deletedRecently.clear();
  }

  restore(): void {
    this.stub.restore();
  }
}

class SQSClientError extends Error {
  readonly $metadata = { httpStatusCode: 400 };
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** FakeSts answers for one access key (`accessKeyId`), as the user `arn:aws:iam::<account>:user/conductor`. */
export class FakeSts {
  readonly calls: { operation: string; input: any }[] = [];
  readonly stub: AwsStub<any, any, any>;
  private issued = 0;
  private readonly failures = new Map<string, Error[]>();

  constructor(
    readonly accessKeyId: string,
    readonly now: () => number = Date.now,
  ) {
    this.stub = mockClient(STSClient);
    this.stub
      .on(GetCallerIdentityCommand)
      .callsFake((input, getClient) =>
        this.call('GetCallerIdentity', input, getClient, (keyId) =>
          keyId.startsWith('ASIAROLE')
            ? { Arn: `arn:aws:sts::${FAKE_ACCOUNT}:assumed-role/conductor/conductor`, Account: FAKE_ACCOUNT, UserId: 'AROAEXAMPLE:conductor' }
            : { Arn: `arn:aws:iam::${FAKE_ACCOUNT}:user/conductor`, Account: FAKE_ACCOUNT, UserId: 'AIDAEXAMPLE' },
        ),
      );
    this.stub
      .on(AssumeRoleCommand)
      .callsFake((input, getClient) => this.call('AssumeRole', input, getClient, () => this.credentials('ASIAROLE', input.DurationSeconds ?? 3600)));
    this.stub
      .on(GetFederationTokenCommand)
      .callsFake((input, getClient) => this.call('GetFederationToken', input, getClient, () => this.credentials('ASIAFED', input.DurationSeconds ?? 43_200)));
  }

  failNext(operation: string, err: Error): void {
    this.failures.set(operation, [...(this.failures.get(operation) ?? []), err]);
  }

  private credentials(prefix: string, seconds: number) {
    this.issued += 1;
    const n = String(this.issued).padStart(8, '0');
    return {
      Credentials: {
        AccessKeyId: `${prefix}${n}EXAMPLE`,
        SecretAccessKey: `fake-secret-${n}-${'x'.repeat(20)}`,
        SessionToken: `fake-session-token-${n}`,
        Expiration: new Date(this.now() + seconds * 1000),
      },
    };
  }

  private async call(operation: string, input: any, getClient: () => any, answer: (keyId: string) => any) {
    this.calls.push({ operation, input });
    const err = this.failures.get(operation)?.shift();
    if (err) throw err;
    const credentials = getClient().config.credentials;
    const keys = typeof credentials === 'function' ? await credentials() : credentials;
    const keyId: string = keys?.accessKeyId ?? '';
    if (keyId !== this.accessKeyId && !keyId.startsWith('ASIAROLE')) {
      throw new STSServiceException({
        name: 'InvalidClientTokenId',
        $fault: 'client',
        message: 'The security token included in the request is invalid.',
        ...meta(403),
      });
    }
    return answer(keyId);
  }

  restore(): void {
    this.stub.restore();
  }
}
