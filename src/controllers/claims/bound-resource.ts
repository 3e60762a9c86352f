/**
 * The resource a claim's status names, believed only when that resource's own record binds
 * the claim (binding-check.ts): a claim's `status.resourceRef` is a copy for people, and
 * whoever can write it could name another tenant's resource.
 */
import type { Client } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import { resourceNamesClaim } from './binding-check.js';
import type { ClaimCaches, FoundResource } from './claim-caches.js';
import type { ResourceReference } from './claim-status.js';

/**
 * verifiedResource is the resource `ref` names if that resource's own record binds it to the
 * claim; undefined when it is gone, binds something else, or is of a kind not served. The
 * cache (or `known`, a resource just written) is asked first; when it disagrees, the API (it
 * may lag behind a binding just written).
 */
export async function verifiedResource(
  client: Client,
  caches: ClaimCaches,
  claim: Claim,
  ref: ResourceReference,
  known?: ConcreteResource,
): Promise<FoundResource | undefined> {
  const concrete = caches.concreteOf(ref.apiVersion, ref.kind);
  if (!concrete) return undefined;
  const holds = (r: ConcreteResource | undefined): r is ConcreteResource =>
    r !== undefined && (!ref.uid || r.metadata.uid === ref.uid) && resourceNamesClaim(r, claim);
  const cached = known ?? concrete.informer.store.get(ref.namespace, ref.name);
  if (holds(cached)) return { entry: concrete, resource: cached };
  try {
    const live = await client.get<ConcreteResource>(concrete.ref, ref.name, ref.namespace);
    return holds(live) ? { entry: concrete, resource: live } : undefined;
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}
