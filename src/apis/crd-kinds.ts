/**
 * Kinds read from their CustomResourceDefinitions, for kinds Conductor has no code for: a
 * claim kind is a served, namespaced CRD labelled `conductor.io/abstract: "true"` (or in the
 * `claim` category); a concrete kind is a served, namespaced CRD whose
 * `conductor.io/implements` annotation names the claim kinds it implements. Both may carry
 * `conductor.io/connection-keys`. Reading is defensive (the CRD may come from anyone with the
 * right to create CRDs): what cannot be read is an error that says which field and what was
 * expected, never a guess.
 */
import type { ResourceRef } from '../client/types.js';
import { isPlainObject, type KObject } from '../machinery/object.js';
import { isClaimCrd, implementedClaimKinds } from './crd-metadata.js';
import { crdEstablished } from './install.js';
import { CLAIM_CATEGORY, CONNECTION_KEYS_ANNOTATION, IMPLEMENTS_ANNOTATION, MANAGED_CATEGORY } from './well-known.js';

/** A kind as its CRD names it, with the Client's handle on its served storage version. */
export interface CrdKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** `<plural>.<group>`. */
  readonly crdName: string;
  readonly ref: ResourceRef;
}

/** A ConnectionKey is one documented key of a connection Secret; `optional` keys are published when the implementation has them. */
export interface ConnectionKey {
  readonly name: string;
  readonly optional: boolean;
}

/** A claim kind defined by its CRD. */
export interface CrdClaimKind extends CrdKind {
  /** Its connection Secret's keys (none declared: whatever the implementation publishes). */
  readonly connectionKeys: readonly ConnectionKey[];
}

/** A concrete kind defined by its CRD. */
export interface CrdConcreteKind extends CrdKind {
  /** The claim kinds it implements, as `<plural>.<group>`. */
  readonly implements: readonly string[];
  /** The keys it publishes beyond its claim kinds' keys. */
  readonly connectionKeys: readonly ConnectionKey[];
  /**
   * The top-level fields its `spec` schema declares, or undefined when the schema keeps
   * unknown fields (any field can be set).
   */
  readonly specFields: ReadonlySet<string> | undefined;
}

/** What reading a CRD as a kind came to: not such a kind, the kind, or why it cannot be served. */
export type CrdReading<K> = { readonly type: 'none' } | { readonly type: 'kind'; readonly kind: K } | { readonly type: 'invalid'; readonly why: string };

const NONE = Object.freeze({ type: 'none' as const });

/** A key of a Secret's data: what the API server accepts there. */
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

/** parseConnectionKeys reads a `conductor.io/connection-keys` annotation; it throws naming the bad entry. */
export function parseConnectionKeys(text: string | undefined): ConnectionKey[] {
  if (text === undefined || text.trim() === '') return [];
  const keys: ConnectionKey[] = [];
  for (const [i, raw] of text.split(',').entries()) {
    const entry = raw.trim();
    const optional = entry.endsWith('?');
    const name = optional ? entry.slice(0, -1) : entry;
    if (!SECRET_KEY.test(name) || name.length > 253) {
      throw new Error(
        `annotation ${CONNECTION_KEYS_ANNOTATION}: entry ${i + 1} (${JSON.stringify(entry)}) is not a Secret key; expected comma-separated keys of letters, digits, '-', '_' and '.', each optionally ending in '?'`,
      );
    }
    if (keys.some((k) => k.name === name)) throw new Error(`annotation ${CONNECTION_KEYS_ANNOTATION}: key ${JSON.stringify(name)} is named twice`);
    keys.push({ name, optional });
  }
  return keys;
}

