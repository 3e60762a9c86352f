/**
 * The `aws` provider's kinds, each defined once (CRD, ResourceRef, TypeScript type):
 * - S3Bucket (storage.aws.conductor.io): an S3 bucket; implements Bucket claims;
 * - SQSQueue (messaging.aws.conductor.io): an SQS queue; implements MessageQueue claims;
 * - RDSInstance (database.aws.conductor.io): an RDS DB instance (PostgreSQL or MySQL);
 *   implements PostgreSQLInstance and MySQLInstance claims;
 * - ElastiCacheReplicationGroup (cache.aws.conductor.io): an ElastiCache for Redis OSS
 *   replication group (cluster mode disabled: a primary and its replicas); implements
 *   RedisCluster claims.
 */
import { s } from '../../apis/schema/builder.js';
import type { ObjectOf } from '../../apis/schema/kind.js';
import { BUCKET_CONNECTION_KEYS, bucketKind, mysqlInstanceKind, postgresqlInstanceKind, SQL_CONNECTION_KEYS } from '../../apis/storage/kinds.js';
import { MESSAGE_QUEUE_CONNECTION_KEYS, messageQueueKind } from '../../apis/messaging/kinds.js';
import { REDIS_CONNECTION_KEYS, REDIS_EVICTION_POLICIES, redisClusterKind } from '../../apis/cache/kinds.js';
import { V1ALPHA1 } from '../../apis/well-known.js';
import type { GroupKind } from '../spi.js';
import { defineProviderKind } from '../kind-definition.js';
import { BUCKET_NAME_PATTERN, INSTANCE_ID_PATTERN, QUEUE_NAME_PATTERN, REPLICATION_GROUP_ID_PATTERN } from './names.js';
import { AWS_REGIONS, ELASTICACHE_NODE_TYPES, ELASTICACHE_REDIS_VERSIONS, RDS_ENGINES, RDS_INSTANCE_CLASSES, RDS_STORAGE_TYPES } from './price-table.js';

export const AWS_STORAGE_GROUP = 'storage.aws.conductor.io';
export const AWS_MESSAGING_GROUP = 'messaging.aws.conductor.io';
export const AWS_DATABASE_GROUP = 'database.aws.conductor.io';
export const AWS_CACHE_GROUP = 'cache.aws.conductor.io';

export const bucketClaimKind: GroupKind = { group: bucketKind.group, kind: bucketKind.kind };
export const messageQueueClaimKind: GroupKind = { group: messageQueueKind.group, kind: messageQueueKind.kind };
export const postgresqlClaimKind: GroupKind = { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind };
export const mysqlClaimKind: GroupKind = { group: mysqlInstanceKind.group, kind: mysqlInstanceKind.kind };
export const redisClaimKind: GroupKind = { group: redisClusterKind.group, kind: redisClusterKind.kind };

/** The keys a claim's temporary AWS keys come with. */
const TEMPORARY_KEYS = ['sessionToken', 'credentialsExpireAt'] as const;

/** What a Bucket claim's Secret holds from an S3Bucket: the claim kind's keys, then AWS's own. */
export const s3BucketSecretKeys = [...BUCKET_CONNECTION_KEYS, ...TEMPORARY_KEYS, 'bucketArn'] as const;
/** What a MessageQueue claim's Secret holds from an SQSQueue. */
export const sqsQueueSecretKeys = [
  ...MESSAGE_QUEUE_CONNECTION_KEYS,
  'queueUrl',
  'queueArn',
  'region',
  'accessKeyId',
  'secretAccessKey',
  ...TEMPORARY_KEYS,
] as const;
/** What a PostgreSQLInstance or MySQLInstance claim's Secret holds from an RDSInstance. */
export const rdsInstanceSecretKeys = [...SQL_CONNECTION_KEYS, 'engine', 'instanceIdentifier'] as const;
/**
 * What a RedisCluster claim's Secret holds from an ElastiCacheReplicationGroup: host and port
 * of the primary endpoint, password the AUTH token, uri (`rediss://` when transit encryption
 * is on), then `tls` ("true"/"false"), `readerHost` (the reader endpoint, the replicas; empty
 * without replicas) and `replicationGroupId`.
 */
