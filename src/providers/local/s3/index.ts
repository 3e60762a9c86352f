export { bucketClaim, bucketSecretKeys, defaultRegion, LOCAL_STORAGE_GROUP, s3ServerKind, s3Refs, s3rverKeyPair, type S3Server } from './kinds.js';
export { s3ServerConcreteKind, S3ServerClient } from './s3-server.js';
export {
  S3Servers,
  resolveS3rver,
  endpointFor,
  s3ServersDirEnv,
  type S3rverProgram,
  type S3ServersOptions,
  type S3ServerStatus,
  type ServerState,
} from './s3-servers.js';
export { S3Admin, S3Error, type S3AdminOptions } from './s3-admin.js';
export { bucketName, bucketNameProblem } from './names.js';
export { formatBucketConnection, bucketDetails, type BucketEndpoint } from './connection.js';
export { matchS3Server, configureS3Server } from './matchers.js';
export type { KeyPair } from './sigv4.js';
export { createS3Kinds, type S3Kinds, type S3KindsOptions } from './s3-kinds.js';
