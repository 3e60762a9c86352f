/**
 * The external client of a StorageQueue: the queue, by name, in the account the Provider's
 * credentials reach. Every call passes CallOptions.signal to the SDK and is idempotent: create
 * finds a queue an earlier, interrupted create made; delete of a gone queue succeeds.
 */
import {
  generateQueueSASQueryParameters,
  QueueSASPermissions,
  SASProtocol,
  type QueueServiceClient,
  type StorageSharedKeyCredential,
} from '@azure/storage-queue';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import type { StorageAccount } from './credentials.js';
import { azureError, codeOf, isAbort, statusOf } from './errors.js';
import type { StorageQueue } from './kinds.js';
import { QUEUE_PRICES } from './price-table.js';
import { priceStatus, resourceSettings, type ResourceSettings } from './resource-settings.js';
import { sasWindow } from './sas.js';
import { queueServiceOf } from './service-clients.js';

/** The permissions of a claim's SAS: read (peek), add, update, process (receive and delete) — on its queue only. */
export const QUEUE_SAS_PERMISSIONS = 'raup';

export interface StorageQueueClientOptions {
  now?: () => Date;
}

/** A StorageQueueClient is the ExternalClient of StorageQueues of one account. */
export class StorageQueueClient implements ExternalClient<StorageQueue> {
  private readonly service: QueueServiceClient;
  private readonly key: StorageSharedKeyCredential;
  private readonly now: () => Date;

  constructor(
    private readonly account: StorageAccount,
    private readonly provider: KObject | undefined,
    options: StorageQueueClientOptions = {},
  ) {
    ({ service: this.service, key: this.key } = queueServiceOf(account));
    this.now = options.now ?? (() => new Date());
  }

  private settings(resource: StorageQueue): ResourceSettings {
    return resourceSettings(resource, 'queue', 'queueName', this.provider);
  }

  /** connectionDetails are a claim's keys: the queue, and a SAS token for it alone. */
  connectionDetails(settings: ResourceSettings): ConnectionDetails {
    const window = sasWindow(this.now(), settings.sasValidityDays);
    const https = this.account.queueEndpoint.startsWith('https:');
    const token = generateQueueSASQueryParameters(
      {
        queueName: settings.name,
        permissions: QueueSASPermissions.parse(QUEUE_SAS_PERMISSIONS),
        startsOn: window.startsOn,
        expiresOn: window.expiresOn,
        protocol: https ? SASProtocol.Https : SASProtocol.HttpsAndHttp,
      },
      this.key,
    ).toString();
    const endpoint = this.account.queueEndpoint;
    return {
      endpoint,
      queue: settings.name,
      accountName: this.account.accountName,
      sasToken: token,
      sasUrl: `${endpoint}/${settings.name}?${token}`,
      sasExpiresOn: window.expiresOn.toISOString(),
    };
  }

  async observe(resource: StorageQueue, options: CallOptions = {}): Promise<ExternalObservation> {
    const settings = this.settings(resource);
    const queue = this.service.getQueueClient(settings.name);
    let props;
    try {
      props = await queue.getProperties({ abortSignal: options.signal });
    } catch (err) {
      if (statusOf(err) === 404 && codeOf(err) !== 'AuthenticationFailed') return { exists: false, upToDate: false };
      throw azureError(err, `read queue ${settings.name}`);
    }
    return {
      exists: true,
      upToDate: true,
      atProvider: {
        queueName: settings.name,
        url: queue.url,
        ...(props.approximateMessagesCount !== undefined ? { approximateMessages: props.approximateMessagesCount } : {}),
        ...(settings.location ? { location: settings.location } : {}),
        redundancy: settings.redundancy,
        ...priceStatus(QUEUE_PRICES, settings),
      },
      connectionDetails: this.connectionDetails(settings),
    };
  }

  async create(resource: StorageQueue, options: CallOptions = {}): Promise<ExternalCreation> {
    const settings = this.settings(resource);
    try {
      // Azure answers 204 when the queue exists already (with the same metadata): an earlier create made it.
      await this.service.getQueueClient(settings.name).createIfNotExists({ abortSignal: options.signal });
    } catch (err) {
      if (!(statusOf(err) === 409 && codeOf(err) === 'QueueAlreadyExists')) {
        if (statusOf(err) === 409 && codeOf(err) === 'QueueBeingDeleted') {
          throw azureError(err, `create queue ${settings.name} (Azure is still deleting a queue of that name; retried)`);
        }
        throw azureError(err, `create queue ${settings.name}`);
      }
    }
    return { externalName: settings.name, connectionDetails: this.connectionDetails(settings) };
  }

  async update(resource: StorageQueue): Promise<ExternalUpdate> {
    // Nothing of a queue's spec is kept in Azure but its name.
    return { connectionDetails: this.connectionDetails(this.settings(resource)) };
  }

  async delete(resource: StorageQueue, options: CallOptions = {}): Promise<void> {
    const settings = this.settings(resource);
    try {
      await this.service.getQueueClient(settings.name).deleteIfExists({ abortSignal: options.signal });
    } catch (err) {
      if (isAbort(err)) throw err;
      if (statusOf(err) === 409 && codeOf(err) === 'QueueBeingDeleted') return;
      throw azureError(err, `delete queue ${settings.name}`);
    }
  }
}