export const elastiCacheReplicationGroupSecretKeys = [...REDIS_CONNECTION_KEYS, 'tls', 'readerHost', 'replicationGroupId'] as const;

const region = s
  .enumOf(AWS_REGIONS)
  .describe(
    "The AWS region (e.g. eu-west-1): the resource's capabilities.region and the region its price is looked up for. Default: the Provider's spec.region.",
  )
  .optional();

export const s3BucketKind = defineProviderKind({
  group: AWS_STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'S3Bucket',
  plural: 's3buckets',
  shortNames: ['s3b'],
  description:
    'An S3Bucket is an Amazon S3 bucket in the account its Provider (type aws) reaches. Its name is recorded before it is created, and create treats a bucket this account already owns as done, so a create repeated after a crash finds the bucket; Delete empties and removes it. ' +
    "For a Bucket claim, endpoint is the S3 endpoint of the region, bucket the bucket and accessKeyId/secretAccessKey/sessionToken temporary keys that reach only this bucket (the Provider's own keys when its Secret says claimCredentials: provider).",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: bucketKind, portableKeys: BUCKET_CONNECTION_KEYS, connectionSecretKeys: s3BucketSecretKeys }],
  fields: {
    forProvider: s
      .object({
        bucketName: s
          .string({ minLength: 3, maxLength: 63, pattern: BUCKET_NAME_PATTERN })
          .rules({ rule: "!self.contains('..')", message: 'a bucket name has no two dots in a row' })
          .describe(
            "The bucket's name: 3 to 63 lower-case letters, digits, dots and hyphens, beginning and ending with a letter or digit; unique across all of AWS. Default: one derived from the resource's namespace and name (provisioned resources: the claim's). The annotation conductor.io/external-name, when set, names an existing bucket to import.",
          )
          .optional(),
        region,
        versioning: s
          .boolean()
          .withDefault(false)
          .describe('Keep every version of each object (S3 versioning; once on, it can only be suspended, so turning it off is not done).'),
      })
      .describe('The bucket in AWS.')
      .optional(),
  },
});
export type S3Bucket = ObjectOf<typeof s3BucketKind>;

export const sqsQueueKind = defineProviderKind({
  group: AWS_MESSAGING_GROUP,
  version: V1ALPHA1,
  kind: 'SQSQueue',
  plural: 'sqsqueues',
  shortNames: ['sqs'],
  description:
    'An SQSQueue is an Amazon SQS queue in the account its Provider (type aws) reaches. Created by name (CreateQueue is idempotent for the same attributes), its retention and visibility timeout corrected, deleted by name. ' +
    "For a MessageQueue claim, endpoint is the SQS endpoint of the region, queue the queue name and queueUrl its URL, with temporary keys that reach only this queue (the Provider's own keys when its Secret says claimCredentials: provider).",
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: messageQueueKind, portableKeys: MESSAGE_QUEUE_CONNECTION_KEYS, connectionSecretKeys: sqsQueueSecretKeys }],
  fields: {
    forProvider: s
      .object({
        queueName: s
          .string({ minLength: 1, maxLength: 80, pattern: QUEUE_NAME_PATTERN })
          .describe(
            "The queue's name: up to 80 letters, digits, hyphens and underscores; a FIFO queue's ends in .fifo. Default: one derived from the resource's namespace and name. The annotation conductor.io/external-name, when set, names an existing queue to import.",
          )
          .optional(),
        region,
        fifo: s
          .boolean()
          .withDefault(false)
          .describe('A FIFO queue (first-in-first-out, exactly-once processing); its name ends in .fifo. Cannot be changed after creation.'),
        messageRetentionSeconds: s
          .integer({ minimum: 60, maximum: 1_209_600 })
          .withDefault(345_600)
          .describe('How long SQS keeps a message: 60 seconds to 14 days (default 4 days).'),
        visibilityTimeoutSeconds: s
          .integer({ minimum: 0, maximum: 43_200 })
          .withDefault(30)
          .describe('How long a received message is hidden from other receivers: 0 to 12 hours (default 30 s).'),
      })
      .describe('The queue in AWS.')
      .optional(),
  },
});
export type SQSQueue = ObjectOf<typeof sqsQueueKind>;

