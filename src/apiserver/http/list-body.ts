/**
 * writeListBody streams a long JSON list — `head`, the items' JSON separated by commas, then
 * `]}` — as Buffers of about `chunkBytes`, waiting for 'drain' whenever the connection is
 * behind. An item whose stored bytes can be sent as they are (the etcd watch cache's values,
 * with their resourceVersion spliced in: `LazyObject.jsonBytes`) is copied from them; any
 * other is written from its text.
 *
 * Why bytes: a list of 10,000 objects is ~14 MB. Made as strings it was each value decoded
 * from the cache's UTF-8, spliced into a new string, the strings joined per chunk and the
 * chunk encoded to UTF-8 again on its way to the socket, and the garbage collector cleaning up
 * after all of it; copied as bytes it is one copy of each value.
 */
import { writeSpliced } from '../storage/object-store.js';
import type { LazyObject } from '../rest/lazy-object.js';

/** The part of a ServerResponse the body is written to. */
export interface BodySink {
  write(chunk: Buffer): boolean;
  once(event: 'drain', listener: () => void): unknown;
  end(): void;
}

/** One Buffer being filled. */
class Chunk {
  readonly bytes: Buffer;
  length = 0;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  get room(): number {
    return this.bytes.length - this.length;
  }

  /** text appends `s` as UTF-8 when it fits, else returns false (nothing written). */
  text(s: string): boolean {
    // A UTF-16 code unit is at most 3 bytes of UTF-8: count exactly only when that bound does not fit.
    if (s.length * 3 > this.room && Buffer.byteLength(s, 'utf8') > this.room) return false;
    this.length += this.bytes.write(s, this.length, 'utf8');
    return true;
  }

  /** item appends a comma (unless `first`) and the item's JSON when both fit, else returns false (nothing written). */
  item(item: LazyObject, first: boolean): boolean {
    const comma = first ? 0 : 1;
    const spliced = item.jsonBytes();
    if (!spliced) {
      const json = item.json();
      if (comma + json.length * 3 > this.room && comma + Buffer.byteLength(json, 'utf8') > this.room) return false;
      if (comma) this.bytes[this.length++] = COMMA;
      this.length += this.bytes.write(json, this.length, 'utf8');
      return true;
    }
    if (comma + spliced.byteLength > this.room) return false;
    if (comma) this.bytes[this.length++] = COMMA;
    this.length += writeSpliced(spliced, this.bytes, this.length);
    return true;
  }

  /** The bytes written so far. */
  filled(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}

const COMMA = 0x2c;
const TAIL = ']}';

export function writeListBody(sink: BodySink, head: string, items: readonly LazyObject[], chunkBytes: number): void {
  // Pieces: -1 the head, 0 … n-1 the items (each after its comma), n the tail.
  const n = items.length;
  let piece = -1;
  const put = (chunk: Chunk, p: number): boolean => (p < 0 ? chunk.text(head) : p < n ? chunk.item(items[p], p === 0) : chunk.text(TAIL));
  // A piece larger than a whole chunk goes in a Buffer of its own.
  const alone = (p: number): Buffer => Buffer.from(p < 0 ? head : p < n ? `${p === 0 ? '' : ','}${items[p].json()}` : TAIL, 'utf8');
  // Chunk buffers are used again once the sink took what they held: after 'drain' every write
  // before it is done. The garbage collector then has ~2 buffers per list to free, not ~50.
  const written: Buffer[] = [];
  const free: Buffer[] = [];
  const writeMore = (): void => {
    while (piece <= n) {
      const chunk = new Chunk(free.pop() ?? Buffer.allocUnsafeSlow(chunkBytes));
      let big: Buffer | undefined;
      while (piece <= n) {
        if (put(chunk, piece)) {
          piece++;
          continue;
        }
        if (chunk.length === 0) big = alone(piece++);
        break;
      }
      let ok = true;
      if (chunk.length > 0) ok = sink.write(chunk.filled());
      written.push(chunk.bytes);
      if (big) ok = sink.write(big);
      if (piece > n) break;
      if (!ok) {
        sink.once('drain', () => {
          free.push(...written.splice(0));
          writeMore();
        });
        return;
      }
    }
    sink.end();
  };
  writeMore();
}
