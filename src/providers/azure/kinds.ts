/**
 * The `azure` provider's kinds, each defined once (CRD, ResourceRef, TypeScript type):
 * - BlobContainer (storage.azure.conductor.io): a container in the storage account the
 *   Provider's credentials reach; implements Bucket claims;
 * - StorageQueue (messaging.azure.conductor.io): a queue in that account; implements
 *   MessageQueue claims.
 * Each claim gets a SAS token scoped to its own container or queue, never the account key.
 */
import { s } from '../../apis/schema/builder.js';
import type { ObjectOf } from '../../apis/schema/kind.js';
import { BUCKET_CONNECTION_KEYS, bucketKind } from '../../apis/storage/kinds.js';
import { MESSAGE_QUEUE_CONNECTION_KEYS, messageQueueKind } from '../../apis/messaging/kinds.js';
import { V1ALPHA1 } from '../../apis/well-known.js';
import type { GroupKind } from '../spi.js';
import { defineProviderKind } from '../kind-definition.js';
import { AZURE_NAME_PATTERN } from './names.js';
import { AZURE_LOCATIONS, AZURE_REDUNDANCIES } from './price-table.js';
import { DEFAULT_SAS_VALIDITY_DAYS } from './sas.js';

export const AZURE_STORAGE_GROUP = 'storage.azure.conductor.io';
export const AZURE_MESSAGING_GROUP = 'messaging.azure.conductor.io';

export const bucketClaimKind: GroupKind = { group: bucketKind.group, kind: bucketKind.kind };
export const messageQueueClaimKind: GroupKind = { group: messageQueueKind.group, kind: messageQueueKind.kind };

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

/** The azure provider's ResourceRefs, by plural. */
export const azureRefs = {
  blobcontainers: blobContainerKind.ref,
  storagequeues: storageQueueKind.ref,
} as const;
