/**
 * The kinds apis/ defines: the claim (abstract) kinds and the administrators' kinds, with
 * their CRDs and ResourceRefs. Concrete kinds belong to their providers (src/providers/*);
 * the whole catalog — these plus the loaded providers' kinds — is built in
 * src/conductor/catalog.ts.
 */
import type { KObject } from '../machinery/object.js';
import type { KindDefinition } from './schema/kind.js';
import { storageKinds, storageRefs } from './storage/index.js';
import { cacheKinds, cacheRefs } from './cache/index.js';
import { messagingKinds, messagingRefs } from './messaging/index.js';
import { networkKinds, networkRefs } from './network/index.js';
import { coreKinds, coreRefs } from './core/index.js';

/** The built-in claim (abstract) kinds. */
export const claimKinds: readonly KindDefinition[] = [...storageKinds, ...cacheKinds, ...messagingKinds, ...networkKinds];

/** The administrators' kinds of core.conductor.io. */
export const adminKinds: readonly KindDefinition[] = [...coreKinds];

/** The kinds of apis/, in the order their CRDs are installed: admin kinds, then claim kinds. */
export const apiKinds: readonly KindDefinition[] = [...adminKinds, ...claimKinds];

/** Fresh copies of the CRDs of apis/ (without any provider's concrete kinds). */
export function apiCrds(): KObject[] {
  return apiKinds.map((k) => k.crd());
}

/** ResourceRefs for the Client of the kinds of apis/, by plural resource name. */
export const apiRefs = {
  ...coreRefs,
  ...storageRefs,
  ...cacheRefs,
  ...messagingRefs,
  ...networkRefs,
} as const;
