/**
 * The `azure` provider's kinds, each defined once (CRD, ResourceRef, TypeScript type):
 * - BlobContainer (storage.azure.conductor.io): a container in the storage account the
 *   Provider's credentials reach; implements Bucket claims;
 * - StorageQueue (messaging.azure.conductor.io): a queue in that account; implements
 *   MessageQueue claims.
 * Each claim gets a SAS token scoped to its own container or queue, never the account key.
 * - PostgreSQLFlexibleServer and MySQLFlexibleServer (database.azure.conductor.io): Azure
 *   Database flexible servers, with a database for the claim; implement PostgreSQLInstance and
 *   MySQLInstance claims;
 * - RedisCache (cache.azure.conductor.io): an Azure Cache for Redis; implements RedisCluster.
 * These three are made through Azure Resource Manager with the Provider's service principal.
 */
import { s } from '../../apis/schema/builder.js';
import type { ObjectOf } from '../../apis/schema/kind.js';
import { BUCKET_CONNECTION_KEYS, bucketKind } from '../../apis/storage/kinds.js';
import { MESSAGE_QUEUE_CONNECTION_KEYS, messageQueueKind } from '../../apis/messaging/kinds.js';
import { mysqlInstanceKind, postgresqlInstanceKind, SQL_CONNECTION_KEYS } from '../../apis/storage/kinds.js';
import { REDIS_CONNECTION_KEYS, redisClusterKind } from '../../apis/cache/kinds.js';
import { V1ALPHA1 } from '../../apis/well-known.js';
import type { GroupKind } from '../spi.js';
import { defineProviderKind } from '../kind-definition.js';
import { AZURE_NAME_PATTERN } from './names.js';
import { AZURE_LOCATIONS, AZURE_REDUNDANCIES, FLEXIBLE_SERVER_SKUS, MYSQL_VERSIONS, POSTGRES_VERSIONS, REDIS_SKUS } from './price-table.js';

import { DEFAULT_SAS_VALIDITY_DAYS } from './sas.js';

export const AZURE_STORAGE_GROUP = 'storage.azure.conductor.io';
export const AZURE_MESSAGING_GROUP = 'messaging.azure.conductor.io';
export const AZURE_DATABASE_GROUP = 'database.azure.conductor.io';
export const AZURE_CACHE_GROUP = 'cache.azure.conductor.io';

export const bucketClaimKind: GroupKind = { group: bucketKind.group, kind: bucketKind.kind };
export const messageQueueClaimKind: GroupKind = { group: messageQueueKind.group, kind: messageQueueKind.kind };
export const postgresqlClaimKind: GroupKind = { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind };
export const mysqlClaimKind: GroupKind = { group: mysqlInstanceKind.group, kind: mysqlInstanceKind.kind };
export const redisClaimKind: GroupKind = { group: redisClusterKind.group, kind: redisClusterKind.kind };

/** What a Bucket claim's Secret holds from a BlobContainer: the claim kind's keys, then Azure's own. */
export const blobContainerSecretKeys = [...BUCKET_CONNECTION_KEYS, 'accountName', 'containerName', 'sasToken', 'sasUrl', 'sasExpiresOn'] as const;
/** What a MessageQueue claim's Secret holds from a StorageQueue. */
export const storageQueueSecretKeys = [...MESSAGE_QUEUE_CONNECTION_KEYS, 'accountName', 'sasToken', 'sasUrl', 'sasExpiresOn'] as const;

const azureName = (what: string) =>
  s
    .string({ minLength: 3, maxLength: 63, pattern: AZURE_NAME_PATTERN })
    .rules({ rule: "!self.contains('--')", message: `a ${what} name has no two hyphens in a row` })
    .describe(
      `The ${what}'s name in the storage account: 3 to 63 lower-case letters, digits and hyphens, beginning and ending with a letter or digit, no two hyphens in a row. Default: the resource's name when Azure accepts it, else one derived from its namespace and name (provisioned resources: from the claim's). The annotation conductor.io/external-name, when set, names an existing ${what} to import.`,
    )
    .optional();

const accountFields = {
  location: s
    .enumOf(AZURE_LOCATIONS)
    .describe(
      "The Azure region of the storage account the Provider's credentials reach (e.g. westeurope): the resource's capabilities.region and the region its price is looked up for. Default: the Provider's spec.region.",
    )
    .optional(),
  redundancy: s
    .enumOf(AZURE_REDUNDANCIES)
    .withDefault('LRS')
    .describe("The storage account's redundancy (its SKU: Standard_LRS …), for the price; Conductor does not change the account."),
  sasValidityDays: s
    .integer({ minimum: 1, maximum: 365 })
    .withDefault(DEFAULT_SAS_VALIDITY_DAYS)
    .describe('How long each SAS token published to the claim is valid; a new token is published when a third of that has passed.'),
};

