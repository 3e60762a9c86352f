/**
 * Reading the Conductor-specific metadata of any CRD, including CRDs Conductor did not
 * define: whether it is a claim kind (label conductor.io/abstract) and which claim kinds a
 * concrete kind implements (annotation conductor.io/implements), and the
 * `Kind.version.group` notation of ResourceClass.supportedResources.
 */
import type { KObject } from '../machinery/object.js';
import { isPlainObject } from '../machinery/object.js';
import { ABSTRACT_LABEL, IMPLEMENTS_ANNOTATION } from './well-known.js';

/** Whether a CRD defines a claim (abstract) kind. */
export function isClaimCrd(crd: KObject): boolean {
  return crd.metadata.labels?.[ABSTRACT_LABEL] === 'true';
}

/** The claim kinds (`<plural>.<group>`) a concrete kind's CRD says it implements. */
export function implementedClaimKinds(crd: KObject): string[] {
  const raw = crd.metadata.annotations?.[IMPLEMENTS_ANNOTATION] ?? '';
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** A claim kind named in Kind.version.group notation. */
export interface SupportedResource {
  kind: string;
  version: string;
  group: string;
}

/**
 * Reads `MySqlInstance.v1alpha1.storage.conductor.io`: the kind up to the first dot, the
 * version up to the second, the group after. Returns undefined when a part is missing.
 */
export function parseSupportedResource(text: string): SupportedResource | undefined {
  const first = text.indexOf('.');
  if (first <= 0) return undefined;
  const second = text.indexOf('.', first + 1);
  if (second <= first + 1 || second === text.length - 1) return undefined;
  return { kind: text.slice(0, first), version: text.slice(first + 1, second), group: text.slice(second + 1) };
}

/** Whether a supportedResources entry names this claim kind (kinds compare case-insensitively). */
export function supportsKind(entry: string, claim: { group: string; version: string; kind: string }): boolean {
  const r = parseSupportedResource(entry);
  return r !== undefined && r.group === claim.group && r.version === claim.version && r.kind.toLowerCase() === claim.kind.toLowerCase();
}

/** The group and names of a CRD, read defensively (for CRDs from anywhere). */
export function crdNames(crd: KObject): { group: string; kind: string; plural: string } | undefined {
  const spec = crd.spec;
  if (!isPlainObject(spec) || typeof spec.group !== 'string' || !isPlainObject(spec.names)) return undefined;
  const { kind, plural } = spec.names;
  if (typeof kind !== 'string' || typeof plural !== 'string') return undefined;
  return { group: spec.group, kind, plural };
}
