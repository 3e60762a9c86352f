/**
 * What RBAC's built-in roles know of Conductor's kinds: the claim and concrete resources of
 * the catalog, and the rule telling claim and concrete CRDs apart (docs/design.md 3.1: a claim kind is
 * in the `claim` category or labelled `conductor.io/abstract: "true"`; a concrete kind is in
 * the `managed` category). The API server is given this; it does not know claims itself.
 */
import { CLAIM_CATEGORY, isClaimCrd, MANAGED_CATEGORY } from '../apis/index.js';
import type { CrdKinds, RbacKinds } from '../apiserver/authz/index.js';
import { isPlainObject, type KObject } from '../machinery/object.js';
import type { ClaimTypeIndex } from './admission/claim-types.js';
import type { ConductorKinds } from './kinds.js';

function categoriesOf(crd: KObject): unknown[] {
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  const names = isPlainObject(spec.names) ? spec.names : {};
  return Array.isArray(names.categories) ? names.categories : [];
}

export const conductorCrdKinds: CrdKinds = {
  isClaim: (crd) => categoriesOf(crd).includes(CLAIM_CATEGORY) || isClaimCrd(crd),
  isConcrete: (crd) => categoriesOf(crd).includes(MANAGED_CATEGORY),
};

/** RBAC's kinds for `kinds`; `claimTypes` tells served claim kinds (also those known by label only). */
export function conductorRbacKinds(kinds: ConductorKinds, claimTypes: ClaimTypeIndex): RbacKinds {
  return {
    resources: {
      claimResources: kinds.claimKinds.map((k) => ({ group: k.group, resource: k.plural })),
      concreteResources: kinds.concreteKinds.map((k) => ({ group: k.group, resource: k.plural })),
    },
    crds: conductorCrdKinds,
    isClaim: (rt) => claimTypes.isClaim(rt),
  };
}
