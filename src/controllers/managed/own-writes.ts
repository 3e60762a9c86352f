/**
 * OwnWrites remembers the resourceVersions of the reconciler's own writes to each resource,
 * so that the watch event of such a write — which tells the reconcile that made it nothing
 * it did not know — does not start another reconcile of the resource (a create wrote the
 * pending mark and the outcome: two events that used to cost one more full reconcile, reads
 * of the Provider and credentials and an observation of the external resource included).
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
    const key = objectKey(seen);
    const list = this.versions.get(key);
    const rv = seen.metadata.resourceVersion;
    if (!list || !rv) return false;
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