export const blobContainerKind = defineProviderKind({
  group: AZURE_STORAGE_GROUP,
  version: V1ALPHA1,
  kind: 'BlobContainer',
  plural: 'blobcontainers',
  shortNames: ['azblob'],
  description:
    'A BlobContainer is a container in the Azure storage account its Provider (type azure) reaches with the account key. ' +
    'Created, its public access corrected and deleted by name, so a create repeated after a crash finds the container. ' +
    'For a Bucket claim, endpoint is the blob service URL, bucket and containerName the container, region the location, ' +
    'accessKeyId the account name and secretAccessKey (like sasToken) a SAS token for this container only — read, add, create, write, delete, list — ' +
    'never the account key; sasUrl is the container URL with that token. Azure Blob has no S3 API: use an Azure Storage client.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: bucketKind, portableKeys: BUCKET_CONNECTION_KEYS, connectionSecretKeys: blobContainerSecretKeys }],
  fields: {
    forProvider: s
      .object({
        containerName: azureName('container'),
        publicAccess: s
          .enumOf(['None', 'Blob', 'Container'] as const)
          .withDefault('None')
          .describe('Anonymous read access: None, Blob (read blobs by URL) or Container (also list them). A Bucket claim with publicRead gets Blob.'),
        ...accountFields,
      })
      .describe('The container in Azure.')
      .optional(),
  },
});
export type BlobContainer = ObjectOf<typeof blobContainerKind>;

export const storageQueueKind = defineProviderKind({
  group: AZURE_MESSAGING_GROUP,
  version: V1ALPHA1,
  kind: 'StorageQueue',
  plural: 'storagequeues',
  shortNames: ['azqueue'],
  description:
    'A StorageQueue is a queue in the Azure storage account its Provider (type azure) reaches with the account key. ' +
    'Created and deleted by name, so a create repeated after a crash finds the queue. ' +
    'For a MessageQueue claim, endpoint is the queue service URL and queue the queue name; sasToken is a SAS token for this queue only — ' +
    'read, add, update, process — never the account key, and sasUrl the queue URL with it. Azure Storage queues give no FIFO order, so claims asking fifo do not fit.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: messageQueueKind, portableKeys: MESSAGE_QUEUE_CONNECTION_KEYS, connectionSecretKeys: storageQueueSecretKeys }],
  fields: {
    forProvider: s
      .object({
        queueName: azureName('queue'),
        ...accountFields,
      })
      .describe('The queue in Azure.')
      .optional(),
  },
});
export type StorageQueue = ObjectOf<typeof storageQueueKind>;

/** What a PostgreSQLInstance or MySQLInstance claim's Secret holds from a flexible server: the claim kind's keys, then Azure's own. */
export const flexibleServerSecretKeys = [...SQL_CONNECTION_KEYS, 'serverName', 'sslmode'] as const;
/** What a RedisCluster claim's Secret holds from a RedisCache. */
export const redisCacheSecretKeys = [...REDIS_CONNECTION_KEYS, 'ssl', 'cacheName'] as const;

const armLocation = s
  .enumOf(AZURE_LOCATIONS)
  .describe(
    "The Azure region (e.g. westeurope): the resource's capabilities.region and the region its price is looked up for. Default: the Provider's spec.region.",
  )
  .optional();

const serverName = (what: string) =>
  s
    .string({ minLength: 3, maxLength: 63, pattern: AZURE_NAME_PATTERN })
    .describe(
      `The ${what}'s name, unique across Azure (it is the host name): 3 to 63 lower-case letters, digits and hyphens, beginning and ending with a letter or digit. Default: one derived from the resource's namespace and name (provisioned resources: the claim's). The annotation conductor.io/external-name, when set, names an existing ${what} in the Provider's resource group to import.`,
    )
    .optional();

const flexibleServerFields = (versions: readonly [string, ...string[]], defaultVersion: string) => ({
  serverName: serverName('server'),
  location: armLocation,
  version: s.enumOf(versions).withDefault(defaultVersion).describe('The major version of the server.'),
  skuName: s
    .enumOf(FLEXIBLE_SERVER_SKUS)
    .withDefault('Standard_B1ms')
    .describe('The compute size; its tier follows (B: Burstable, D: GeneralPurpose, E: MemoryOptimized).'),
  storageSizeGB: s.integer({ minimum: 32, maximum: 16384 }).withDefault(32).describe('Storage in GB (32 to 16384); it can grow, never shrink.'),
  administratorLogin: s
    .string({ minLength: 1, maxLength: 63, pattern: '^[a-z][a-z0-9_]*$' })
    .rules({
      rule: "!(self in ['admin', 'administrator', 'root', 'guest', 'public', 'azure_superuser', 'azure_pg_admin', 'sa'])",
      message: 'Azure reserves this administrator login',
    })
    .withDefault('conductor')
    .describe('The administrator login: a lower-case letter, then lower-case letters, digits and underscores. Its password is generated by Conductor.'),
  databaseName: s
    .string({ minLength: 1, maxLength: 63, pattern: '^[A-Za-z][A-Za-z0-9_]*$' })
    .withDefault('app')
    .describe('The database created in the server for the claim: a letter, then letters, digits and underscores.'),
});

