/**
 * Pieces the local kinds' matchers share: reading what a resource reports and what a spec
 * says, and judging a claim's version range against the version a server offers.
 */
import { isPlainObject, type JsonObject, type KObject } from '../../machinery/object.js';
import { doesNotFit, fits, type MatchResult } from '../spi.js';

/** atProviderString is a non-empty string the resource's provider reported in `status.atProvider`. */
export function atProviderString(resource: KObject, field: string): string | undefined {
  const status = resource.status;
  if (!isPlainObject(status) || !isPlainObject(status.atProvider)) return undefined;
  const value = status.atProvider[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** specString is a non-empty string field of a spec (or template spec). */
export function specString(spec: JsonObject | undefined, field: string): string | undefined {
  const value = spec?.[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A VersionMismatch says why `offered` does not satisfy `wanted`, or undefined when it does. */
export type VersionMismatch = (wanted: string, offered: string, exact: boolean) => string | undefined;

/**
 * versionVerdict judges a claim's version range (`wanted`, none: anything fits) against the
 * version a server offers; an unknown offer does not fit yet (`unknown` says so).
 */
export function versionVerdict(
  mismatch: VersionMismatch,
  wanted: string | undefined,
  offered: string | undefined,
  exact: boolean,
  unknown = 'server version not yet known',
): MatchResult {
  if (!wanted) return fits;
  if (!offered) return doesNotFit(unknown);
  const why = mismatch(wanted, offered, exact);
  return why ? doesNotFit(why) : fits;
}
