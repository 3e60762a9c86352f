/**
 * The running `azure` provider: BlobContainer and StorageQueue, whose connectors read the
 * Provider's credentials Secret into a storage account and hand out an external client of it,
 * and `check`. Loaded by `start` only, with the Azure SDKs.
 */
import { kindNames } from '../kind-definition.js';
import type { ConcreteKind, ProviderModule } from '../spi.js';
import { BlobContainerClient } from './blob-container.js';
import { checkAzure } from './check.js';
import { blobContainerClaims, storageQueueClaims } from './claims.js';
import { azureCredentialsFrom } from './credentials.js';
import { blobContainerKind, storageQueueKind, type BlobContainer, type StorageQueue } from './kinds.js';
import { StorageQueueClient } from './storage-queue.js';

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
        return new BlobContainerClient(azureCredentialsFrom(context.credentials).storage, context.provider, options);
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
        return new StorageQueueClient(azureCredentialsFrom(context.credentials).storage, context.provider, options);
      },
    },
  };
}

/** createAzureProvider returns the running provider. */
export function createAzureProvider(options: AzureProviderOptions = {}): AzureProvider {
  return {
    type: 'azure',
    kinds: [blobContainerConcreteKind(options), storageQueueConcreteKind(options)],
    check: checkAzure,
  };
}
