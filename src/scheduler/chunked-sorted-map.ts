/**
 * A map from string keys to values kept in ascending key order (as `<` orders strings: by
 * UTF-16 code units), stored as a list of sorted chunks of at most a few hundred entries.
 * Finding a key is two binary searches (chunk, then position), and adding or removing one
 * moves at most a chunk's entries, so a bucket of 10,000 resources that loses one on every
 * bind does not shift 10,000 array slots each time. Iterating in key order is a walk over
 * the chunks; a cursor lets several maps be merged.
 */

/** A SortedCursor walks entries in ascending key order: `key`/`value` are the current one (undefined past the end). */
export interface SortedCursor<V> {
  readonly key: string | undefined;
  readonly value: V | undefined;
  /** next moves to the following entry. */
  next(): void;
}

/** The chunk size unless told otherwise: large enough to keep the chunk list short, small enough that a splice is cheap. */
export const DEFAULT_CHUNK_SIZE = 256;

interface Chunk<V> {
  readonly keys: string[];
  readonly values: V[];
}

/**
 * lowerBound is the first index of `keys` (sorted) whose key is ≥ `key`. Keys are often added
 * in order, so the end is checked first.
 */
function lowerBound(keys: readonly string[], key: string): number {
  const n = keys.length;
  if (n === 0 || keys[n - 1] < key) return n;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A ChunkedSortedMap does keep string-keyed values in key order with O(log n + chunk) set and
 * delete. Every chunk holds between a quarter of the chunk size and the chunk size (only a
 * lone chunk may hold fewer), so the chunk list stays about n ÷ chunk size long. The map must
 * not be changed while `forEach` or a cursor walks it.
 */
export class ChunkedSortedMap<V> {
  private readonly chunks: Chunk<V>[] = [];
  private count = 0;
  private readonly max: number;
  private readonly min: number;

  /** chunkSize is the most entries a chunk holds (at least 4). */
  constructor(chunkSize: number = DEFAULT_CHUNK_SIZE) {
    if (!Number.isInteger(chunkSize) || chunkSize < 4) throw new Error(`chunk size is ${chunkSize}: expected a whole number ≥ 4`);
    this.max = chunkSize;
    this.min = chunkSize >>> 2;
  }

  /** The number of entries. */
  get size(): number {
    return this.count;
  }

  /** The number of chunks (for tests of the balance). */
  get chunkCount(): number {
    return this.chunks.length;
  }

  get(key: string): V | undefined {
    const c = this.chunkFor(key);
    if (c < 0) return undefined;
    const chunk = this.chunks[c];
    const i = lowerBound(chunk.keys, key);
    return chunk.keys[i] === key ? chunk.values[i] : undefined;
  }

  has(key: string): boolean {
    const c = this.chunkFor(key);
    if (c < 0) return false;
    const keys = this.chunks[c].keys;
    return keys[lowerBound(keys, key)] === key;
  }

  /** set adds an entry or replaces the value of an existing key; it returns whether the key is new. */
  set(key: string, value: V): boolean {
    const c = this.chunkFor(key);
    if (c < 0) {
      this.chunks.push({ keys: [key], values: [value] });
      this.count = 1;
      return true;
    }
    const chunk = this.chunks[c];
    const i = lowerBound(chunk.keys, key);
    if (chunk.keys[i] === key) {
      chunk.values[i] = value;
      return false;
    }
    if (i === chunk.keys.length) {
      chunk.keys.push(key);
      chunk.values.push(value);
    } else {
      chunk.keys.splice(i, 0, key);
      chunk.values.splice(i, 0, value);
    }
    this.count++;
    if (chunk.keys.length > this.max) this.split(c);
    return true;
  }

  /** delete takes an entry out; it returns whether there was one. */
  delete(key: string): boolean {
    const c = this.chunkFor(key);
    if (c < 0) return false;
    const chunk = this.chunks[c];
    const i = lowerBound(chunk.keys, key);
    if (chunk.keys[i] !== key) return false;
    if (i === chunk.keys.length - 1) {
      chunk.keys.pop();
      chunk.values.pop();
    } else {
      chunk.keys.splice(i, 1);
      chunk.values.splice(i, 1);
    }
    this.count--;
    if (chunk.keys.length === 0) this.chunks.splice(c, 1);
    else if (chunk.keys.length < this.min && this.chunks.length > 1) this.rebalance(c);
    return true;
  }

  /** clear removes every entry. */
  clear(): void {
    this.chunks.length = 0;
    this.count = 0;
  }

  /** forEach visits the entries in key order until `visit` returns false; it returns whether it visited them all. */
  forEach(visit: (value: V, key: string) => boolean): boolean {
    const chunks = this.chunks;
    for (let c = 0; c < chunks.length; c++) {
      const { keys, values } = chunks[c];
      for (let i = 0; i < keys.length; i++) if (!visit(values[i], keys[i])) return false;
    }
    return true;
  }

  /** A cursor on the first entry. */
  cursor(): SortedCursor<V> {
    return new ChunkCursor(this.chunks);
  }

  /** The entries in key order. */
  *entries(): IterableIterator<[string, V]> {
    for (const { keys, values } of this.chunks) for (let i = 0; i < keys.length; i++) yield [keys[i], values[i]];
  }

  /** The keys in order. */
  keys(): string[] {
    const out: string[] = [];
    for (const chunk of this.chunks) for (const k of chunk.keys) out.push(k);
    return out;
  }

  /**
   * chunkFor is the chunk a key belongs in: the first whose last key is ≥ it, or the last
   * chunk for a key above every other; -1 when the map is empty.
   */
  private chunkFor(key: string): number {
    const chunks = this.chunks;
    const n = chunks.length;
    if (n === 0) return -1;
    const lastKeys = chunks[n - 1].keys;
    if (n === 1 || lastKeys[lastKeys.length - 1] < key) return n - 1;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const keys = chunks[mid].keys;
      if (keys[keys.length - 1] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** split cuts an overfull chunk in two halves. */
  private split(c: number): void {
    const chunk = this.chunks[c];
    const half = chunk.keys.length >>> 1;
    this.chunks.splice(c + 1, 0, { keys: chunk.keys.splice(half), values: chunk.values.splice(half) });
  }

  /** rebalance merges an underfull chunk with a neighbour, splitting the result again if it is overfull. */
  private rebalance(c: number): void {
    const left = c + 1 < this.chunks.length ? c : c - 1;
    const a = this.chunks[left];
    const b = this.chunks[left + 1];
    for (let i = 0; i < b.keys.length; i++) {
      a.keys.push(b.keys[i]);
      a.values.push(b.values[i]);
    }
    this.chunks.splice(left + 1, 1);
    if (a.keys.length > this.max) this.split(left);
  }
}

/** A ChunkCursor walks a chunk list in order. */
class ChunkCursor<V> implements SortedCursor<V> {
  key: string | undefined;
  value: V | undefined;
  private chunk = 0;
  private index = -1;

  constructor(private readonly chunks: readonly Chunk<V>[]) {
    this.next();
  }

  next(): void {
    const chunks = this.chunks;
    let chunk = chunks[this.chunk];
    while (chunk !== undefined) {
      if (++this.index < chunk.keys.length) {
        this.key = chunk.keys[this.index];
        this.value = chunk.values[this.index];
        return;
      }
      chunk = chunks[++this.chunk];
      this.index = -1;
    }
    this.key = undefined;
    this.value = undefined;
  }
}
