/**
 * Sorted keys for the watch cache's lists: the keys under a prefix in etcd's order (UTF-8
 * bytes), kept current as keys come and go, so a list of the latest state needs neither a
 * pass over every key in memory nor a sort.
 *
 * `SortedKeys` holds one prefix's keys in chunks of a few hundred (a key is added or removed by
 * two bisections and a move within one chunk, however many keys there are). `ListedPrefixes`
 * holds the sorted keys of the prefixes listed most recently (a bounded number; the one used
 * longest ago goes first): a prefix is sorted once, on its first list, then only kept current.
 */

/**
 * Strings whose characters are all below the UTF-16 surrogates sort the same by code unit (JS's
 * `<`) as by UTF-8 byte (etcd's order); others are compared as UTF-8.
 */
const fromSurrogates = /[\ud800-\uffff]/;
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
export const compareUtf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** A chunk splits in two past this many keys. */
const maxChunk = 512;

export class SortedKeys {
  private chunks: string[][] = [];
  private count = 0;
  private order = compareCodeUnits;

  /** keys may be in any order (the array is sorted in place). */
  constructor(keys: string[]) {
    this.fill(keys);
  }

  private fill(keys: string[]): void {
    this.order = keys.some((k) => fromSurrogates.test(k)) ? compareUtf8 : compareCodeUnits;
    keys.sort(this.order);
    this.chunks = [];
    for (let i = 0; i < keys.length; i += maxChunk / 2) this.chunks.push(keys.slice(i, i + maxChunk / 2));
    this.count = keys.length;
  }

  get size(): number {
    return this.count;
  }

  /** add inserts `key` (not already held). */
  add(key: string): void {
    if (this.order === compareCodeUnits && fromSurrogates.test(key)) {
      // From now on compared as UTF-8: sorted again, once.
      const all = this.all();
      all.push(key);
      this.fill(all);
      return;
    }
    this.count++;
    if (this.chunks.length === 0) {
      this.chunks.push([key]);
      return;
    }
    const c = Math.max(0, this.chunkOf(key));
    const chunk = this.chunks[c];
    chunk.splice(this.positionIn(chunk, key), 0, key);
    if (chunk.length > maxChunk) this.chunks.splice(c, 1, chunk.slice(0, chunk.length >> 1), chunk.slice(chunk.length >> 1));
  }

  /** remove takes `key` out, when held. */
  remove(key: string): void {
    const c = this.chunkOf(key);
    if (c < 0) return;
    const chunk = this.chunks[c];
    const i = this.positionIn(chunk, key);
    if (chunk[i] !== key) return;
    chunk.splice(i, 1);
    this.count--;
    if (chunk.length === 0) this.chunks.splice(c, 1);
  }

  /**
   * page lists up to `limit` keys (0: all) after `startAfter` (from the first when undefined),
   * in order, and how many keys follow them.
   */
  page(startAfter: string | undefined, limit: number): { keys: string[]; remaining: number } {
    let c = 0;
    let i = 0;
    let before = 0;
    if (startAfter !== undefined) {
      c = Math.max(0, this.chunkOf(startAfter));
      for (let k = 0; k < c; k++) before += this.chunks[k].length;
      const chunk = this.chunks[c];
      if (chunk) {
        i = this.positionIn(chunk, startAfter);
        if (chunk[i] === startAfter) i++;
      }
    }
    const available = this.count - before - i;
    const want = limit > 0 ? Math.min(limit, available) : available;
    const keys: string[] = new Array<string>(want);
    let n = 0;
    for (; c < this.chunks.length && n < want; c++, i = 0) {
      const chunk = this.chunks[c];
      for (; i < chunk.length && n < want; i++) keys[n++] = chunk[i];
    }
    return { keys, remaining: available - want };
  }

  /** Every key, in order. */
  all(): string[] {
    return this.chunks.flat();
  }

  /** chunkOf is the index of the last chunk whose first key is at or before `key` (-1: before every chunk). */
  private chunkOf(key: string): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order(this.chunks[mid][0], key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /** positionIn is the index of the first key of `chunk` at or after `key`. */
  private positionIn(chunk: string[], key: string): number {
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order(chunk[mid], key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The sorted keys of the prefixes listed most recently. */
export class ListedPrefixes {
  /** By prefix; a Map keeps insertion order: the first is the one used longest ago. */
  private readonly held = new Map<string, SortedKeys>();

  constructor(private readonly maxPrefixes: number) {}

  /** sorted returns the sorted keys under `prefix`, made from `keys()` (every key held, in any order) when not held. */
  sorted(prefix: string, keys: () => Iterable<string>): SortedKeys {
    let sorted = this.held.get(prefix);
    if (sorted) {
      this.held.delete(prefix);
    } else {
      const under: string[] = [];
      for (const key of keys()) if (key.startsWith(prefix)) under.push(key);
      sorted = new SortedKeys(under);
      if (this.held.size >= this.maxPrefixes) this.held.delete(this.held.keys().next().value!);
    }
    this.held.set(prefix, sorted);
    return sorted;
  }

  /** added tells of a key that did not exist before. */
  added(key: string): void {
    for (const [prefix, sorted] of this.held) if (key.startsWith(prefix)) sorted.add(key);
  }

  /** removed tells of a key that no longer exists. */
  removed(key: string): void {
    for (const [prefix, sorted] of this.held) if (key.startsWith(prefix)) sorted.remove(key);
  }

  /** clear forgets every prefix (the cache listed again). */
  clear(): void {
    this.held.clear();
  }

  get size(): number {
    return this.held.size;
  }
}
