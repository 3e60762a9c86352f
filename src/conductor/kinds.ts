/**
 * The kinds this Conductor serves, as the rest of the root needs them: taken from the catalog
 * (`catalog.ts`: apis/' claim and admin kinds and the built-in providers' concrete kinds).
 */
import type { KObject } from '../machinery/object.js';
import { implementedClaimKinds, type KindDefinition } from '../apis/index.js';
import { allCrds, claimKinds, concreteKinds } from './catalog.js';

export interface ConductorKinds {
  /** The claim (abstract) kinds. */
  claimKinds: readonly KindDefinition[];
  /** The concrete kinds of the built-in providers. */
  concreteKinds: readonly { group: string; plural: string }[];
  /** Fresh copies of every CRD to install (administrators' kinds, claim kinds, concrete kinds). */
  crds(): KObject[];
  /** The claim kinds (`<plural>.<group>`) a built-in concrete kind implements; undefined for any other kind. */
  implementsOf: (group: string, plural: string) => readonly string[] | undefined;
}

export function conductorKinds(): ConductorKinds {
  const implemented = new Map(concreteKinds.map((k) => [`${k.plural}.${k.group}`, implementedClaimKinds(k.crd())]));
  return { claimKinds, concreteKinds, crds: allCrds, implementsOf: (group, plural) => implemented.get(`${plural}.${group}`) };
}