export const rdsInstanceKind = defineProviderKind({
  group: AWS_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'RDSInstance',
  plural: 'rdsinstances',
  shortNames: ['rds'],
  description:
    'An RDSInstance is an Amazon RDS DB instance (PostgreSQL or MySQL) in the account its Provider (type aws) reaches. Its identifier is recorded before it is created, so a create repeated after a crash finds the instance; creating, modifying and deleting are polled with backoff until the instance is available or gone. ' +
    "The master password is generated by Conductor (derived from a key in the Provider's Secret, so it survives a crash between create and publishing) and never logged. " +
    'For a PostgreSQLInstance or MySQLInstance claim, host and port are the instance endpoint, username and password its master user, database the database created with it.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [
    { claim: postgresqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: rdsInstanceSecretKeys },
    { claim: mysqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: rdsInstanceSecretKeys },
  ],
  fields: {
    forProvider: s
      .object({
        instanceIdentifier: s
          .string({ minLength: 1, maxLength: 63, pattern: INSTANCE_ID_PATTERN })
          .rules({ rule: "!self.contains('--')", message: 'a DB instance identifier has no two hyphens in a row' })
          .describe(
            "The DB instance identifier: 1 to 63 letters, digits and hyphens, beginning with a letter. Default: one derived from the resource's namespace and name. The annotation conductor.io/external-name, when set, names an existing instance to import.",
          )
          .optional(),
        region,
        engine: s.enumOf(RDS_ENGINES).describe('postgres or mysql (a PostgreSQLInstance claim gets postgres, a MySQLInstance mysql).'),
        engineVersion: s
          .string({ maxLength: 32, pattern: '^[0-9]+(\\.[0-9]+){0,2}$' })
          .describe("The engine version (e.g. 16.3 or 8.0.36); default: RDS's default for the engine.")
          .optional(),
        instanceClass: s.enumOf(RDS_INSTANCE_CLASSES).withDefault('db.t4g.micro').describe('The DB instance class.'),
        allocatedStorageGi: s.integer({ minimum: 20, maximum: 65_536 }).withDefault(20).describe('Storage in GiB (20 to 65536); it can grow, never shrink.'),
        storageType: s.enumOf(RDS_STORAGE_TYPES).withDefault('gp3').describe('gp3 or gp2 general-purpose SSD.'),
        multiAZ: s.boolean().withDefault(false).describe('A standby in another availability zone.'),
        publiclyAccessible: s.boolean().withDefault(false).describe('Whether the endpoint resolves to a public address.'),
        masterUsername: s
          .string({ minLength: 1, maxLength: 16, pattern: '^[A-Za-z][A-Za-z0-9_]*$' })
          .withDefault('conductor')
          .describe('The master user: a letter, then letters, digits and underscores; at most 16 characters.'),
        databaseName: s
          .string({ minLength: 1, maxLength: 63, pattern: '^[A-Za-z][A-Za-z0-9_]*$' })
          .withDefault('app')
          .describe('The database created with the instance: a letter, then letters, digits and underscores.'),
        dbSubnetGroupName: s
          .string({ maxLength: 255, pattern: '^[A-Za-z0-9 ._-]+$' })
          .describe('The DB subnet group (its VPC); default: the default VPC.')
          .optional(),
        vpcSecurityGroupIds: s
          .array(s.string({ pattern: '^sg-[0-9a-f]{8,17}$' }), { maxItems: 5 })
          .describe('VPC security groups; default: the VPC default group.')
          .optional(),
        finalSnapshot: s
          .boolean()
          .withDefault(false)
          .describe('Whether deleting the instance (rebindPolicy Delete) first takes a final snapshot, named <identifier>-final.'),
      })
      .describe('The DB instance in AWS.'),
  },
});
export type RDSInstance = ObjectOf<typeof rdsInstanceKind>;

