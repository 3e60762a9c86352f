/**
 * What controllers never read is not worth caching: `metadata.managedFields` (the server's
 * record of who set which field, often larger than the object itself) and the
 * `kubectl.kubernetes.io/last-applied-configuration` annotation (a second copy of the
 * object as last applied by kubectl). Informer caches drop both when an object arrives.
 */
import type { KObject } from '../machinery/object.js';

/** The annotation `kubectl apply` (client-side) keeps the applied object in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * dropUnreadFields returns `obj` without managedFields and the last-applied annotation. It
 * never changes `obj` (which may be shared with other watchers): when there is something to
 * drop it returns a copy of the top level, metadata and annotations, sharing everything else;
 * when there is nothing, it returns `obj` itself.
 */
export function dropUnreadFields<T extends KObject>(obj: T): T {
  const meta = obj.metadata;
  if (meta === undefined) return obj;
  const hasManagedFields = meta.managedFields !== undefined;
  const hasLastApplied = meta.annotations !== undefined && LAST_APPLIED_ANNOTATION in meta.annotations;
  if (!hasManagedFields && !hasLastApplied) return obj;
  const { managedFields: _dropped, ...kept } = meta;
  if (hasLastApplied) {
    const { [LAST_APPLIED_ANNOTATION]: _lastApplied, ...annotations } = meta.annotations!;
    if (Object.keys(annotations).length > 0) kept.annotations = annotations;
    else delete kept.annotations;
  }
  return { ...obj, metadata: kept };
}
