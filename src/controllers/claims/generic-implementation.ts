/**
 * The implementation of a claim kind by a concrete kind Conductor has no code for (one
 * reconciled by a provider in another process, both kinds defined by CRDs alone): a matcher,
 * a configurator and a connection formatter that follow from the kinds' CRDs.
 *
 * - **Match**: every portable field the claim sets (its spec without the generic fields) must
 *   be honoured. A resource honours it by having the same value in its spec (`version`: a
 *   version inside the claim's semver range). A class honours it when its template has the
 *   same value, or has none and the concrete kind's schema has the field (the configurator
 *   writes it). Resources in Shared mode do not fit: a claim's own share needs code.
 * - **Configure**: the template's spec with the claim's portable fields written over it
 *   (only fields the concrete kind's schema has; the API server would prune the others). The
 *   fields every concrete kind shares (`providerRef`, `sharing`, `claimRef`,
 *   `writeConnectionSecretToRef`…) are never taken from a claim.
 * - **Format**: the claim kind's documented keys (all required, save those marked optional)
 *   and the keys the concrete kind adds, from the details its controller wrote.
 */
import type { ConnectionKey } from '../../apis/index.js';
import { deepEqual, isPlainObject, type JsonObject, type JsonValue, type KObject } from '../../machinery/object.js';
import { CLAIM_COMMON_FIELDS, CONCRETE_COMMON_FIELDS, coerceVersion, parseVersionRange } from '../../scheduler/index.js';
import {
  doesNotFit,
  fits,
  type ClaimImplementation,
  type ConnectionDetails,
  type GroupKind,
  type MatchCandidate,
  type MatchResult,
  type ResourceTemplate,
} from '../../providers/spi.js';

/** What a generic implementation is built from: the two kinds as their CRDs describe them. */
export interface GenericImplementationOptions {
  readonly claimKind: GroupKind;
  /** The claim kind's connection keys (none: whatever the concrete kind's controller writes). */
  readonly claimKeys: readonly ConnectionKey[];
  /** The concrete kind, for messages. */
  readonly concreteKind: string;
  /** The keys the concrete kind adds. */
  readonly extraKeys: readonly ConnectionKey[];
  /** The concrete kind's spec fields, or undefined when its schema keeps any field. */
  readonly specFields: ReadonlySet<string> | undefined;
}

/** A MissingConnectionKeysError says which documented keys a provider's connection details lack. */
export class MissingConnectionKeysError extends Error {
  constructor(
    readonly claimKind: GroupKind,
    readonly missing: readonly string[],
  ) {
    super(
      `the connection details lack ${missing.length === 1 ? 'key' : 'keys'} ${missing.join(', ')}, which ${claimKind.kind} (${claimKind.group}) documents; ` +
        "the provider's controller must write them into the resource's connection Secret",
    );
    this.name = 'MissingConnectionKeysError';
  }
}

/**
 * Never portable: the claim's generic fields, and the concrete fields every kind shares — a
 * claim kind's schema may allow a field named `providerRef`, `sharing` or
 * `writeConnectionSecretToRef`, but a tenant's claim must not choose them for an
 * administrator's resource.
 */
const NOT_PORTABLE = new Set([...CLAIM_COMMON_FIELDS, ...CONCRETE_COMMON_FIELDS]);

/** The claim's portable fields that are set (spec without the generic and the concrete-common fields, null and undefined left out). */
function portableFields(claim: KObject): [string, JsonValue][] {
  const spec = isPlainObject(claim.spec) ? claim.spec : {};
  return Object.entries(spec).filter(([k, v]) => !NOT_PORTABLE.has(k) && v !== undefined && v !== null) as [string, JsonValue][];
}

/** Whether an offered value honours a wanted one: `version` by semver range, anything else by equality. */
function honours(field: string, want: JsonValue, have: JsonValue): boolean {
  if (field === 'version' && typeof want === 'string') {
    const range = parseVersionRange(want);
    const version = coerceVersion(have);
    if (range !== undefined && version !== undefined) return range.test(version);
  }
  return deepEqual(want, have);
}

function mismatch(field: string, want: JsonValue): MatchResult {
  return doesNotFit(field === 'version' ? `version not in ${JSON.stringify(want)}` : `${field} is not ${JSON.stringify(want)}`);
}

export function genericImplementation(opts: GenericImplementationOptions): ClaimImplementation {
  const { claimKind, claimKeys, extraKeys, specFields, concreteKind } = opts;
  const published = [...claimKeys, ...extraKeys.filter((k) => !claimKeys.some((c) => c.name === k.name))];
  const required = claimKeys.filter((k) => !k.optional).map((k) => k.name);
  const settable = (field: string) => specFields === undefined || specFields.has(field);
  return {
    claimKind,
    connectionSecretKeys: published.map((k) => k.name),
    match(claim: KObject, candidate: MatchCandidate): MatchResult {
      if (candidate.type === 'resource') {
        const spec = isPlainObject(candidate.resource.spec) ? candidate.resource.spec : {};
        const sharing = isPlainObject(spec.sharing) ? spec.sharing.mode : undefined;
        if (sharing === 'Shared') return doesNotFit(`Shared ${concreteKind} (no code in Conductor to give a claim its own share)`);
        for (const [field, want] of portableFields(claim)) {
          const have = spec[field] as JsonValue | undefined;
          if (have === undefined || have === null || !honours(field, want, have)) return mismatch(field, want);
        }
        return fits;
      }
      const spec: JsonObject = candidate.template.spec ?? {};
      for (const [field, want] of portableFields(claim)) {
        const have = spec[field];
        if (have !== undefined && have !== null) {
          if (!honours(field, want, have)) return mismatch(field, want);
        } else if (!settable(field)) {
          return doesNotFit(`${concreteKind} has no spec.${field}`);
        }
      }
      return fits;
    },
    configure(claim: KObject, template: ResourceTemplate): JsonObject {
      const spec: JsonObject = structuredClone(template.spec ?? {});
      for (const [field, want] of portableFields(claim)) {
        const have = spec[field];
        if ((have === undefined || have === null) && settable(field)) spec[field] = structuredClone(want);
      }
      return spec;
    },
    formatConnection(details: ConnectionDetails): ConnectionDetails {
      if (claimKeys.length === 0) return { ...details };
      const missing = required.filter((k) => details[k] === undefined);
      if (missing.length > 0) throw new MissingConnectionKeysError(claimKind, missing);
      const out: ConnectionDetails = {};
      for (const k of published) if (details[k.name] !== undefined) out[k.name] = details[k.name];
      return out;
    },
  };
}
