/**
 * In-use protection (docs/design.md 3.6 point 4): a concrete resource a claim still uses is not
 * deleted under it. The managed reconciler keeps its finalizer while `claimsUsing` finds a
 * claim, the way a bound PersistentVolume waits for its claim: the object shows its
 * deletionTimestamp, the external resource stays as it is and keeps serving, and once every
 * claim has let go the deletion proceeds by the resource's rebind policy.
 *
 * A claim uses a resource when the resource names it — `spec.claimRef` of an Exclusive
 * resource that is not Released, or an entry of `status.bindings` (Shared) — and the claim
 * itself agrees: it exists, has the uid the reference records (when it records one) and is
 * not being deleted (a claim being deleted is releasing the resource; its release is what
 * the deletion waits for). Only the resource's own fields and the claim's metadata are read:
 * a claim's status is never trusted.
 */
import type { Client, ResourceRef } from '../../client/types.js';
import { claimKinds } from '../../apis/catalog.js';
import { isNotFound } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject, parseApiVersion } from '../../machinery/object.js';
import type { SharingMode } from '../../apis/common/concrete.js';

/** A ClaimInUse is a claim that still uses a resource. */
export interface ClaimInUse {
  namespace: string;
  name: string;
  uid: string;
}

/** A ReferencedClaim is a claim as a resource refers to it. */
interface ReferencedClaim {
  apiVersion?: string;
  kind?: string;
  namespace: string;
  name: string;
  uid?: string;
}

function referenced(value: unknown, fallbackNamespace: string): ReferencedClaim | undefined {
  if (!isPlainObject(value) || typeof value.name !== 'string' || value.name === '') return undefined;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const apiVersion = str(value.apiVersion);
  const kind = str(value.kind);
  const uid = str(value.uid);
  return {
    ...(apiVersion ? { apiVersion } : {}),
    ...(kind ? { kind } : {}),
    namespace: str(value.namespace) ?? fallbackNamespace,
    name: value.name,
    ...(uid ? { uid } : {}),
  };
}

/**
 * referencedClaims lists the claims a resource names as bound to it: an Exclusive resource's
 * `spec.claimRef` unless the resource is Released (its claim let go; Retain keeps the
 * reference for the record), and every `status.bindings[].claimRef`.
 */
export function referencedClaims(resource: KObject, sharing: SharingMode): ReferencedClaim[] {
  const ns = resource.metadata.namespace ?? '';
  const spec = isPlainObject(resource.spec) ? resource.spec : {};
  const status = isPlainObject(resource.status) ? resource.status : {};
  const out: ReferencedClaim[] = [];
  if (sharing === 'Exclusive' && status.phase !== 'Released') {
    const ref = referenced(spec.claimRef, ns);
    if (ref) out.push(ref);
  }
  if (Array.isArray(status.bindings)) {
    for (const b of status.bindings) {
      const ref = isPlainObject(b) ? referenced(b.claimRef, ns) : undefined;
      if (ref) out.push(ref);
    }
  }
  return out;
}

/**
 * claimRefsFor are the claim kinds a reference may name: the one its apiVersion and kind
 * name, or — when it names none — every built-in claim kind (a claim's namespace and name,
 * checked against its uid, identify it well enough).
 */
function claimRefsFor(ref: ReferencedClaim): ResourceRef[] {
  if (ref.apiVersion && ref.kind) {
    const { group } = parseApiVersion(ref.apiVersion);
    const kind = ref.kind.toLowerCase();
    return claimKinds.filter((k) => k.group === group && k.kind.toLowerCase() === kind).map((k) => k.ref);
  }
  return claimKinds.map((k) => k.ref);
}

/** claimsUsing returns the claims that still use `resource` (see the file comment). */
export async function claimsUsing(client: Client, resource: KObject, sharing: SharingMode): Promise<ClaimInUse[]> {
  const users: ClaimInUse[] = [];
  const seen = new Set<string>();
  for (const ref of referencedClaims(resource, sharing)) {
    const key = `${ref.namespace}/${ref.name}/${ref.uid ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    for (const kindRef of claimRefsFor(ref)) {
      let claim: KObject;
      try {
        claim = await client.get(kindRef, ref.name, ref.namespace);
      } catch (err) {
        if (isNotFound(err)) continue;
        throw err;
      }
      if (ref.uid !== undefined && claim.metadata.uid !== ref.uid) continue;
      if (claim.metadata.deletionTimestamp) continue;
      users.push({ namespace: ref.namespace, name: ref.name, uid: claim.metadata.uid ?? '' });
      break;
    }
  }
  return users;
}

/** describeClaims names the claims for messages: `team/app` or `3 claims: team/a, team/b, …`. */
export function describeClaims(claims: readonly ClaimInUse[]): string {
  const names = claims.map((c) => `${c.namespace}/${c.name}`);
  if (names.length === 1) return `claim ${names[0]}`;
  const shown = names.slice(0, 5).join(', ');
  return `${names.length} claims (${shown}${names.length > 5 ? ', …' : ''})`;
}
