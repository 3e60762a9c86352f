/**
 * Which resource a claim is bound to is recorded on the resource, never on the claim: an
 * Exclusive resource's `spec.claimRef`, a Shared resource's `status.bindings`, both written
 * only by controllers and administrators. A claim's `status.resourceRef` is a copy for people
 * and tools; whoever can write the claim's status could point it anywhere, so nothing the
 * controller publishes, resizes or releases follows it without this check.
 */
import type { KObject } from '../../machinery/object.js';

interface RefLike {
  namespace?: unknown;
  name?: unknown;
  uid?: unknown;
}

/** isExclusive says whether a resource serves one claim (`spec.sharing.mode` other than Shared). */
export function isExclusive(resource: KObject): boolean {
  const spec = (resource.spec ?? {}) as { sharing?: { mode?: string } };
  return spec.sharing?.mode !== 'Shared';
}

/** refNames says whether a claimRef names the claim by namespace, name and uid (all three present and equal). */
export function refNames(ref: RefLike | undefined, claim: KObject): boolean {
  const { namespace, name, uid } = claim.metadata;
  if (!ref || !namespace || !name || !uid) return false;
  return ref.namespace === namespace && ref.name === name && ref.uid === uid;
}

/**
 * resourceNamesClaim says whether the resource's own record binds it to `claim`: an Exclusive
 * resource whose `spec.claimRef` names the claim's namespace, name and uid, or a Shared
 * resource listing a binding in `status.bindings` whose claimRef does. A claimRef without a
 * uid (an administrator's reservation not yet taken up) binds nothing yet.
 */
export function resourceNamesClaim(resource: KObject, claim: KObject): boolean {
  if (isExclusive(resource)) return refNames((resource.spec as { claimRef?: RefLike } | undefined)?.claimRef, claim);
  const bindings = ((resource.status ?? {}) as { bindings?: unknown }).bindings;
  if (!Array.isArray(bindings)) return false;
  return bindings.some((b) => typeof b === 'object' && b !== null && refNames((b as { claimRef?: RefLike }).claimRef, claim));
}

/**
 * bindingOf returns the claim's entry in a Shared resource's `status.bindings`, matched by
 * namespace, name and uid.
 */
export function bindingOf<B extends { claimRef?: RefLike }>(resource: KObject, claim: KObject): B | undefined {
  const bindings = ((resource.status ?? {}) as { bindings?: unknown }).bindings;
  if (!Array.isArray(bindings)) return undefined;
  return (bindings as B[]).find((b) => typeof b === 'object' && b !== null && refNames(b.claimRef, claim));
}

/**
 * admitsClaim says whether an Exclusive resource's `spec.claimRef` lets `claim` bind it: it
 * names the claim's namespace and name, and its uid (when recorded) and kind (when recorded)
 * are the claim's. An administrator reserves a resource for a claim yet to be made by leaving
 * the uid out; the binding then records it.
 */
export function admitsClaim(ref: (RefLike & { apiVersion?: unknown; kind?: unknown }) | undefined, claim: KObject): boolean {
  if (!ref) return true;
  if (ref.namespace !== claim.metadata.namespace || ref.name !== claim.metadata.name) return false;
  if (ref.uid !== undefined && ref.uid !== '' && ref.uid !== claim.metadata.uid) return false;
  if (typeof ref.kind === 'string' && ref.kind !== '' && ref.kind.toLowerCase() !== claim.kind.toLowerCase()) return false;
  if (typeof ref.apiVersion === 'string' && ref.apiVersion !== '' && groupOf(ref.apiVersion).toLowerCase() !== groupOf(claim.apiVersion).toLowerCase())
    return false;
  return true;
}

/** claimUidsOf lists the uids of the claims a resource's own record binds (Exclusive claimRef, Shared bindings). */
export function claimUidsOf(resource: KObject): string[] {
  const uids: string[] = [];
  if (isExclusive(resource)) {
    const uid = (resource.spec as { claimRef?: RefLike } | undefined)?.claimRef?.uid;
    if (typeof uid === 'string' && uid !== '') uids.push(uid);
    return uids;
  }
  const bindings = ((resource.status ?? {}) as { bindings?: unknown }).bindings;
  if (Array.isArray(bindings)) {
    for (const b of bindings) {
      const uid = typeof b === 'object' && b !== null ? (b as { claimRef?: RefLike }).claimRef?.uid : undefined;
      if (typeof uid === 'string' && uid !== '') uids.push(uid);
    }
  }
  return uids;
}

/**
 * boundResourceIndex answers, for a claim, the resource among `resources` whose own record
 * binds it (resourceNamesClaim), or undefined: what quota accounting prices a claim by,
 * instead of the claim's status.
 */
export function boundResourceIndex(resources: Iterable<KObject>): (claim: KObject) => KObject | undefined {
  const byUid = new Map<string, KObject[]>();
  for (const r of resources) {
    for (const uid of claimUidsOf(r)) {
      const list = byUid.get(uid);
      if (list) list.push(r);
      else byUid.set(uid, [r]);
    }
  }
  return (claim) => {
    const uid = claim.metadata.uid;
    return uid ? byUid.get(uid)?.find((r) => resourceNamesClaim(r, claim)) : undefined;
  };
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}
