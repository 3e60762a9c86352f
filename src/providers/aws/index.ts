export { awsProvider } from './provider.js';
export { createAwsProvider, s3BucketConcreteKind, sqsQueueConcreteKind, rdsInstanceConcreteKind, type AwsProvider } from './aws-provider.js';
export {
  AWS_STORAGE_GROUP,
  AWS_MESSAGING_GROUP,
  AWS_DATABASE_GROUP,
  s3BucketKind,
  sqsQueueKind,
  rdsInstanceKind,
  awsRefs,
  s3BucketSecretKeys,
  sqsQueueSecretKeys,
  rdsInstanceSecretKeys,
  type S3Bucket,
  type SQSQueue,
  type RDSInstance,
} from './kinds.js';
export { awsCredentialsFrom, CredentialsError, type AwsCredentials } from './credentials.js';
export { checkAws, providerSpecProblem } from './check.js';
export { AWS_REGIONS, RDS_INSTANCE_CLASSES, RDS_PRICES, S3_STANDARD_PRICES } from './price-table.js';
export { s3MonthlyPrice, rdsMonthlyPrice, type MonthlyPrice } from './prices.js';
export { awsNameProblem, claimAwsName } from './names.js';
