/**
 * What RBAC's built-in roles know of Conductor's kinds: the claim and concrete resources of
 * the catalog, and the rule telling claim and concrete CRDs apart (docs/design.md 3.1: a claim kind is
 * in the `claim` category or labelled `conductor.io/abstract: "true"`; a concrete kind is in
 * the `managed` category or annotated `conductor.io/implements`, as an out-of-process
 * provider's kinds are). The API server is given this; it does not know claims itself.
 */
import { definesClaimKind, definesConcreteKind } from '../apis/index.js';
import type { CrdKinds, RbacKinds } from '../apiserver/authz/index.js';
import type { ClaimTypeIndex } from './admission/claim-types.js';
import type { ConductorKinds } from './kinds.js';

export const conductorCrdKinds: CrdKinds = {
  isClaim: (crd) => definesClaimKind(crd),
  isConcrete: (crd) => !definesClaimKind(crd) && definesConcreteKind(crd),
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
