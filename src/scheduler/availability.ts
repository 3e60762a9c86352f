/**
 * Whether a candidate can take one more claim, as a named group: the Phase filter and the
 * candidate index share these definitions, so narrowing by phase in the index rejects exactly
 * what the filter would.
 */
import type { ClaimInfo, ClassCandidate, ResourceCandidate } from './types.js';

/**
 * An AvailabilityGroup is why a resource can or cannot take a claim. `open` takes any claim;
 * `bound` and `reserved` (Exclusive resources whose claimRef is set) take only the claim
 * their claimRef names; every other group takes none.
 */
export type AvailabilityGroup = 'open' | 'bound' | 'reserved' | 'full' | 'pending' | 'released' | 'failed' | 'deleting';

/**
 * availabilityGroup places a resource in its group from its deletion, phase, sharing and
 * claimRef. A resource being deleted is `deleting` whatever else it says: it takes no claim,
 * not even one its claimRef names (its deletion waits for the claims bound to it, so a new
 * one would hold it up).
 */
export function availabilityGroup(c: ResourceCandidate): AvailabilityGroup {
  if (c.deleting === true) return 'deleting';
  switch (c.phase) {
    case 'Failed':
      return 'failed';
    case 'Released':
      return 'released';
    case 'Pending':
      if (c.sharing.mode === 'Exclusive' && c.claimRef !== undefined) return 'reserved';
      return 'pending';
    case 'Available':
    case 'Bound':
      if (c.sharing.mode === 'Shared') return c.sharing.maxClaims === undefined || c.boundCount < c.sharing.maxClaims ? 'open' : 'full';
      if (c.claimRef !== undefined) return c.phase === 'Bound' ? 'bound' : 'reserved';
      return c.phase === 'Available' && c.boundCount === 0 ? 'open' : 'bound';
    default: {
      const never: never = c.phase;
      throw new Error(`unknown resource phase ${JSON.stringify(never)}: expected Pending, Available, Bound, Released or Failed`);
    }
  }
}

/** The groups whose resources still take the claim their claimRef names. */
export function isClaimSpecific(g: AvailabilityGroup): boolean {
  return g === 'bound' || g === 'reserved';
}

/** availabilitySummary is the explanation text of a group that rejects a claim. */
export function availabilitySummary(g: Exclude<AvailabilityGroup, 'open'>): string {
  switch (g) {
    case 'bound':
      return 'already bound';
    case 'reserved':
      return 'reserved for another claim';
    case 'full':
      return 'full (every shared slot taken)';
    case 'pending':
      return 'not ready (phase Pending)';
    case 'released':
      return 'released (waiting for an admin)';
    case 'failed':
      return 'failed';
    case 'deleting':
      return 'being deleted';
    default: {
      const never: never = g;
      return never;
    }
  }
}

/**
 * reservedFor says whether an Exclusive resource's claimRef names this claim (namespace and
 * name, and uid and kind when the claimRef records them) and the resource can still serve it
 * (not Failed or Released). Such a resource passes the Phase filter whatever its phase, and
 * outranks every other candidate: an admin pre-bound it, or a binder crashed between its two
 * writes.
 */
export function reservedFor(c: ResourceCandidate, claim: ClaimInfo): boolean {
  const ref = c.claimRef;
  if (ref === undefined || c.sharing.mode !== 'Exclusive') return false;
  if (c.phase === 'Failed' || c.phase === 'Released' || c.deleting === true) return false;
  if (ref.namespace !== claim.namespace || ref.name !== claim.name) return false;
  if (ref.uid !== undefined && ref.uid !== '' && ref.uid !== claim.uid) return false;
  if (
    ref.kind !== undefined &&
    (ref.kind.kind.toLowerCase() !== claim.kind.kind.toLowerCase() || ref.kind.group.toLowerCase() !== claim.kind.group.toLowerCase())
  ) {
    return false;
  }
  return true;
}

/** classHasRoom says whether a class may create one more instance. */
export function classHasRoom(c: ClassCandidate): boolean {
  return c.maxInstances <= 0 || c.instanceCount < c.maxInstances;
}
