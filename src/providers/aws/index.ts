export { awsProvider } from './provider.js';
export {
  createAwsProvider,
  s3BucketConcreteKind,
  sqsQueueConcreteKind,
  rdsInstanceConcreteKind,
  elastiCacheReplicationGroupConcreteKind,
  type AwsProvider,
} from './aws-provider.js';
export {
  AWS_STORAGE_GROUP,
  AWS_MESSAGING_GROUP,
  AWS_DATABASE_GROUP,
  AWS_CACHE_GROUP,
  s3BucketKind,
  sqsQueueKind,
  rdsInstanceKind,
  elastiCacheReplicationGroupKind,
  awsRefs,
  s3BucketSecretKeys,
  sqsQueueSecretKeys,
  rdsInstanceSecretKeys,
  elastiCacheReplicationGroupSecretKeys,
  type S3Bucket,
  type SQSQueue,
  type RDSInstance,
  type ElastiCacheReplicationGroup,
} from './kinds.js';
export { awsCredentialsFrom, CredentialsError, type AwsCredentials } from './credentials.js';
export { checkAws, providerSpecProblem } from './check.js';
export { AWS_REGIONS, RDS_INSTANCE_CLASSES, RDS_PRICES, S3_STANDARD_PRICES, ELASTICACHE_NODE_TYPES, ELASTICACHE_PRICES } from './price-table.js';
export { s3MonthlyPrice, rdsMonthlyPrice, elastiCacheMonthlyPrice, type MonthlyPrice } from './prices.js';
export { awsNameProblem, claimAwsName } from './names.js';
