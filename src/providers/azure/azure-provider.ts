/**
 * The running `azure` provider: BlobContainer and StorageQueue, whose connectors read the
 * Provider's credentials Secret into a storage account and hand out an external client of it,
 * and `check`. The Azure SDKs (about half a second to load) are imported by the first connect
 * or check, not when the provider starts: a Conductor with no azure Provider never loads them.
 */
import { kindNames } from '../kind-definition.js';
import type { ConcreteKind, ProviderModule } from '../spi.js';
import { checkAzure } from './check.js';
import { blobContainerClaims, storageQueueClaims } from './claims.js';
import { azureCredentialsFrom } from './credentials.js';
import { blobContainerKind, storageQueueKind, type BlobContainer, type StorageQueue } from './kinds.js';

/** An AzureProvider is the module the controllers use. */
export interface AzureProvider extends ProviderModule {
  readonly type: 'azure';
}

export interface AzureProviderOptions {
  /** The clock SAS windows are taken from (tests). */
  now?: () => Date;
}

/** blobContainerConcreteKind is the running BlobContainer kind. */
export function blobContainerConcreteKind(options: AzureProviderOptions = {}): ConcreteKind<BlobContainer> {
  return {
    ...kindNames(blobContainerKind),
    // The container's name follows from the resource (annotation, spec or its own name).
    deterministicExternalNames: true,
    implements: blobContainerClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const account = azureCredentialsFrom(context.credentials).storage;
        const { BlobContainerClient } = await import('./blob-container.js');
        context.signal?.throwIfAborted();
        return new BlobContainerClient(account, context.provider, options);
      },
    },
  };
}

/** storageQueueConcreteKind is the running StorageQueue kind. */
export function storageQueueConcreteKind(options: AzureProviderOptions = {}): ConcreteKind<StorageQueue> {
  return {
    ...kindNames(storageQueueKind),
    deterministicExternalNames: true,
    implements: storageQueueClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const account = azureCredentialsFrom(context.credentials).storage;
        const { StorageQueueClient } = await import('./storage-queue.js');
        context.signal?.throwIfAborted();
        return new StorageQueueClient(account, context.provider, options);
      },
    },
  };
}

/** createAzureProvider returns the running provider. */
export function createAzureProvider(options: AzureProviderOptions = {}): AzureProvider {
  return {
    type: 'azure',
    kinds: [blobContainerConcreteKind(options), storageQueueConcreteKind(options)],
    // A class naming no Provider is placed on one of the azure Providers (by region, cost, capacity).
    placedAcrossProviders: true,
    check: checkAzure,
  };
}
