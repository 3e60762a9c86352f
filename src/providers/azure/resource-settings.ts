/**
 * What both storage kinds read off a resource before calling Azure: the name of the container
 * or queue (the `conductor.io/external-name` annotation, else the spec's, else the default),
 * the location (the spec's, else the Provider's spec.region), the redundancy, the SAS
 * validity and the size a price is worked out for.
 */
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { defaultAzureName, type AzureNameKind } from './names.js';
import { AZURE_REDUNDANCIES, type AzureLocation, type AzureRedundancy, type PriceTable } from './price-table.js';
import { monthlyPrice } from './prices.js';
import { priceStatus as sharedPriceStatus } from '../prices.js';
import { DEFAULT_SAS_VALIDITY_DAYS } from './sas.js';
import type { JsonObject } from '../../machinery/object.js';
import { nameAndLocation } from './arm-settings.js';

/** ResourceSettings are a resource's settings, read defensively (the reconciler may hand over anything). */
export interface ResourceSettings {
  name: string;
  location?: AzureLocation;
  redundancy: AzureRedundancy;
  sasValidityDays: number;
  size?: string | number;
}

/** resourceSettings reads `resource`; `nameField` is `containerName` or `queueName`. It throws an AzureNameError for an external name Azure refuses. */
export function resourceSettings(resource: KObject, kind: AzureNameKind, nameField: string, provider?: KObject): ResourceSettings {
  const { name, location } = nameAndLocation(resource, kind, nameField, provider, (namespace, resourceName) => defaultAzureName(kind, namespace, resourceName));
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const fp = isPlainObject(spec.forProvider) ? spec.forProvider : {};
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
