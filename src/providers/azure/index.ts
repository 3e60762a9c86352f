export { azureProvider } from './provider.js';
export { createAzureProvider, blobContainerConcreteKind, storageQueueConcreteKind, type AzureProvider, type AzureProviderOptions } from './azure-provider.js';
export {
  AZURE_STORAGE_GROUP,
  AZURE_MESSAGING_GROUP,
  blobContainerKind,
  storageQueueKind,
  azureRefs,
  blobContainerSecretKeys,
  storageQueueSecretKeys,
  type BlobContainer,
  type StorageQueue,
} from './kinds.js';
export { azureCredentialsFrom, CredentialsError, type AzureCredentials, type StorageAccount } from './credentials.js';
export { checkAzure, providerSpecProblem } from './check.js';
export { AZURE_LOCATIONS, AZURE_REDUNDANCIES, BLOB_HOT_PRICES, QUEUE_PRICES, type PriceTable } from './price-table.js';
export { monthlyPrice, type MonthlyPrice } from './prices.js';
export { azureNameProblem, claimAzureName } from './names.js';
