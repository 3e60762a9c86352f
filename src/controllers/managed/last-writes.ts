/**
 * LastWrites remembers, per resource, the version of the reconciler's latest write until its
 * informer's cache shows that version — so a reconcile can start from the cached copy (no
 * read of the API) unless the cache is known to be behind the reconciler's own last write.
 *
 * The cache can also be behind someone else's write; that is what compare-and-swap is for (a
 * write from a stale copy is a 409 and the reconcile looks again), as with any informer.
 * Being behind the reconciler's own write is different: a reconcile from such a copy would
 * redo work the reconciler just recorded (see the pending mark of a create), only to fail its
 * compare-and-swap — so then the API is read instead.
 */
import { objectKey } from '../../client/object-cache.js';
import type { KObject } from '../../machinery/object.js';

export class LastWrites {
  private readonly versions = new Map<string, string>();

  /** wrote notes `written` (as the API answered the write) as the latest write to its resource. */
  wrote(written: KObject): void {
    const rv = written.metadata.resourceVersion;
    if (rv) this.versions.set(objectKey(written), rv);
  }

  /** seen is told each object the cache receives: one showing the latest write settles it. */
  seen(obj: KObject): void {
    const key = objectKey(obj);
    if (this.versions.get(key) === obj.metadata.resourceVersion) this.versions.delete(key);
  }

  /**
   * usable says whether a reconcile may start from `cached`: no own write is waiting to reach
   * the cache, or `cached` is that write.
   */
  usable(cached: KObject): boolean {
    const rv = this.versions.get(objectKey(cached));
    if (rv === undefined) return true;
    if (rv !== cached.metadata.resourceVersion) return false;
    this.versions.delete(objectKey(cached));
    return true;
  }

  /**
   * caughtUp is told what the API answered when the cache was not usable: when the cache
   * holds that same version, it has caught up (the write's event came before the write's
   * answer, or a later write's did) and the remembered version is dropped.
   */
  caughtUp(live: KObject, cached: KObject | undefined): void {
    if (cached && cached.metadata.resourceVersion === live.metadata.resourceVersion) this.versions.delete(objectKey(live));
  }

  /** forget drops what is known of a resource (deleted). */
  forget(obj: KObject): void {
    this.versions.delete(objectKey(obj));
  }

  /** How many resources have a write the cache has not shown yet (for tests). */
  get size(): number {
    return this.versions.size;
  }
}
