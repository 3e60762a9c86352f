/**
 * The kinds this Conductor serves, taken from ONE place: today the catalog of `apis/`. When
 * `conductor/catalog.ts` builds the catalog from the provider modules, `conductorKinds` is the
 * one function to change.
 */
import type { KObject } from '../machinery/object.js';
import { allCrds, claimKinds, concreteKinds, type KindDefinition } from '../apis/index.js';

export interface ConductorKinds {
  /** The claim (abstract) kinds. */
  claimKinds: readonly KindDefinition[];
  /** The concrete kinds of the built-in providers. */
  concreteKinds: readonly KindDefinition[];
  /** Fresh copies of every CRD to install (administrators' kinds, claim kinds, concrete kinds). */
  crds(): KObject[];
}

export function conductorKinds(): ConductorKinds {
  return { claimKinds, concreteKinds, crds: allCrds };
}
