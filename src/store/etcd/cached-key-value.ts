/**
 * CachedKeyValue: a KeyValue the watch cache holds, its value kept as UTF-8 bytes off the V8
 * heap instead of a string on it: in a slab shared with other values (`ValueSlabs`), or in a
 * buffer of its own when made without slabs.
 *
 * Why: the cache holds every value under the prefix (100,000 objects of ~1.4 KB are ~135 MB).
 * As strings they are V8 heap, and the old generation grows by a share of what is live before
 * it collects again, so RSS carried the values plus that share. As bytes outside the heap they
 * count once; the heap keeps only the small objects. In slabs, a value costs no ArrayBuffer of
 * its own (an object on the heap and allocator records beside it): see value-slabs.ts.
 *
 * `value` is decoded on each read (a new string, short-lived): consumers read it once per use
 * (a get's splice of the resourceVersion, a decode) and let it go. Its bytes are private: a
 * copy made by spreading (`{ ...kv, value }`) carries the value it was given, nothing stale.
 * Being a class with the value on its prototype, it is not deep-equal to a plain KeyValue with
 * the same fields: compare fields (the conformance suite's `brief`).
 */
import type { KeyValue } from '../types.js';
import { placeAlone, type Placement, type Slab, type ValueSlabs } from './value-slabs.js';

export class CachedKeyValue implements KeyValue {
  // Where the bytes are. Not frozen (private fields never are): only `relocate` moves them, to a
  // copy of the same bytes, so every read gives the same text.
  #slab: Slab;
  #offset: number;
  readonly #length: number;
  /** True for the value the cache holds (counted in its slab); false for the copies `at` makes. */
  #holds: boolean;

  private constructor(
    readonly key: string,
    at: Placement,
    holds: boolean,
    readonly createRevision: number,
    readonly modRevision: number,
  ) {
    this.#slab = at.slab;
    this.#offset = at.offset;
    this.#length = at.length;
    this.#holds = holds;
    Object.freeze(this);
  }

  /**
   * of keeps `value` as UTF-8 bytes (frozen): written into `slabs` (the value the cache holds,
   * to be `release`d when it no longer does), or into a buffer of its own.
   */
  static of(key: string, value: string, createRevision: number, modRevision: number, slabs?: ValueSlabs): CachedKeyValue {
    return new CachedKeyValue(key, slabs ? slabs.write(value) : placeAlone(value), slabs !== undefined, createRevision, modRevision);
  }

  /** at is the same value (the same bytes, not a copy) under `key` with other revisions (frozen; not counted as held). */
  at(key: string, createRevision: number, modRevision: number): CachedKeyValue {
    return new CachedKeyValue(key, { slab: this.#slab, offset: this.#offset, length: this.#length }, false, createRevision, modRevision);
  }

  /** The stored text (decoded from the bytes on each read). */
  get value(): string {
    return this.#slab.bytes.toString('utf8', this.#offset, this.#offset + this.#length);
  }

  /** The size of the value in bytes (UTF-8), without decoding it. */
  get byteLength(): number {
    return this.#length;
  }

  /**
   * release tells the value's slabs that the cache no longer holds it (replaced or deleted). Its
   * bytes stay readable (events and consumers may still hold it or copies of it).
   */
  release(): void {
    if (!this.#holds) return;
    this.#holds = false;
    this.#slab.owner?.release(this.#slab, this.#length);
  }

  /**
   * relocate copies the bytes of a value the cache holds out of a slab its slabs are compacting
   * (`ValueSlabs.sparse`) into the slab being filled; the old bytes stay readable for whoever
   * still holds a copy made by `at`. True when it moved.
   */
  relocate(): boolean {
    const slabs = this.#slab.owner;
    if (!this.#holds || !slabs?.sparse(this.#slab)) return false;
    const from: Placement = { slab: this.#slab, offset: this.#offset, length: this.#length };
    const to = slabs.copy(from);
    this.#slab = to.slab;
    this.#offset = to.offset;
    slabs.release(from.slab, from.length);
    return true;
  }

  /** JSON.stringify gives the four fields of a KeyValue (the value is not an own property). */
  toJSON(): KeyValue {
    return { key: this.key, value: this.value, createRevision: this.createRevision, modRevision: this.modRevision };
  }
}

/** valueSize is the size of `kv`'s value — UTF-8 bytes when held as bytes, else UTF-16 code units — without decoding it. */
export function valueSize(kv: KeyValue): number {
  return kv instanceof CachedKeyValue ? kv.byteLength : kv.value.length;
}

/**
 * compactSlabs moves the values of `held` (every value the cache holds with `slabs`) out of the
 * slabs that are mostly released, when a compaction is due; it returns how many moved.
 */
export function compactSlabs(slabs: ValueSlabs, held: Iterable<CachedKeyValue>): number {
  if (!slabs.compactionDue) return 0;
  let moved = 0;
  for (const kv of held) if (kv.relocate()) moved++;
  slabs.compacted();
  return moved;
}
