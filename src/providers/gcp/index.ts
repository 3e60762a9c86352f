export { gcpProvider } from './provider.js';
export { createGcpProvider, pubSubTopicConcreteKind, spannerDatabaseConcreteKind, type GcpProvider } from './gcp-provider.js';
export {
  GCP_MESSAGING_GROUP,
  GCP_DATABASE_GROUP,
  pubSubTopicKind,
  spannerDatabaseKind,
  gcpRefs,
  pubSubTopicSecretKeys,
  spannerDatabaseSecretKeys,
  type PubSubTopic,
  type SpannerDatabase,
} from './kinds.js';
export { gcpCredentialsFrom, CredentialsError, type GcpCredentials, type ServiceAccountKey, type ServiceEndpoint } from './credentials.js';
export { checkGcp, providerSpecProblem } from './check.js';
export { GCP_REGIONS, PUBSUB_PRICES, SPANNER_PRICES, type PubSubPriceTable, type SpannerPriceTable } from './price-table.js';
export { pubSubMonthlyPrice, spannerMonthlyPrice, type MonthlyPrice } from './prices.js';
export { gcpNameProblem, claimGcpName } from './names.js';