export const elastiCacheReplicationGroupKind = defineProviderKind({
  group: AWS_CACHE_GROUP,
  version: V1ALPHA1,
  kind: 'ElastiCacheReplicationGroup',
  plural: 'elasticachereplicationgroups',
  shortNames: ['ecrg'],
  description:
    'An ElastiCacheReplicationGroup is an Amazon ElastiCache for Redis OSS replication group (cluster mode disabled: a primary and its replicas) in the account its Provider (type aws) reaches. Its ID is recorded before it is created, and a group of that ID made for this resource (by its tag) counts as created, so a create repeated after a crash finds it; creating, modifying and deleting are polled with backoff until the group is available or gone. ' +
    "Transit encryption is always on for groups Conductor creates, with an AUTH token generated by Conductor (derived from a key in the Provider's Secret) and never logged. " +
    'For a RedisCluster claim, host and port are the primary endpoint, password the AUTH token, uri a rediss:// URI; tls says whether the endpoint speaks TLS, readerHost is the reader endpoint (the replicas) and replicationGroupId the group.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: redisClusterKind, portableKeys: REDIS_CONNECTION_KEYS, connectionSecretKeys: elastiCacheReplicationGroupSecretKeys }],
  fields: {
    forProvider: s
      .object({
        replicationGroupId: s
          .string({ minLength: 1, maxLength: 40, pattern: REPLICATION_GROUP_ID_PATTERN })
          .rules({ rule: "!self.contains('--')", message: 'a replication group ID has no two hyphens in a row' })
          .describe(
            "The replication group ID: 1 to 40 letters, digits and hyphens, beginning with a letter (ElastiCache stores it in lower case). Default: one derived from the resource's namespace and name. The annotation conductor.io/external-name, when set, names an existing group to import.",
          )
          .optional(),
        region,
        engineVersion: s
          .enumOf(ELASTICACHE_REDIS_VERSIONS)
          .describe("The Redis OSS version (6.2, 7.0 or 7.1); default: ElastiCache's default. Set when the group is created.")
          .optional(),
        nodeType: s
          .enumOf(ELASTICACHE_NODE_TYPES)
          .withDefault('cache.t4g.micro')
          .describe('The node type of every node (its memory: cache.t4g.micro 0.5 GiB … cache.r7g.xlarge 26.32 GiB); changed by scaling the group.'),
        replicas: s
          .integer({ minimum: 0, maximum: 5 })
          .withDefault(1)
          .describe('Read replicas beside the primary (0 to 5). With one or more, automatic failover and Multi-AZ are on.'),
        evictionPolicy: s
          .enumOf(REDIS_EVICTION_POLICIES)
          .withDefault('volatile-lru')
          .describe(
            "The maxmemory-policy of the group's parameter group, as a RedisCluster claim is matched against it: volatile-lru for ElastiCache's default parameter groups. Conductor does not create parameter groups: for another policy, name a parameter group that sets it (parameterGroupName) and state it here.",
          ),
        parameterGroupName: s
          .string({ maxLength: 255, pattern: '^[A-Za-z][A-Za-z0-9.-]*$' })
          .describe("The cache parameter group; default: ElastiCache's default group for the engine version.")
          .optional(),
        cacheSubnetGroupName: s
          .string({ maxLength: 255, pattern: '^[A-Za-z0-9 ._-]+$' })
          .describe('The cache subnet group (its VPC); default: the default VPC.')
          .optional(),
        securityGroupIds: s
          .array(s.string({ pattern: '^sg-[0-9a-f]{8,17}$' }), { maxItems: 5 })
          .describe('VPC security groups; default: the VPC default group.')
          .optional(),
        finalSnapshot: s
          .boolean()
          .withDefault(false)
          .describe('Whether deleting the group (rebindPolicy Delete) first takes a final snapshot, named <ID>-final. Retain keeps the group itself.'),
      })
      .describe('The replication group in AWS.')
      .optional(),
  },
});
export type ElastiCacheReplicationGroup = ObjectOf<typeof elastiCacheReplicationGroupKind>;

/** The aws provider's ResourceRefs, by plural. */
export const awsRefs = {
  s3buckets: s3BucketKind.ref,
  sqsqueues: sqsQueueKind.ref,
  rdsinstances: rdsInstanceKind.ref,
  elasticachereplicationgroups: elastiCacheReplicationGroupKind.ref,
} as const;