/** The names, scope and served storage version of an Established CRD; undefined when it is not served or not namespaced. */
export function servedKindOf(crd: KObject): CrdKind | undefined {
  if (!crdEstablished(crd)) return undefined;
  const spec = isPlainObject(crd.spec) ? crd.spec : undefined;
  if (!spec || spec.scope !== 'Namespaced' || typeof spec.group !== 'string' || !isPlainObject(spec.names)) return undefined;
  const { kind, plural } = spec.names;
  if (typeof kind !== 'string' || typeof plural !== 'string') return undefined;
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : [];
  const served = versions.filter((v) => v.served === true && typeof v.name === 'string');
  const version = served.find((v) => v.storage === true) ?? served[0];
  if (!version) return undefined;
  const name = version.name as string;
  return {
    group: spec.group,
    version: name,
    kind,
    plural,
    crdName: `${plural}.${spec.group}`,
    ref: { group: spec.group, version: name, resource: plural, namespaced: true, kind },
  };
}

/** The version's `spec` schema's declared fields, or undefined when it keeps unknown fields. */
function specFieldsOf(crd: KObject, version: string): ReadonlySet<string> | undefined {
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : [];
  const v = versions.find((x) => x.name === version);
  const schema = v && isPlainObject(v.schema) && isPlainObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined;
  const props = schema && isPlainObject(schema.properties) ? schema.properties : undefined;
  const specSchema = props && isPlainObject(props.spec) ? props.spec : undefined;
  if (!specSchema || specSchema['x-kubernetes-preserve-unknown-fields'] === true) return undefined;
  return new Set(isPlainObject(specSchema.properties) ? Object.keys(specSchema.properties) : []);
}

function inCategory(crd: KObject, category: string): boolean {
  const spec = isPlainObject(crd.spec) ? crd.spec : undefined;
  const names = spec && isPlainObject(spec.names) ? spec.names : undefined;
  return Array.isArray(names?.categories) && names.categories.includes(category);
}

/** Whether a CRD defines a claim kind: labelled `conductor.io/abstract: "true"`, or in the `claim` category. */
export function definesClaimKind(crd: KObject): boolean {
  return isClaimCrd(crd) || inCategory(crd, CLAIM_CATEGORY);
}

/** Whether a CRD defines a concrete kind: annotated `conductor.io/implements`, or in the `managed` category. */
export function definesConcreteKind(crd: KObject): boolean {
  return crd.metadata.annotations?.[IMPLEMENTS_ANNOTATION] !== undefined || inCategory(crd, MANAGED_CATEGORY);
}

/** claimKindOfCrd reads a CRD as a claim kind. */
export function claimKindOfCrd(crd: KObject): CrdReading<CrdClaimKind> {
  if (!definesClaimKind(crd)) return NONE;
  const kind = servedKindOf(crd);
  if (!kind) return NONE;
  try {
    return { type: 'kind', kind: { ...kind, connectionKeys: parseConnectionKeys(crd.metadata.annotations?.[CONNECTION_KEYS_ANNOTATION]) } };
  } catch (err) {
    return { type: 'invalid', why: `claim kind ${kind.crdName}: ${(err as Error).message}` };
  }
}

/** concreteKindOfCrd reads a CRD as a concrete kind: one that says which claim kinds it implements. */
export function concreteKindOfCrd(crd: KObject): CrdReading<CrdConcreteKind> {
  if (crd.metadata.annotations?.[IMPLEMENTS_ANNOTATION] === undefined) return NONE;
  const kind = servedKindOf(crd);
  if (!kind) return NONE;
  if (isClaimCrd(crd)) return { type: 'invalid', why: `${kind.crdName} is labelled a claim kind and also says it implements claim kinds; it can be only one` };
  const implemented = implementedClaimKinds(crd);
  if (implemented.length === 0) {
    return {
      type: 'invalid',
      why: `concrete kind ${kind.crdName}: annotation ${IMPLEMENTS_ANNOTATION} names no claim kind; expected <plural>.<group>, comma-separated`,
    };
  }
  try {
    return {
      type: 'kind',
      kind: {
        ...kind,
        implements: implemented,
        connectionKeys: parseConnectionKeys(crd.metadata.annotations?.[CONNECTION_KEYS_ANNOTATION]),
        specFields: specFieldsOf(crd, kind.version),
      },
    };
  } catch (err) {
    return { type: 'invalid', why: `concrete kind ${kind.crdName}: ${(err as Error).message}` };
  }
}
