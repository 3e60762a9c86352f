/**
 * What both storage kinds read off a resource before calling Azure: the name of the container
 * or queue (the `conductor.io/external-name` annotation, else the spec's, else the default),
 * the location (the spec's, else the Provider's spec.region), the redundancy, the SAS
 * validity and the size a price is worked out for.
 */
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { checkedAzureName, defaultAzureName, type AzureNameKind } from './names.js';
import { AZURE_LOCATIONS, AZURE_REDUNDANCIES, type AzureLocation, type AzureRedundancy, type PriceTable } from './price-table.js';
import { monthlyPrice } from './prices.js';
import { priceStatus as sharedPriceStatus } from '../prices.js';
import { DEFAULT_SAS_VALIDITY_DAYS } from './sas.js';
import type { JsonObject } from '../../machinery/object.js';
import { EXTERNAL_NAME_ANNOTATION } from '../../apis/well-known.js';

/** ResourceSettings are a resource's settings, read defensively (the reconciler may hand over anything). */
export interface ResourceSettings {
  name: string;
  location?: AzureLocation;
  redundancy: AzureRedundancy;
  sasValidityDays: number;
  size?: string | number;
}

const isLocation = (v: unknown): v is AzureLocation => typeof v === 'string' && (AZURE_LOCATIONS as readonly string[]).includes(v);

/** resourceSettings reads `resource`; `nameField` is `containerName` or `queueName`. It throws an AzureNameError for an external name Azure refuses. */
export function resourceSettings(resource: KObject, kind: AzureNameKind, nameField: string, provider?: KObject): ResourceSettings {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const fp = isPlainObject(spec.forProvider) ? spec.forProvider : {};
  const annotated = resource.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
  const named = typeof fp[nameField] === 'string' && fp[nameField] !== '' ? fp[nameField] : undefined;
  const name =
    annotated !== undefined && annotated !== ''
      ? checkedAzureName(kind, annotated)
      : named !== undefined
        ? checkedAzureName(kind, named)
        : defaultAzureName(kind, resource.metadata.namespace ?? '', resource.metadata.name ?? '');
  const providerSpec = provider && isPlainObject(provider.spec) ? provider.spec : {};
  const location = isLocation(fp.location) ? fp.location : isLocation(providerSpec.region) ? providerSpec.region : undefined;
  const redundancy = (AZURE_REDUNDANCIES as readonly unknown[]).includes(fp.redundancy) ? (fp.redundancy as AzureRedundancy) : 'LRS';
  const days = typeof fp.sasValidityDays === 'number' && fp.sasValidityDays >= 1 ? fp.sasValidityDays : DEFAULT_SAS_VALIDITY_DAYS;
  const capacity = isPlainObject(spec.capabilities) && isPlainObject(spec.capabilities.capacity) ? spec.capabilities.capacity : {};
  const size = typeof capacity.storage === 'string' || typeof capacity.storage === 'number' ? capacity.storage : undefined;
  return { name, ...(location ? { location } : {}), redundancy, sasValidityDays: days, ...(size !== undefined ? { size } : {}) };
}

/** priceStatus is what `status.atProvider` says of the price: `monthlyPrice`, or `priceNote` saying why there is none. */
export function priceStatus(table: PriceTable, settings: ResourceSettings): JsonObject {
  return sharedPriceStatus(monthlyPrice(table, settings.location, settings.redundancy, settings.size));
}
