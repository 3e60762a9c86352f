/**
 * What the aws kinds read off a resource before calling AWS, defensively (the reconciler may
 * hand over anything): the external name (the `conductor.io/external-name` annotation, else
 * the spec's, else one derived from the resource), the region (the spec's, else the
 * Provider's spec.region) and the size a price is worked out for.
 */
import { parseQuantity } from '../../machinery/quantity/quantity.js';
import { isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { EXTERNAL_NAME_ANNOTATION } from '../../apis/well-known.js';
import { checkedAwsName, defaultAwsName, type AwsNameKind } from './names.js';
import { isAwsRegion, type AwsRegion } from './price-table.js';

/** The tag that says which resource (`<namespace>/<name>`) an RDS instance or ElastiCache group was made for. */
export const RESOURCE_TAG = 'conductor.io/resource';

/** forProviderOf is the resource's spec.forProvider (or an empty object). */
export function forProviderOf(resource: KObject): JsonObject {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  return isPlainObject(spec.forProvider) ? (spec.forProvider as JsonObject) : {};
}

/** externalNameOf is the name in AWS; it throws an AwsNameError for a name AWS refuses. */
export function externalNameOf(resource: KObject, kind: AwsNameKind, nameField: string, fifo = false): string {
  const fp = forProviderOf(resource);
  const annotated = resource.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
  if (annotated !== undefined && annotated !== '') return checkedAwsName(kind, annotated);
  const named = fp[nameField];
  if (typeof named === 'string' && named !== '') return checkedAwsName(kind, named);
  return defaultAwsName(kind, resource.metadata.namespace ?? '', resource.metadata.name ?? '', fifo);
}

/** A RegionError says no region is known for a resource. */
export class RegionError extends Error {
  constructor(what: string) {
    super(`no region for ${what}: set spec.forProvider.region or the Provider's spec.region`);
    this.name = 'RegionError';
  }
}

/** regionOf is the resource's region, else the Provider's; it throws a RegionError when neither names an AWS region. */
export function regionOf(resource: KObject, provider: KObject | undefined, what: string): AwsRegion {
  const fp = forProviderOf(resource);
  if (isAwsRegion(fp.region)) return fp.region;
  const providerSpec = provider && isPlainObject(provider.spec) ? provider.spec : {};
  if (isAwsRegion(providerSpec.region)) return providerSpec.region;
  throw new RegionError(what);
}

/** sizeOf is the resource's capabilities.capacity.storage, if any. */
export function sizeOf(resource: KObject): string | number | undefined {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const capacity = isPlainObject(spec.capabilities) && isPlainObject(spec.capabilities.capacity) ? spec.capabilities.capacity : {};
  return typeof capacity.storage === 'string' || typeof capacity.storage === 'number' ? capacity.storage : undefined;
}

/** storageGiOf reads a quantity ("25Gi") as whole GiB, at least RDS's minimum of 20. */
export function storageGiOf(size: string | number | undefined, fallback: number): number {
  if (size === undefined) return fallback;
  try {
    return Math.max(20, Math.ceil(parseQuantity(String(size)).toNumber() / 2 ** 30));
  } catch {
    return fallback;
  }
}
