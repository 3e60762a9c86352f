/**
 * The external client of a BlobContainer: the container, by name, in the account the
 * Provider's credentials reach. Every call passes CallOptions.signal to the SDK (an aborted
 * call rejects with an AbortError) and is idempotent: create finds a container an earlier,
 * interrupted create made; delete of a gone container succeeds.
 */
import {
  ContainerSASPermissions,
  generateBlobSASQueryParameters,
  SASProtocol,
  type BlobServiceClient,
  type StorageSharedKeyCredential,
} from '@azure/storage-blob';
import type { KObject } from '../../machinery/object.js';
import type { CallOptions, ConnectionDetails, ExternalClient, ExternalCreation, ExternalObservation, ExternalUpdate } from '../spi.js';
import type { StorageAccount } from './credentials.js';
import { azureError, codeOf, isAbort, statusOf } from './errors.js';
import type { BlobContainer } from './kinds.js';
import { BLOB_HOT_PRICES } from './price-table.js';
import { priceStatus, resourceSettings, type ResourceSettings } from './resource-settings.js';
import { sasWindow } from './sas.js';
import { blobServiceOf } from './service-clients.js';

type Access = 'None' | 'Blob' | 'Container';
type SdkAccess = 'blob' | 'container' | undefined;

const toSdk = (a: Access): SdkAccess => (a === 'Blob' ? 'blob' : a === 'Container' ? 'container' : undefined);
const fromSdk = (a: string | undefined): Access => (a === 'blob' ? 'Blob' : a === 'container' ? 'Container' : 'None');

/** The permissions of a claim's SAS: read, add, create, write, delete, list — on its container only. */
export const CONTAINER_SAS_PERMISSIONS = 'racwdl';

export interface BlobContainerClientOptions {
  /** The clock SAS windows are taken from (tests). */
  now?: () => Date;
}

/** A BlobContainerClient is the ExternalClient of BlobContainers of one account. */
export class BlobContainerClient implements ExternalClient<BlobContainer> {
  private readonly service: BlobServiceClient;
  private readonly key: StorageSharedKeyCredential;
  private readonly now: () => Date;

  constructor(
    private readonly account: StorageAccount,
    private readonly provider: KObject | undefined,
    options: BlobContainerClientOptions = {},
  ) {
    ({ service: this.service, key: this.key } = blobServiceOf(account));
    this.now = options.now ?? (() => new Date());
  }

  private settings(resource: BlobContainer): ResourceSettings {
    return resourceSettings(resource, 'container', 'containerName', this.provider);
  }

  /** connectionDetails are a claim's keys: the container, and a SAS token for it alone. */
  connectionDetails(settings: ResourceSettings): ConnectionDetails {
    const window = sasWindow(this.now(), settings.sasValidityDays);
    const https = this.account.blobEndpoint.startsWith('https:');
    const token = generateBlobSASQueryParameters(
      {
        containerName: settings.name,
        permissions: ContainerSASPermissions.parse(CONTAINER_SAS_PERMISSIONS),
        startsOn: window.startsOn,
        expiresOn: window.expiresOn,
        protocol: https ? SASProtocol.Https : SASProtocol.HttpsAndHttp,
      },
      this.key,
    ).toString();
    const endpoint = this.account.blobEndpoint;
    return {
      endpoint,
      bucket: settings.name,
      region: settings.location ?? '',
      accessKeyId: this.account.accountName,
      secretAccessKey: token,
      accountName: this.account.accountName,
      containerName: settings.name,
      sasToken: token,
      sasUrl: `${endpoint}/${settings.name}?${token}`,
      sasExpiresOn: window.expiresOn.toISOString(),
    };
  }

  async observe(resource: BlobContainer, options: CallOptions = {}): Promise<ExternalObservation> {
    const settings = this.settings(resource);
    const container = this.service.getContainerClient(settings.name);
    let props;
    try {
      props = await container.getProperties({ abortSignal: options.signal });
    } catch (err) {
      if (statusOf(err) === 404 && codeOf(err) !== 'AuthenticationFailed') return { exists: false, upToDate: false };
      throw azureError(err, `read container ${settings.name}`);
    }
    const want = resource.spec.forProvider?.publicAccess ?? 'None';
    const have = fromSdk(props.blobPublicAccess);
    return {
      exists: true,
      upToDate: have === want,
      ...(have !== want ? { drift: `public access is ${have}, spec wants ${want}` } : {}),
      atProvider: {
        containerName: settings.name,
        url: container.url,
        publicAccess: have,
        ...(settings.location ? { location: settings.location } : {}),
        redundancy: settings.redundancy,
        ...priceStatus(BLOB_HOT_PRICES, settings),
      },
      connectionDetails: this.connectionDetails(settings),
    };
  }

  async create(resource: BlobContainer, options: CallOptions = {}): Promise<ExternalCreation> {
    const settings = this.settings(resource);
    const container = this.service.getContainerClient(settings.name);
    const access = toSdk(resource.spec.forProvider?.publicAccess ?? 'None');
    try {
      await container.create({ ...(access ? { access } : {}), abortSignal: options.signal });
    } catch (err) {
      // Made by an earlier, interrupted create (or imported): observe and update take it from here.
      if (!(statusOf(err) === 409 && codeOf(err) === 'ContainerAlreadyExists')) {
        if (statusOf(err) === 409 && codeOf(err) === 'ContainerBeingDeleted') {
          throw azureError(err, `create container ${settings.name} (Azure is still deleting a container of that name; retried)`);
        }
        throw azureError(err, `create container ${settings.name}`);
      }
    }
    return { externalName: settings.name, connectionDetails: this.connectionDetails(settings) };
  }

  async update(resource: BlobContainer, options: CallOptions = {}): Promise<ExternalUpdate> {
    const settings = this.settings(resource);
    const container = this.service.getContainerClient(settings.name);
    try {
      // Setting the access level replaces the stored access policies: keep the ones there.
      const current = await container.getAccessPolicy({ abortSignal: options.signal });
      await container.setAccessPolicy(toSdk(resource.spec.forProvider?.publicAccess ?? 'None'), current.signedIdentifiers, { abortSignal: options.signal });
    } catch (err) {
      throw azureError(err, `set public access of container ${settings.name}`);
    }
    return { connectionDetails: this.connectionDetails(settings) };
  }

  async delete(resource: BlobContainer, options: CallOptions = {}): Promise<void> {
    const settings = this.settings(resource);
    try {
      await this.service.getContainerClient(settings.name).deleteIfExists({ abortSignal: options.signal });
    } catch (err) {
      if (isAbort(err)) throw err;
      // Already being deleted: done from Conductor's side; observe sees it go.
      if (statusOf(err) === 409 && codeOf(err) === 'ContainerBeingDeleted') return;
      throw azureError(err, `delete container ${settings.name}`);
    }
  }
}
