export { azureProvider } from './provider.js';
export {
  createAzureProvider,
  blobContainerConcreteKind,
  storageQueueConcreteKind,
  postgresqlFlexibleServerConcreteKind,
  mysqlFlexibleServerConcreteKind,
  redisCacheConcreteKind,
  type AzureProvider,
  type AzureProviderOptions,
} from './azure-provider.js';
export {
  AZURE_STORAGE_GROUP,
  AZURE_MESSAGING_GROUP,
  AZURE_DATABASE_GROUP,
  AZURE_CACHE_GROUP,
  blobContainerKind,
  storageQueueKind,
  postgresqlFlexibleServerKind,
  mysqlFlexibleServerKind,
  redisCacheKind,
  flexibleServerSecretKeys,
  redisCacheSecretKeys,
  type PostgreSQLFlexibleServer,
  type MySQLFlexibleServer,
  type RedisCache,
  azureRefs,
  blobContainerSecretKeys,
  storageQueueSecretKeys,
  type BlobContainer,
  type StorageQueue,
} from './kinds.js';
export { azureCredentialsFrom, CredentialsError, type AzureCredentials, type StorageAccount, type ArmAccess } from './credentials.js';
export { checkAzure, providerSpecProblem } from './check.js';
export { AZURE_LOCATIONS, AZURE_REDUNDANCIES, BLOB_HOT_PRICES, QUEUE_PRICES, type PriceTable } from './price-table.js';
export { monthlyPrice, type MonthlyPrice } from './prices.js';
export { azureNameProblem, claimAzureName } from './names.js';
