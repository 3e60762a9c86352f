/**
 * The running `azure` provider: BlobContainer and StorageQueue, whose connectors read the
 * Provider's credentials Secret into a storage account and hand out an external client of it;
 * PostgreSQLFlexibleServer, MySQLFlexibleServer and RedisCache, whose connectors read it into
 * ARM access (a service principal, subscription and resource group); and `check`. The Azure SDKs (about half a second to load) are imported by the first connect
 * or check, not when the provider starts: a Conductor with no azure Provider never loads them.
 */
import { kindNames } from '../kind-definition.js';
import type { ConcreteKind, ProviderModule } from '../spi.js';
import { checkAzure } from './check.js';
import type { ArmHttpClient } from './arm-clients.js';
import { blobContainerClaims, mysqlFlexibleServerClaims, postgresqlFlexibleServerClaims, redisCacheClaims, storageQueueClaims } from './claims.js';
import { armAccessOf, azureCredentialsFrom, storageAccountOf } from './credentials.js';
import {
  blobContainerKind,
  mysqlFlexibleServerKind,
  postgresqlFlexibleServerKind,
  redisCacheKind,
  storageQueueKind,
  type BlobContainer,
  type MySQLFlexibleServer,
  type PostgreSQLFlexibleServer,
  type RedisCache,
  type StorageQueue,
} from './kinds.js';
import { Operations } from './operations.js';

/** An AzureProvider is the module the controllers use. */
export interface AzureProvider extends ProviderModule {
  readonly type: 'azure';
}

export interface AzureProviderOptions {
  /** The clock SAS windows are taken from (tests). */
  now?: () => Date;
  /** The HTTP client of the ARM and Entra ID calls (tests: one trusting the test CA of a fake). */
  httpClient?: ArmHttpClient;
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
        const account = storageAccountOf(azureCredentialsFrom(context.credentials));
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
        const account = storageAccountOf(azureCredentialsFrom(context.credentials));
        const { StorageQueueClient } = await import('./storage-queue.js');
        context.signal?.throwIfAborted();
        return new StorageQueueClient(account, context.provider, options);
      },
    },
  };
}

const armOptions = (options: AzureProviderOptions) => (options.httpClient ? { httpClient: options.httpClient } : {});

/** flexibleServerConcreteKind is the running PostgreSQLFlexibleServer or MySQLFlexibleServer kind. */
function flexibleServerConcreteKind<T extends PostgreSQLFlexibleServer | MySQLFlexibleServer>(
  engine: 'postgres' | 'mysql',
  options: AzureProviderOptions,
): ConcreteKind<T> {
  const operations = new Operations();
  const definition = engine === 'postgres' ? postgresqlFlexibleServerKind : mysqlFlexibleServerKind;
  return {
    ...kindNames(definition),
    // The server's name follows from the resource (annotation, spec or its namespace and name).
    deterministicExternalNames: true,
    implements: engine === 'postgres' ? postgresqlFlexibleServerClaims : mysqlFlexibleServerClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const access = armAccessOf(azureCredentialsFrom(context.credentials));
        const [{ armClientsOf }, { FlexibleServerClient, postgresEngine, mysqlEngine }] = await Promise.all([
          import('./arm-clients.js'),
          import('./flexible-server.js'),
        ]);
        context.signal?.throwIfAborted();
        const clients = armClientsOf(access, armOptions(options));
        return new FlexibleServerClient(access, engine === 'postgres' ? postgresEngine(clients) : mysqlEngine(clients), context.provider, operations);
      },
    },
  };
}

/** postgresqlFlexibleServerConcreteKind is the running PostgreSQLFlexibleServer kind. */
export const postgresqlFlexibleServerConcreteKind = (options: AzureProviderOptions = {}) =>
  flexibleServerConcreteKind<PostgreSQLFlexibleServer>('postgres', options);
/** mysqlFlexibleServerConcreteKind is the running MySQLFlexibleServer kind. */
export const mysqlFlexibleServerConcreteKind = (options: AzureProviderOptions = {}) => flexibleServerConcreteKind<MySQLFlexibleServer>('mysql', options);

/** redisCacheConcreteKind is the running RedisCache kind. */
export function redisCacheConcreteKind(options: AzureProviderOptions = {}): ConcreteKind<RedisCache> {
  return {
    ...kindNames(redisCacheKind),
    deterministicExternalNames: true,
    implements: redisCacheClaims,
    connector: {
      async connect(_resource, context) {
        context.signal?.throwIfAborted();
        const access = armAccessOf(azureCredentialsFrom(context.credentials));
        const [{ armClientsOf }, { RedisCacheClient }] = await Promise.all([import('./arm-clients.js'), import('./redis-cache.js')]);
        context.signal?.throwIfAborted();
        return new RedisCacheClient(access, armClientsOf(access, armOptions(options)), context.provider);
      },
    },
  };
}

/** createAzureProvider returns the running provider. */
export function createAzureProvider(options: AzureProviderOptions = {}): AzureProvider {
  return {
    type: 'azure',
    kinds: [
      blobContainerConcreteKind(options),
      storageQueueConcreteKind(options),
      postgresqlFlexibleServerConcreteKind(options),
      mysqlFlexibleServerConcreteKind(options),
      redisCacheConcreteKind(options),
    ],
    // A class naming no Provider is placed on one of the azure Providers (by region, cost, capacity).
    placedAcrossProviders: true,
    check: (provider, context) => checkAzure(provider, context, armOptions(options)),
  };
}
