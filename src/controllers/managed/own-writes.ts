/**
 * OwnWrites remembers the resourceVersions of the reconciler's own writes to each resource,
 * so that the watch event of such a write — which tells the reconcile that made it nothing
 * it did not know — does not start another reconcile of the resource (a create wrote the
 * pending mark and the outcome: two events that used to cost one more full reconcile, reads
 * of the Provider and credentials and an observation of the external resource included).
 *
 * A write's event often comes before the write's answer (the store fans an event out to the
 * in-process watches in the same turn as it settles the write, and the answer reaches the
 * reconcile a few promise steps later), so its version is not recorded yet when the event is
 * judged. Events for a resource being reconciled (`begin` … `end`) are therefore judged at
 * the reconcile's end: the resource is looked at again only when one of them was not its own.
 * That is no later than before — a resource enqueued while its reconcile runs runs again only
 * once that reconcile is over.
 *
 * Only a version that differs from what the reconciler read by its own change is recorded:
 * a compare-and-swap write (an update carrying the resourceVersion it read), or a patch whose
 * result shows nothing else changed. An event of any other write (an administrator's, a
 * claim controller's) has another version and is looked at as before. Entries go when their
 * event comes, and with the resource; at most a few versions per resource are kept.
 */
import { objectKey } from '../../client/object-cache.js';
import type { KObject } from '../../machinery/object.js';

const VERSIONS_PER_RESOURCE = 4;

export class OwnWrites {
  private readonly versions = new Map<string, string[]>();
  /** Resources being reconciled, with the versions of the events that came meanwhile and were not known as own. */
  private readonly reconciling = new Map<string, string[]>();

  /** begin notes that a reconcile of the resource `key` (`namespace/name`) starts. */
  begin(key: string): void {
    this.reconciling.set(key, []);
  }

  /**
   * defer keeps `seen` (an event's object that `consume` did not know) for the end of its
   * resource's reconcile, and says true; false when the resource is not being reconciled.
   */
  defer(seen: KObject): boolean {
    const list = this.reconciling.get(objectKey(seen));
    const rv = seen.metadata.resourceVersion;
    if (!list || !rv) return false;
    list.push(rv);
    return true;
  }

  /** end closes a `begin`; true when an event came meanwhile that was not one of the reconcile's own writes. */
  end(key: string): boolean {
    const list = this.reconciling.get(key);
    this.reconciling.delete(key);
    let foreign = false;
    for (const rv of list ?? []) if (!this.consumeVersion(key, rv)) foreign = true;
    return foreign;
  }

  /** record notes that `written` (as the API answered the write) is the reconciler's own. */
  record(written: KObject): void {
    const rv = written.metadata.resourceVersion;
    if (!rv) return;
    const key = objectKey(written);
    const list = this.versions.get(key) ?? [];
    list.push(rv);
    if (list.length > VERSIONS_PER_RESOURCE) list.shift();
    this.versions.set(key, list);
  }

  /** consume says whether `seen` (a watch event's object) is one of the reconciler's own writes, and forgets it. */
  consume(seen: KObject): boolean {
    const rv = seen.metadata.resourceVersion;
    return rv ? this.consumeVersion(objectKey(seen), rv) : false;
  }

  private consumeVersion(key: string, rv: string): boolean {
    const list = this.versions.get(key);
    if (!list) return false;
    const i = list.indexOf(rv);
    if (i < 0) return false;
    // Versions up to this one are behind: their events came before (or never will).
    list.splice(0, i + 1);
    if (list.length === 0) this.versions.delete(key);
    return true;
  }

  /** forget drops what is known of a resource (deleted). */
  forget(obj: KObject): void {
    this.versions.delete(objectKey(obj));
  }

  /** How many resources have writes whose events have not come yet (for tests). */
  get size(): number {
    return this.versions.size;
  }
}
