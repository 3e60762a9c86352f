/**
 * How BlobContainer implements Bucket claims and StorageQueue implements MessageQueue claims:
 * matchers (what Azure can offer of the claim's portable fields), configurators (a class
 * template plus the claim → a new resource's spec, named after the claim) and connection
 * formatters (the details → exactly the keys the kind publishes).
 */
import { deepCopy, isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { exactConnectionKeys } from '../connection-keys.js';
import { pricedByConfiguring } from '../prices.js';
import { capabilitiesWithRequirements } from '../requirements.js';
import { blobContainerPrice, storageQueuePrice } from './claim-prices.js';
import { doesNotFit, fits, type ClaimImplementation, type MatchCandidate, type MatchResult, type ResourceTemplate } from '../spi.js';
import { blobContainerSecretKeys, bucketClaimKind, messageQueueClaimKind, storageQueueSecretKeys, type BlobContainer, type StorageQueue } from './kinds.js';
import { claimAzureName } from './names.js';
import { AZURE_LOCATIONS } from './price-table.js';

const claimSpec = (claim: KObject): JsonObject => (isPlainObject(claim.spec) ? (claim.spec as JsonObject) : {});
const forProviderOf = (spec: JsonObject | undefined): JsonObject => (spec && isPlainObject(spec.forProvider) ? spec.forProvider : {});
const isLocation = (v: unknown): v is string => typeof v === 'string' && (AZURE_LOCATIONS as readonly string[]).includes(v);

/** matchBlobContainer: versioning is an account setting (no fit); a public container fits only a claim asking publicRead, and the reverse. */
export function matchBlobContainer(claim: KObject, candidate: MatchCandidate<BlobContainer>): MatchResult {
  const spec = claimSpec(claim);
  if (spec.versioning === true) return doesNotFit('BlobContainer offers no versioning: blob versioning is a setting of the whole storage account');
  if (candidate.type === 'class') return fits;
  const access = candidate.resource.spec.forProvider?.publicAccess ?? 'None';
  const wantsPublic = spec.publicRead === true;
  if (wantsPublic && access === 'None') return doesNotFit('container is not public (publicAccess None), claim asks publicRead');
  if (!wantsPublic && access !== 'None') return doesNotFit(`container is public (publicAccess ${access}), claim does not ask publicRead`);
  return fits;
}

/** matchStorageQueue: Azure Storage queues promise neither order nor exactly-once delivery, so fifo does not fit. */
export function matchStorageQueue(claim: KObject, _candidate: MatchCandidate<StorageQueue>): MatchResult {
  if (claimSpec(claim).fifo === true) {
    return doesNotFit('Azure Storage queues do not deliver first-in-first-out or exactly once (claim asks fifo)');
  }
  return fits;
}

/**
 * configured is the template's spec (a copy) with the claim's name, requirements and the
 * location: `forProvider[nameField]` is the claim's own name (a template's name would put
 * every claim in one container), the location comes from the template (or its capabilities'
 * region, when that is an Azure location) and is written as capabilities.region.
 */
function configured(claim: KObject, template: ResourceTemplate, nameField: 'containerName' | 'queueName'): { spec: JsonObject; forProvider: JsonObject } {
  const spec: JsonObject = template.spec ? deepCopy(template.spec) : {};
  const forProvider: JsonObject = deepCopy(forProviderOf(spec));
  forProvider[nameField] = claimAzureName(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
  const templateRegion = isPlainObject(spec.capabilities) ? spec.capabilities.region : undefined;
  if (!isLocation(forProvider.location) && isLocation(templateRegion)) forProvider.location = templateRegion;
  const requirements = claimSpec(claim).requirements;
  const capabilities = capabilitiesWithRequirements(spec.capabilities, isPlainObject(requirements) ? requirements : undefined);
  if (isLocation(forProvider.location)) capabilities.region = forProvider.location;
  spec.capabilities = capabilities;
  spec.forProvider = forProvider;
  return { spec, forProvider };
}

/** configureBlobContainer: publicAccess follows the claim's publicRead (Blob, or the template's Container), else None. */
export function configureBlobContainer(claim: KObject, template: ResourceTemplate): JsonObject {
  const { spec, forProvider } = configured(claim, template, 'containerName');
  const templateAccess = forProvider.publicAccess;
  forProvider.publicAccess = claimSpec(claim).publicRead === true ? (templateAccess === 'Container' ? 'Container' : 'Blob') : 'None';
  return spec;
}

export function configureStorageQueue(claim: KObject, template: ResourceTemplate): JsonObject {
  return configured(claim, template, 'queueName').spec;
}

export const blobContainerClaims: ClaimImplementation<BlobContainer>[] = [
  {
    claimKind: bucketClaimKind,
    connectionSecretKeys: blobContainerSecretKeys,
    match: matchBlobContainer,
    configure: configureBlobContainer,
    price: pricedByConfiguring(configureBlobContainer, blobContainerPrice),
    formatConnection: (details) => exactConnectionKeys('BlobContainer', blobContainerSecretKeys, details),
  },
];

export const storageQueueClaims: ClaimImplementation<StorageQueue>[] = [
  {
    claimKind: messageQueueClaimKind,
    connectionSecretKeys: storageQueueSecretKeys,
    match: matchStorageQueue,
    configure: configureStorageQueue,
    price: pricedByConfiguring(configureStorageQueue, storageQueuePrice),
    formatConnection: (details) => exactConnectionKeys('StorageQueue', storageQueueSecretKeys, details),
  },
];