const flexibleDescription = (engine: string, claim: string) =>
  `A ${engine} flexible server in the subscription and resource group of its Provider (type azure, with a service principal), with one database. ` +
  "Its name is recorded before it is created and ARM's PUT is idempotent, so a create repeated after a crash finds the server; the long-running create, update and delete are polled until the server is Ready or gone. " +
  "The administrator password is generated by Conductor (derived from a key in the Provider's Secret, so it survives a crash between create and publishing) and never logged. " +
  `For a ${claim} claim, host is the server's fully qualified domain name, port the ${engine} port, username and password the administrator, database the database made for the claim, sslmode require.`;

export const postgresqlFlexibleServerKind = defineProviderKind({
  group: AZURE_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'PostgreSQLFlexibleServer',
  plural: 'postgresqlflexibleservers',
  shortNames: ['azpg'],
  description: flexibleDescription('PostgreSQL', 'PostgreSQLInstance'),
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: postgresqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: flexibleServerSecretKeys }],
  fields: {
    forProvider: s.object(flexibleServerFields(POSTGRES_VERSIONS, '16')).describe('The server in Azure.').optional(),
  },
});
export type PostgreSQLFlexibleServer = ObjectOf<typeof postgresqlFlexibleServerKind>;

export const mysqlFlexibleServerKind = defineProviderKind({
  group: AZURE_DATABASE_GROUP,
  version: V1ALPHA1,
  kind: 'MySQLFlexibleServer',
  plural: 'mysqlflexibleservers',
  shortNames: ['azmysql'],
  description: flexibleDescription('MySQL', 'MySQLInstance'),
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: mysqlInstanceKind, portableKeys: SQL_CONNECTION_KEYS, connectionSecretKeys: flexibleServerSecretKeys }],
  fields: {
    forProvider: s.object(flexibleServerFields(MYSQL_VERSIONS, '8.0.21')).describe('The server in Azure.').optional(),
  },
});
export type MySQLFlexibleServer = ObjectOf<typeof mysqlFlexibleServerKind>;

export const redisCacheKind = defineProviderKind({
  group: AZURE_CACHE_GROUP,
  version: V1ALPHA1,
  kind: 'RedisCache',
  plural: 'rediscaches',
  shortNames: ['azredis'],
  description:
    'A RedisCache is an Azure Cache for Redis in the subscription and resource group of its Provider (type azure, with a service principal). ' +
    "Its name is recorded before it is created and ARM's PUT is idempotent, so a create repeated after a crash finds the cache; Creating and Updating are polled until it has Succeeded. " +
    'Only the TLS port is open (TLS 1.2). For a RedisCluster claim, host is the cache host name, port the TLS port (6380), password the primary access key, uri rediss://:<key>@host:6380, ssl true.',
  sharing: 'Exclusive',
  lifecycle: 'Managed',
  implements: [{ claim: redisClusterKind, portableKeys: REDIS_CONNECTION_KEYS, connectionSecretKeys: redisCacheSecretKeys }],
  fields: {
    forProvider: s
      .object({
        cacheName: serverName('cache'),
        location: armLocation,
        sku: s.enumOf(REDIS_SKUS).withDefault('Basic').describe('Basic (one node, no SLA), Standard (replicated) or Premium.'),
        capacity: s
          .integer({ minimum: 0, maximum: 6 })
          .withDefault(0)
          .describe('The size within the SKU: C0 to C6 for Basic and Standard, P1 to P5 for Premium.'),
      })
      .rules({
        rule: "!has(self.sku) || self.sku != 'Premium' || (has(self.capacity) && self.capacity >= 1 && self.capacity <= 5)",
        message: 'a Premium cache has capacity 1 to 5 (P1 to P5)',
      })
      .describe('The cache in Azure.')
      .optional(),
  },
});
export type RedisCache = ObjectOf<typeof redisCacheKind>;

/** The azure provider's ResourceRefs, by plural. */
export const azureRefs = {
  blobcontainers: blobContainerKind.ref,
  storagequeues: storageQueueKind.ref,
  postgresqlflexibleservers: postgresqlFlexibleServerKind.ref,
  mysqlflexibleservers: mysqlFlexibleServerKind.ref,
  rediscaches: redisCacheKind.ref,
} as const;
