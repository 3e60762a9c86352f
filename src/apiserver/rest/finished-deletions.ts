/**
 * When an object being deleted is finished: it has a deletionTimestamp and nothing left that
 * holds it (no metadata.finalizers, and for a namespace no spec.finalizers). Such an object
 * must not stay stored: the update that removes the last finalizer deletes it in the same
 * store write (handlers.ts), and `sweepFinishedDeletions` removes, at start-up, any object a
 * crash of an older version left in that state.
 */
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import { StoreError, type KeyValue, type Store } from '../../store/types.js';

/** The key prefix of namespaces (cluster-scoped, core group). */
const NAMESPACES_PREFIX = '/registry/core/namespaces/';

/** True when `obj`, of a resource that is (or is not) `namespaces`, is being deleted and nothing holds it any more. */
export function deletionFinished(obj: KObject, isNamespace: boolean): boolean {
  const m = obj.metadata;
  if (!m?.deletionTimestamp) return false;
  if ((m.finalizers ?? []).length > 0) return false;
  if (isNamespace && namespaceSpecFinalizers(obj).length > 0) return false;
  return true;
}

export function namespaceSpecFinalizers(obj: KObject): string[] {
  const spec = obj.spec;
  if (!isPlainObject(spec) || !Array.isArray(spec.finalizers)) return [];
  return spec.finalizers as string[];
}

export interface SweepLogger {
  warn(obj: object, msg: string): void;
}

/**
 * Removes every stored object whose deletion is finished (see deletionFinished), each with a
 * compare-and-swap delete at the revision it was read at, so an object changed meanwhile is
 * left alone. Returns the keys removed. Reads the store in pages; values without a
 * deletionTimestamp are not parsed. `store` is the raw store and `open` decrypts what it holds
 * encrypted; a value that cannot be opened is skipped.
 */
export async function sweepFinishedDeletions(
  store: Store,
  logger: SweepLogger,
  prefix = '/registry/',
  open: (kv: KeyValue) => KeyValue = (kv) => kv,
): Promise<string[]> {
  const removed: string[] = [];
  let startAfter: string | undefined;
  for (;;) {
    const page = await store.list(prefix, { limit: 1000, startAfter });
    for (const stored of page.items) {
      // Encrypted values (Secrets) are opened one by one: a value whose key is missing is left
      // for the API to report (503 naming the key) instead of stopping the start.
      let kv: KeyValue;
      try {
        kv = open(stored);
      } catch {
        continue;
      }
      if (!kv.value.includes('"deletionTimestamp"')) continue;
      let obj: KObject;
      try {
        obj = JSON.parse(kv.value) as KObject;
      } catch {
        continue; // not an object of ours; nothing to decide
      }
      if (!isPlainObject(obj) || !isPlainObject(obj.metadata)) continue;
      if (!deletionFinished(obj, kv.key.startsWith(NAMESPACES_PREFIX))) continue;
      try {
        await store.delete(kv.key, kv.modRevision);
        removed.push(kv.key);
        logger.warn(
          { key: kv.key, deletionTimestamp: obj.metadata.deletionTimestamp },
          'removed an object left being deleted with no finalizers (an earlier stop interrupted its deletion)',
        );
      } catch (err) {
        if (err instanceof StoreError && (err.code === 'conflict' || err.code === 'not-found')) continue;
        throw err;
      }
    }
    if (!page.more || page.items.length === 0) break;
    startAfter = page.items[page.items.length - 1].key;
  }
  return removed;
}
