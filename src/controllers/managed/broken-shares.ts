/**
 * Broken shares (providers/spi.ts `ExternalObservation.brokenShares`): bound claims of a
 * Shared resource whose own database, user or bucket is missing. The managed reconciler
 * publishes them in `status.atProvider.brokenShares`, stamped with the observation time so
 * that every observation finding them is a change that wakes the bound claims; the claim
 * controller repairs each through `bindClaim`. Nothing is written while all shares are whole.
 */
import type { JsonObject, KObject } from '../../machinery/object.js';
import type { BrokenShare } from '../../providers/spi.js';

/** A PublishedBrokenShare is one entry of `status.atProvider.brokenShares`. */
export interface PublishedBrokenShare {
  /** `namespace/name` of the claim. */
  claim: string;
  uid?: string;
  missing: string;
}

/** withBrokenShares adds the broken shares (if any) and the time they were seen to an observation's atProvider. */
export function withBrokenShares(atProvider: JsonObject | undefined, broken: BrokenShare[] | undefined, now: Date): JsonObject | undefined {
  if (!broken || broken.length === 0) return atProvider;
  const published: PublishedBrokenShare[] = broken.map((b) => ({
    claim: `${b.claim.namespace}/${b.claim.name}`,
    ...(b.claim.uid ? { uid: b.claim.uid } : {}),
    missing: b.missing,
  }));
  return { ...(atProvider ?? {}), brokenShares: published as unknown as JsonObject[], brokenSharesObservedAt: now.toISOString() };
}

/** describeBrokenShares says what is missing, for an Event: `claim a/b: database and user missing; ...`. */
export function describeBrokenShares(broken: BrokenShare[]): string {
  return broken.map((b) => `claim ${b.claim.namespace}/${b.claim.name}: ${b.missing} missing`).join('; ');
}

/** brokenShareOf finds the claim's entry in a resource's published broken shares. */
export function brokenShareOf(resource: KObject, claim: KObject): PublishedBrokenShare | undefined {
  const atProvider = ((resource.status ?? {}) as { atProvider?: { brokenShares?: unknown } }).atProvider;
  const list = Array.isArray(atProvider?.brokenShares) ? (atProvider.brokenShares as PublishedBrokenShare[]) : [];
  const key = `${claim.metadata.namespace}/${claim.metadata.name}`;
  return list.find((b) => b?.claim === key && (!b.uid || b.uid === claim.metadata.uid));
}
