/**
 * The running `aws` provider: S3Bucket, SQSQueue, RDSInstance and ElastiCacheReplicationGroup, whose connectors read the
 * Provider's credentials Secret and hand out an external client, and `check`. The AWS SDK
 * clients are imported by the first connect or check, not when the provider starts: a
 * Conductor with no aws Provider never loads them.
 */
import { kindNames } from '../kind-definition.js';
import type { ConcreteKind, ProviderModule } from '../spi.js';
import { checkAws } from './check.js';
import { elastiCacheReplicationGroupClaims, rdsInstanceClaims, s3BucketClaims, sqsQueueClaims } from './claims.js';
import { awsCredentialsFrom } from './credentials.js';
import {
  elastiCacheReplicationGroupKind,
  rdsInstanceKind,
  s3BucketKind,
  sqsQueueKind,
  type ElastiCacheReplicationGroup,
  type RDSInstance,
  type S3Bucket,
  type SQSQueue,
} from './kinds.js';
import type { PollSchedule } from './poll-schedule.js';

/** An AwsProvider is the module the controllers use. */
export interface AwsProvider extends ProviderModule {
  readonly type: 'aws';
}

/** s3BucketConcreteKind is the running S3Bucket kind. */
export function s3BucketConcreteKind(): ConcreteKind<S3Bucket> {
  return {
    ...kindNames(s3BucketKind),
    // The bucket's name follows from the resource (annotation, spec, or its namespace and name).
    deterministicExternalNames: true,
    implements: s3BucketClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = awsCredentialsFrom(context.credentials);
        const { S3BucketClient } = await import('./s3-bucket.js');
        return new S3BucketClient(credentials, context.provider);
      },
    },
  };
}

/** sqsQueueConcreteKind is the running SQSQueue kind. */
export function sqsQueueConcreteKind(): ConcreteKind<SQSQueue> {
  return {
    ...kindNames(sqsQueueKind),
    deterministicExternalNames: true,
    implements: sqsQueueClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = awsCredentialsFrom(context.credentials);
        const { SQSQueueClient } = await import('./sqs-queue.js');
        return new SQSQueueClient(credentials, context.provider);
      },
    },
  };
}

/** rdsInstanceConcreteKind is the running RDSInstance kind; its polls of busy instances back off (one schedule per running provider). */
export function rdsInstanceConcreteKind(options: { now?: () => number } = {}): ConcreteKind<RDSInstance> {
  let polls: PollSchedule | undefined;
  return {
    ...kindNames(rdsInstanceKind),
    deterministicExternalNames: true,
    implements: rdsInstanceClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = awsCredentialsFrom(context.credentials);
        const { RDSInstanceClient, rdsPollSchedule } = await import('./rds-instance.js');
        polls ??= rdsPollSchedule(options.now);
        return new RDSInstanceClient(credentials, context.provider, polls);
      },
    },
  };
}

/** elastiCacheReplicationGroupConcreteKind is the running ElastiCacheReplicationGroup kind; its polls of busy groups back off (one schedule per running provider). */
export function elastiCacheReplicationGroupConcreteKind(options: { now?: () => number } = {}): ConcreteKind<ElastiCacheReplicationGroup> {
  let polls: PollSchedule | undefined;
  return {
    ...kindNames(elastiCacheReplicationGroupKind),
    deterministicExternalNames: true,
    implements: elastiCacheReplicationGroupClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const credentials = awsCredentialsFrom(context.credentials);
        const { ElastiCacheReplicationGroupClient, elastiCachePollSchedule } = await import('./elasticache-replication-group.js');
        polls ??= elastiCachePollSchedule(options.now);
        return new ElastiCacheReplicationGroupClient(credentials, context.provider, polls);
      },
    },
  };
}

/** createAwsProvider returns the running provider. */
export function createAwsProvider(): AwsProvider {
  return {
    type: 'aws',
    kinds: [s3BucketConcreteKind(), sqsQueueConcreteKind(), rdsInstanceConcreteKind(), elastiCacheReplicationGroupConcreteKind()],
    // A class naming no Provider is placed on one of the aws Providers (by region, cost, capacity).
    placedAcrossProviders: true,
    check: checkAws,
  };
}
