export { gcpProvider } from './provider.js';
export {
  createGcpProvider,
  pubSubTopicConcreteKind,
  spannerDatabaseConcreteKind,
  cloudSqlInstanceConcreteKind,
  memorystoreInstanceConcreteKind,
  gcsBucketConcreteKind,
  type GcpProvider,
} from './gcp-provider.js';
export {
  GCP_MESSAGING_GROUP,
  GCP_DATABASE_GROUP,
  GCP_CACHE_GROUP,
  GCP_STORAGE_GROUP,
  pubSubTopicKind,
  cloudSqlInstanceKind,
  memorystoreInstanceKind,
  gcsBucketKind,
  cloudSqlInstanceSecretKeys,
  memorystoreInstanceSecretKeys,
  gcsBucketSecretKeys,
  type CloudSQLInstance,
  type MemorystoreInstance,
  type GCSBucket,
  spannerDatabaseKind,
  gcpRefs,
  pubSubTopicSecretKeys,
  spannerDatabaseSecretKeys,
  type PubSubTopic,
  type SpannerDatabase,
} from './kinds.js';
export { gcpCredentialsFrom, CredentialsError, type GcpCredentials, type ServiceAccountKey, type ServiceEndpoint } from './credentials.js';
export { checkGcp, providerSpecProblem } from './check.js';
export {
  GCP_REGIONS,
  PUBSUB_PRICES,
  SPANNER_PRICES,
  CLOUD_SQL_PRICES,
  MEMORYSTORE_PRICES,
  GCS_PRICES,
  type PubSubPriceTable,
  type SpannerPriceTable,
  type CloudSqlPriceTable,
  type MemorystorePriceTable,
  type GcsPriceTable,
} from './price-table.js';
export { pubSubMonthlyPrice, spannerMonthlyPrice, cloudSqlMonthlyPrice, memorystoreMonthlyPrice, gcsMonthlyPrice, type MonthlyPrice } from './prices.js';
export { gcpNameProblem, claimGcpName } from './names.js';
