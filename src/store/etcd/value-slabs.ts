/**
 * ValueSlabs: where the watch cache writes the UTF-8 bytes of the values it holds — side by
 * side in slabs of 256 KiB (a value over 32 KiB gets a buffer of its own) — instead of one
 * ArrayBuffer per value.
 *
 * Why: an ArrayBuffer per value costs, beside its bytes, an object on the V8 heap (~84 bytes)
 * and V8's and the allocator's records of its memory outside it (~150 bytes more), and 100,000
 * separate allocations of ~1.4 KB among the requests' short-lived ones leave the C heap
 * fragmented. A slab is one allocation for ~180 values; a value is a slab, an offset and a
 * length.
 *
 * Bytes are never written twice: a value replaced or deleted is released (its slab's `live`
 * count goes down) but its bytes stay where they are, so an event that still holds the old
 * value (the history keeps recent ones, a consumer may keep one) reads it unchanged; the slab's
 * memory goes when nothing refers to it any more. To keep released bytes from piling up, once
 * the released bytes grow past a quarter of what the slabs hold (and at least 4 MiB) since the
 * last compaction, the values held in slabs that are less than three quarters live are copied
 * into the newest slab (`CachedKeyValue.relocate`) and those slabs let go.
 */

/** Slab size: ~180 values of ~1.4 KB; large enough that the C allocator maps it by itself. */
export const SLAB_BYTES = 256 * 1024;
/** Values larger than this get a buffer of their own (a slab would mostly hold one of them). */
export const OWN_BUFFER_ABOVE = SLAB_BYTES / 8;
/** Compaction waits until at least this many bytes were released since the last one. */
const MIN_RELEASED_BYTES = 4 * 1024 * 1024;

/** One buffer holding values' bytes side by side. */
export class Slab {
  /** Bytes written (the next value goes at this offset). */
  used = 0;
  /** Bytes of the values the cache holds in it (written minus released). */
  live = 0;

  constructor(
    readonly bytes: Buffer,
    /** The slabs it belongs to; undefined for a buffer of one value's own (nothing to count). */
    readonly owner: ValueSlabs | undefined,
  ) {}
}

/** Where a value's bytes were written. */
export interface Placement {
  slab: Slab;
  offset: number;
  length: number;
}

const empty = new Slab(Buffer.alloc(0), undefined);

/** placeAlone writes `value` into a buffer of its own. */
export function placeAlone(value: string): Placement {
  const length = Buffer.byteLength(value, 'utf8');
  if (length === 0) return { slab: empty, offset: 0, length: 0 };
  const bytes = Buffer.allocUnsafeSlow(length);
  bytes.write(value, 0, length, 'utf8');
  return { slab: new Slab(bytes, undefined), offset: 0, length };
}

export class ValueSlabs {
  private current: Slab | undefined;
  /** Slabs holding values the cache holds (and the one being filled). */
  private readonly held = new Set<Slab>();
  private usedBytes = 0;
  private liveBytes = 0;
  /** Released bytes (used − live) past which the next compaction is due. */
  private compactAt = MIN_RELEASED_BYTES;

  /** The slabs held, the bytes written in them and the bytes of values held (for tests and diagnostics). */
  get stats(): { slabs: number; used: number; live: number } {
    return { slabs: this.held.size, used: this.usedBytes, live: this.liveBytes };
  }

  /** write puts `value`'s UTF-8 bytes in the slab being filled (a new one when it has no room). */
  write(value: string): Placement {
    const length = Buffer.byteLength(value, 'utf8');
    if (length > OWN_BUFFER_ABOVE || length === 0) return placeAlone(value);
    const slab = this.room(length);
    const offset = slab.used;
    slab.bytes.write(value, offset, length, 'utf8');
    this.added(slab, length);
    return { slab, offset, length };
  }

  /** copy writes the bytes at `from` into the slab being filled. */
  copy(from: Placement): Placement {
    const slab = this.room(from.length);
    const offset = slab.used;
    from.slab.bytes.copy(slab.bytes, offset, from.offset, from.offset + from.length);
    this.added(slab, from.length);
    return { slab, offset, length: from.length };
  }

  /** release tells that the cache no longer holds the value written at (`slab`, `length`). */
  release(slab: Slab, length: number): void {
    if (slab.owner !== this || !this.held.has(slab)) return;
    slab.live -= length;
    this.liveBytes -= length;
    if (slab.live === 0 && slab !== this.current) {
      this.held.delete(slab);
      this.usedBytes -= slab.used;
    }
  }

  /** True when enough bytes were released since the last compaction that one is due. */
  get compactionDue(): boolean {
    return this.usedBytes - this.liveBytes > this.compactAt;
  }

  /** True when the values held in `slab` are to be copied out by the compaction under way. */
  sparse(slab: Slab): boolean {
    return slab.owner === this && slab !== this.current && this.held.has(slab) && slab.live * 4 < slab.used * 3;
  }

  /** compacted sets when the next compaction is due, after one ran. */
  compacted(): void {
    const used = this.usedBytes;
    this.compactAt = used - this.liveBytes + Math.max(MIN_RELEASED_BYTES, used / 4);
  }

  private room(length: number): Slab {
    let slab = this.current;
    if (!slab || slab.used + length > slab.bytes.length) {
      // The bytes past `used` are never read: no need to zero them.
      slab = new Slab(Buffer.allocUnsafeSlow(SLAB_BYTES), this);
      const previous = this.current;
      this.current = slab;
      this.held.add(slab);
      if (previous && previous.live === 0) {
        this.held.delete(previous);
        this.usedBytes -= previous.used;
      }
    }
    return slab;
  }

  private added(slab: Slab, length: number): void {
    slab.used += length;
    slab.live += length;
    this.usedBytes += length;
    this.liveBytes += length;
  }
}
