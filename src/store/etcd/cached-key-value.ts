/**
 * CachedKeyValue: a KeyValue the watch cache holds, its value kept as UTF-8 bytes in an
 * ArrayBuffer of its own (off the V8 heap) instead of a string on it.
 *
 * Why: the cache holds every value under the prefix (100,000 objects of ~1.4 KB are ~145 MB).
 * As strings they are V8 heap, and the old generation grows by a share of what is live before
 * it collects again, so RSS carried the values plus that share. As bytes outside the heap they
 * count once; the heap keeps only the small objects. Each value has a buffer of its own:
 * replacing or dropping a value frees exactly its bytes, whatever else still holds them (values
 * packed into shared slabs, moved out of slabs that emptied, measured no lower: see the README).
 *
 * `value` is decoded on each read (a new string, short-lived): consumers read it once per use
 * (a get's splice of the resourceVersion, a decode) and let it go. Its bytes are private: a
 * copy made by spreading (`{ ...kv, value }`) carries the value it was given, nothing stale.
 * Being a class with the value on its prototype, it is not deep-equal to a plain KeyValue with
 * the same fields: compare fields (the conformance suite's `brief`).
 */
import type { KeyValue } from '../types.js';

export class CachedKeyValue implements KeyValue {
  readonly #bytes: ArrayBuffer;

  private constructor(
    readonly key: string,
    bytes: ArrayBuffer,
    readonly createRevision: number,
    readonly modRevision: number,
  ) {
    this.#bytes = bytes;
    Object.freeze(this);
  }

  /** of keeps `value` as UTF-8 bytes (frozen). */
  static of(key: string, value: string, createRevision: number, modRevision: number): CachedKeyValue {
    const bytes = new ArrayBuffer(Buffer.byteLength(value, 'utf8'));
    Buffer.from(bytes).write(value, 'utf8');
    return new CachedKeyValue(key, bytes, createRevision, modRevision);
  }

  /** at is the same value (the same bytes, not a copy) under `key` with other revisions (frozen). */
  at(key: string, createRevision: number, modRevision: number): CachedKeyValue {
    return new CachedKeyValue(key, this.#bytes, createRevision, modRevision);
  }

  /** The stored text (decoded from the bytes on each read). */
  get value(): string {
    return Buffer.from(this.#bytes).toString('utf8');
  }

  /** The size of the value in bytes (UTF-8), without decoding it. */
  get byteLength(): number {
    return this.#bytes.byteLength;
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
