/**
 * Runs of resources in key order, as a lookup hands them to the scheduler, and their merge
 * into one key order: a search that stops early then sees the same candidates for the same
 * contents, whatever order they were added in.
 */
import type { SortedCursor } from './chunked-sorted-map.js';
import type { ResourceCandidate } from './types.js';

/**
 * A SortedRun is resources with their keys, visited in ascending key order unless `sorted`
 * is false. The index's region buckets are runs (ChunkedSortedMap), and so is a scan's list.
 */
export interface SortedRun {
  readonly size: number;
  readonly sorted?: false;
  /** forEach visits the resources in order until `visit` returns false; it returns whether it visited them all. */
  forEach(visit: (c: ResourceCandidate, key: string) => boolean): boolean;
  /** A cursor on the first resource. */
  cursor(): SortedCursor<ResourceCandidate>;
}

/** An ArrayRun is a run held in two parallel arrays (a scan's), sorted by key unless said otherwise. */
export class ArrayRun implements SortedRun {
  readonly sorted?: false;

  constructor(
    readonly keys: readonly string[],
    readonly items: readonly ResourceCandidate[],
    sorted = true,
  ) {
    if (keys.length !== items.length) throw new Error(`a run has ${keys.length} keys for ${items.length} resources: expected one key per resource`);
    if (!sorted) this.sorted = false;
  }

  get size(): number {
    return this.items.length;
  }

  forEach(visit: (c: ResourceCandidate, key: string) => boolean): boolean {
    const { keys, items } = this;
    for (let i = 0; i < items.length; i++) if (!visit(items[i], keys[i])) return false;
    return true;
  }

  cursor(): SortedCursor<ResourceCandidate> {
    const { keys, items } = this;
    let i = 0;
    const cur = {
      key: keys[0],
      value: items[0],
      next(): void {
        i++;
        cur.key = keys[i];
        cur.value = items[i];
      },
    };
    return cur;
  }
}

/**
 * forEachInKeyOrder visits the runs' resources merged into ascending key order (an
 * unsorted run is visited as it is, and only valid alone), leaving out keys in `skip`,
 * until `visit` returns false. It returns whether it visited everything.
 */
export function forEachInKeyOrder(
  runs: readonly SortedRun[],
  skip: ReadonlySet<string> | undefined,
  visit: (c: ResourceCandidate, key: string) => boolean,
): boolean {
  let only: SortedRun | undefined;
  let live = 0;
  for (const r of runs) {
    if (r.size === 0) continue;
    live++;
    only = r;
  }
  if (only === undefined) return true;
  if (live === 1) return only.forEach(skip === undefined ? visit : (c, k) => skip.has(k) || visit(c, k));
  if (runs.some((r) => r.sorted === false && r.size > 0)) throw new Error('forEachInKeyOrder: an unsorted run can only be visited alone');
  // Few runs (one per accepted region and open group): pick the smallest head linearly.
  const heads: SortedCursor<ResourceCandidate>[] = [];
  for (const r of runs) if (r.size > 0) heads.push(r.cursor());
  for (;;) {
    let best: SortedCursor<ResourceCandidate> | undefined;
    let bestKey = '';
    for (let h = 0; h < heads.length; h++) {
      const k = heads[h].key;
      if (k !== undefined && (best === undefined || k < bestKey)) {
        best = heads[h]!;
        bestKey = k;
      }
    }
    if (best === undefined) return true;
    const item = best.value!;
    best.next();
    if (skip !== undefined && skip.has(bestKey)) continue;
    if (!visit(item, bestKey)) return false;
  }
}
