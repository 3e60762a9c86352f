/**
 * boundClaims: the claims a concrete resource serves, as its own object records them — the
 * `status.bindings[].claimRef` of a Shared resource and the `spec.claimRef` of an Exclusive
 * one. Providers of shared servers walk this list to check and repair each claim's share.
 */
import type { KObject } from '../../machinery/object.js';
import type { ClaimRef } from '../spi.js';

interface RecordedRef {
  namespace?: unknown;
  name?: unknown;
  uid?: unknown;
}

/** boundClaims lists each bound claim once (namespace, name and uid when recorded), bindings first. */
export function boundClaims(resource: KObject): ClaimRef[] {
  const status = (resource.status ?? {}) as { bindings?: { claimRef?: RecordedRef }[] };
  const spec = (resource.spec ?? {}) as { claimRef?: RecordedRef };
  const found = new Map<string, ClaimRef>();
  const add = (ref: RecordedRef | undefined) => {
    if (typeof ref?.namespace !== 'string' || typeof ref.name !== 'string' || !ref.namespace || !ref.name) return;
    const key = `${ref.namespace}/${ref.name}`;
    if (!found.has(key)) found.set(key, { namespace: ref.namespace, name: ref.name, ...(typeof ref.uid === 'string' ? { uid: ref.uid } : {}) });
  };
  for (const binding of Array.isArray(status.bindings) ? status.bindings : []) add(binding?.claimRef);
  add(spec.claimRef);
  return [...found.values()];
}
