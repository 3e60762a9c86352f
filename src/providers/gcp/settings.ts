/**
 * What the gcp kinds read off a resource before calling Google: ids (the
 * `conductor.io/external-name` annotation, else the spec's, else the default), the region
 * (the spec's, else the Provider's spec.region) and the size a price is worked out for. Read
 * defensively: the reconciler may hand over anything.
 */
import { EXTERNAL_NAME_ANNOTATION } from '../../apis/well-known.js';
import { isPlainObject, type KObject } from '../../machinery/object.js';
import { checkedGcpName, defaultGcpName, type GcpNameKind } from './names.js';
import { isGcpRegion, type GcpRegion } from './price-table.js';

/** forProviderOf is a resource's spec.forProvider, or empty. */
export function forProviderOf(resource: KObject): Record<string, unknown> {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  return isPlainObject(spec.forProvider) ? spec.forProvider : {};
}

/** externalOrNamed is the annotation's id, else `forProvider[field]`, else the default — checked against Google's rules (a GcpNameError says why not). */
export function externalOrNamed(resource: KObject, kind: GcpNameKind, field: string): string {
  const annotated = resource.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
  if (annotated !== undefined && annotated !== '') return checkedGcpName(kind, annotated);
  return namedOrDefault(resource, kind, field);
}

/** namedOrDefault is `forProvider[field]` when set, else the default id. */
export function namedOrDefault(resource: KObject, kind: GcpNameKind, field: string): string {
  const named = forProviderOf(resource)[field];
  if (typeof named === 'string' && named !== '') return checkedGcpName(kind, named);
  return defaultGcpName(kind, resource.metadata.namespace ?? '', resource.metadata.name ?? '');
}

/** regionOf is the resource's region, else the Provider's. */
export function regionOf(resource: KObject, provider: KObject | undefined): GcpRegion | undefined {
  const fp = forProviderOf(resource);
  if (isGcpRegion(fp.region)) return fp.region;
  const providerSpec = provider && isPlainObject(provider.spec) ? provider.spec : {};
  return isGcpRegion(providerSpec.region) ? providerSpec.region : undefined;
}

/** sizeOf is spec.capabilities.capacity.storage, if any. */
export function sizeOf(resource: KObject): string | number | undefined {
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const capacity = isPlainObject(spec.capabilities) && isPlainObject(spec.capabilities.capacity) ? spec.capabilities.capacity : {};
  return typeof capacity.storage === 'string' || typeof capacity.storage === 'number' ? capacity.storage : undefined;
}

/** integerOr is `value` when it is an integer within [min, max], else `fallback`. */
export function integerOr(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}
