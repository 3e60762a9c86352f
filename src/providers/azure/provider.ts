/**
 * The `azure` provider's one value (`azureProvider`): its kinds, defined in `kinds.ts`, and
 * `start`. Only the definitions load with this module; the Azure SDKs load with `start`.
 */
import { defineProvider } from '../kind-definition.js';
import type { ProviderStartOptions } from '../spi.js';
import type { AzureProvider } from './azure-provider.js';
import { blobContainerKind, mysqlFlexibleServerKind, postgresqlFlexibleServerKind, redisCacheKind, storageQueueKind } from './kinds.js';

/** The `azure` provider: BlobContainer, StorageQueue, PostgreSQLFlexibleServer, MySQLFlexibleServer and RedisCache, and `start` (createAzureProvider). */
export const azureProvider = defineProvider({
  name: 'azure',
  type: 'azure',
  kinds: [blobContainerKind, storageQueueKind, postgresqlFlexibleServerKind, mysqlFlexibleServerKind, redisCacheKind],
  async start(_options: ProviderStartOptions): Promise<AzureProvider> {
    const { createAzureProvider } = await import('./azure-provider.js');
    return createAzureProvider();
  },
});
