/**
 * The catalog of every kind Conductor defines: the claim kinds, the concrete kinds of the
 * built-in providers and the administrators' kinds, with their CRDs and ResourceRefs.
 */
import type { KObject } from '../machinery/object.js';
import type { KindDefinition } from './schema/kind.js';
import { storageKinds, storageRefs } from './storage/index.js';
import { cacheKinds, cacheRefs } from './cache/index.js';
import { messagingKinds, messagingRefs } from './messaging/index.js';
import { networkKinds, networkRefs } from './network/index.js';
import { coreKinds, coreRefs } from './core/index.js';
import { localDatabaseKinds, localDatabaseRefs } from './local-database/index.js';
import { memoryKinds, memoryRefs } from './memory/index.js';
import { localCacheKinds, localCacheRefs } from './local-cache/index.js';
import { localMessagingKinds, localMessagingRefs } from './local-messaging/index.js';
import { localStorageKinds, localStorageRefs } from './local-storage/index.js';
import { localNetworkKinds, localNetworkRefs } from './local-network/index.js';

/** The built-in claim (abstract) kinds. */
export const claimKinds: readonly KindDefinition[] = [...storageKinds, ...cacheKinds, ...messagingKinds, ...networkKinds];

/** The built-in concrete (managed) kinds. */
export const concreteKinds: readonly KindDefinition[] = [...localDatabaseKinds, ...memoryKinds, ...localCacheKinds, ...localMessagingKinds, ...localStorageKinds, ...localNetworkKinds];

/** The administrators' kinds of core.conductor.io. */
export const adminKinds: readonly KindDefinition[] = [...coreKinds];

/** Every kind, in the order their CRDs are installed. */
export const allKinds: readonly KindDefinition[] = [...adminKinds, ...claimKinds, ...concreteKinds];

/** Fresh copies of every CRD. */
export function allCrds(): KObject[] {
  return allKinds.map((k) => k.crd());
}

/** ResourceRefs for the Client, by plural resource name. */
export const apiRefs = {
  ...coreRefs,
  ...storageRefs,
  ...cacheRefs,
  ...messagingRefs,
  ...networkRefs,
  ...localDatabaseRefs,
  ...memoryRefs,
  ...localCacheRefs,
  ...localMessagingRefs,
  ...localStorageRefs,
  ...localNetworkRefs,
} as const;

/** The kind definition serving `group`/`kind` (the kind matched case-insensitively), if any. */
export function findKind(group: string, kind: string): KindDefinition | undefined {
  const k = kind.toLowerCase();
  return allKinds.find((d) => d.group === group && d.kind.toLowerCase() === k);
}
