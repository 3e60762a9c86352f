/**
 * The `aws` provider's one value (`awsProvider`): its kinds, defined in `kinds.ts`, and
 * `start`. Only the definitions load with this module; the AWS SDK loads with the first use.
 */
import { defineProvider } from '../kind-definition.js';
import type { ProviderStartOptions } from '../spi.js';
import type { AwsProvider } from './aws-provider.js';
import { elastiCacheReplicationGroupKind, rdsInstanceKind, s3BucketKind, sqsQueueKind } from './kinds.js';

/** The `aws` provider: S3Bucket, SQSQueue, RDSInstance and ElastiCacheReplicationGroup, and `start` (createAwsProvider). */
export const awsProvider = defineProvider({
  name: 'aws',
  type: 'aws',
  kinds: [s3BucketKind, sqsQueueKind, rdsInstanceKind, elastiCacheReplicationGroupKind],
  async start(_options: ProviderStartOptions): Promise<AwsProvider> {
    const { createAwsProvider } = await import('./aws-provider.js');
    return createAwsProvider();
  },
});
