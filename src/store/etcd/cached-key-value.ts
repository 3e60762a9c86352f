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
import type { KeyValue, ValueBytes, ValueSearch } from '../types.js';
import { placeAlone, type Placement, type Slab, type ValueSlabs } from './value-slabs.js';

export class CachedKeyValue implements KeyValue, ValueBytes {
  // Where the bytes are. Not frozen (private fields never are): only `relocate` moves them, to a
  // copy of the same bytes, so every read gives the same text.
  #slab: Slab;
  #offset: number;
  readonly #length: number;
  /**
   * Bit 0 (HOLDS): the value the cache holds (counted in its slab), not a copy `at` made. The
   * bits above: what `valueIncludes` found for the searches it remembers (two bits each: asked,
   * found) — in the same field, so a value costs no more memory for it.
   */
  #flags: number;

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
    this.#flags = holds ? HOLDS : 0;
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
   * valueHead is the value's first `bytes` bytes (all of them when it is shorter) as Latin-1
   * text: one character per byte, so ASCII reads as itself and a character's index is its
   * byte's offset.
   */
  valueHead(bytes: number): string {
    return this.#slab.bytes.toString('latin1', this.#offset, this.#offset + Math.min(bytes, this.#length));
  }

  /**
   * valueIncludes is true when the value's bytes contain `search.needle`. The answers for the
   * first few searches made are remembered: a list of 10,000 values searched again on every
   * list was 10% of its CPU.
   */
  valueIncludes(search: ValueSearch): boolean {
    const asked = search.id < rememberedSearches ? 1 << (1 + 2 * search.id) : 0;
    if (this.#flags & asked) return (this.#flags & (asked << 1)) !== 0;
    const found = this.#slab.bytes.subarray(this.#offset, this.#offset + this.#length).includes(search.needle);
    if (asked !== 0) this.#flags |= found ? asked | (asked << 1) : asked;
    return found;
  }

  /** valueStartsWith is true when the value's bytes begin with `prefix`'s. */
  valueStartsWith(prefix: Buffer): boolean {
    if (prefix.length > this.#length) return false;
    const bytes = this.#slab.bytes;
    const offset = this.#offset;
    // A short prefix (the usual case: an object's first ~50 bytes) compared here costs less than
    // Buffer.compare's checks and call.
    if (prefix.length > 128) return bytes.compare(prefix, 0, prefix.length, offset, offset + prefix.length) === 0;
    for (let i = 0; i < prefix.length; i++) if (bytes[offset + i] !== prefix[i]) return false;
    return true;
  }

  /**
   * copyValue copies the value's bytes from `start` to `end` (the whole value by default) into
   * `target` at `targetStart`; it returns the bytes copied (fewer when `target` has no room).
   */
  copyValue(target: Uint8Array, targetStart: number, start = 0, end = this.#length): number {
    const from = this.#offset + Math.max(0, Math.min(start, this.#length));
    const to = this.#offset + Math.max(0, Math.min(end, this.#length));
    return to > from ? this.#slab.bytes.copy(target, targetStart, from, to) : 0;
  }

  /**
   * release tells the value's slabs that the cache no longer holds it (replaced or deleted). Its
   * bytes stay readable (events and consumers may still hold it or copies of it).
   */
  release(): void {
    if (!(this.#flags & HOLDS)) return;
    this.#flags &= ~HOLDS;
    this.#slab.owner?.release(this.#slab, this.#length);
  }

  /**
   * relocate copies the bytes of a value the cache holds out of a slab its slabs are compacting
   * (`ValueSlabs.sparse`) into the slab being filled; the old bytes stay readable for whoever
   * still holds a copy made by `at`. True when it moved.
   */
  relocate(): boolean {
    const slabs = this.#slab.owner;
    if (!(this.#flags & HOLDS) || !slabs?.sparse(this.#slab)) return false;
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

/** The bit of `#flags` saying the value is the one the cache holds. */
const HOLDS = 1;
/** The searches (by `ValueSearch.id`) whose answers a value remembers, each with two bits (asked, found) from bit 1 on. */
const rememberedSearches = 8;

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
