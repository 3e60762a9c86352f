/**
 * What the database and cache kinds read off a resource before calling ARM: the name (the
 * `conductor.io/external-name` annotation, else the spec's, else one derived from the
 * resource), the location (the spec's, else the Provider's spec.region), and how a price
 * shows in `status.atProvider`.
 */
import { EXTERNAL_NAME_ANNOTATION } from '../../apis/well-known.js';
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { checkedAzureName, claimAzureName, type AzureNameKind } from './names.js';
import { AZURE_LOCATIONS, type AzureLocation } from './price-table.js';

/** The tag that says which resource a server or cache was made for (`<namespace>/<name>`). */
export const RESOURCE_TAG = 'conductor.io/resource';

const isLocation = (v: unknown): v is AzureLocation => typeof v === 'string' && (AZURE_LOCATIONS as readonly string[]).includes(v);

/**
 * armResourceSettings reads the name and location of `resource`; `nameField` is `serverName`
 * or `cacheName`. A resource that names none gets `<namespace>-<name>-<16 hex>` (server and
 * cache names are host names, unique across Azure: never the bare resource name). It throws an
 * AzureNameError for a name Azure refuses.
 */
export function armResourceSettings(resource: KObject, kind: AzureNameKind, nameField: string, provider?: KObject): { name: string; location?: AzureLocation } {
  return nameAndLocation(resource, kind, nameField, provider, (namespace, name) => claimAzureName(namespace, name));
}

/**
 * nameAndLocation reads what every azure kind names the same way: the external-name annotation,
 * else `forProvider[nameField]`, else `defaultName(namespace, name)` (each checked as Azure
 * checks `kind`'s names), and the location (forProvider.location, else the Provider's region).
 */
export function nameAndLocation(
  resource: KObject,
  kind: AzureNameKind,
  nameField: string,
  provider: KObject | undefined,
  defaultName: (namespace: string, name: string) => string,
): { name: string; location?: AzureLocation } {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const fp = isPlainObject(spec.forProvider) ? spec.forProvider : {};
  const annotated = resource.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
  const named = typeof fp[nameField] === 'string' && fp[nameField] !== '' ? fp[nameField] : undefined;
  const name =
    annotated !== undefined && annotated !== ''
      ? checkedAzureName(kind, annotated)
      : named !== undefined
        ? checkedAzureName(kind, named)
        : defaultName(resource.metadata.namespace ?? '', resource.metadata.name ?? '');
  const providerSpec = provider && isPlainObject(provider.spec) ? provider.spec : {};
  const location = isLocation(fp.location) ? fp.location : isLocation(providerSpec.region) ? providerSpec.region : undefined;
  return { name, ...(location ? { location } : {}) };
}

/** priceStatusOf is what `status.atProvider` says of a price (the providers' shared priceStatus). */
export { priceStatus as priceStatusOf } from '../prices.js';
