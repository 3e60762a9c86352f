/**
 * A reader for the protocol buffers wire format: tags, varints, 64-bit and 32-bit fixed
 * values and length-delimited fields. Every read is bounds-checked; malformed data becomes a
 * 400 BadRequest that says what was wrong and at which byte, never a crash, and every read
 * advances, so no input can make a decoding loop spin.
 */
import type { ApiError } from '../../machinery/errors.js';
import { errors } from '../../machinery/errors.js';

/** The wire types of the protocol buffers encoding (3 and 4 are the deprecated groups). */
export const WireType = {
  varint: 0,
  fixed64: 1,
  lengthDelimited: 2,
  startGroup: 3,
  endGroup: 4,
  fixed32: 5,
} as const;
export type WireType = (typeof WireType)[keyof typeof WireType];

const wireTypeNames: Record<number, string> = {
  0: 'varint',
  1: '64-bit',
  2: 'length-delimited',
  3: 'start-group',
  4: 'end-group',
  5: '32-bit',
};

/** The name of a wire type for error messages, e.g. `2 (length-delimited)`. */
export function wireTypeName(wireType: number): string {
  return `${wireType} (${wireTypeNames[wireType] ?? 'unknown'})`;
}

/** Nesting of groups deeper than this is rejected while skipping unknown fields. */
const MAX_GROUP_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface Tag {
  field: number;
  wireType: number;
}

/**
 * A ProtoReader walks the bytes of one message, `[start, end)` of a shared buffer. Nested
 * messages get their own reader over a sub-range (`readMessage`), so error offsets are
 * always positions in the whole body.
 */
export class ProtoReader {
  private pos: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    if (start < 0 || end > buf.length || start > end) {
      throw new RangeError(`ProtoReader bounds [${start}, ${end}) lie outside a buffer of ${buf.length} bytes`);
    }
    this.pos = start;
  }

  /** True once every byte of the message has been read. */
  get done(): boolean {
    return this.pos >= this.end;
  }

  /** The position of the next byte to read, counted from the start of the buffer. */
  get offset(): number {
    return this.pos;
  }

  /** A 400 BadRequest naming what was malformed and where. */
  malformed(what: string, at = this.pos): ApiError {
    return errors.badRequest(`the protobuf request body is malformed: ${what} (at byte ${at})`);
  }

  /** Reads a field tag: its field number and wire type. */
  readTag(): Tag {
    const at = this.pos;
    const tag = this.readUint32('a field tag');
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (field === 0) throw this.malformed('a field tag has field number 0, which protocol buffers do not allow', at);
    if (wireType > 5) throw this.malformed(`a field tag has wire type ${wireType}; expected 0 to 5`, at);
    return { field, wireType };
  }

  /** Reads a varint of up to 64 bits as an unsigned BigInt. */
  readVarint(): bigint {
    const at = this.pos;
    // Seven bits per byte: the first four bytes fit a small integer exactly.
    let low = 0;
    for (let i = 0; i < 4; i++) {
      const b = this.nextByte('a varint', at);
      low |= (b & 0x7f) << (7 * i);
      if (b < 0x80) return BigInt(low >>> 0);
    }
    let value = BigInt(low >>> 0);
    for (let i = 4; i < 10; i++) {
      const b = this.nextByte('a varint', at);
      if (i === 9 && b > 1) throw this.malformed('a varint is longer than 64 bits', at);
      value |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) return value;
    }
    throw this.malformed('a varint is longer than 10 bytes', at);
  }

  /** Reads a varint as a signed 64-bit integer; it must fit a JSON number exactly. */
  readInt64(what = 'an int64 value'): number {
    const at = this.pos;
    const v = BigInt.asIntN(64, this.readVarint());
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw this.malformed(`${what} is ${v}, beyond the ±2^53 range a JSON number carries exactly`, at);
    }
    return Number(v);
  }

  /** Reads a varint as a signed 32-bit integer, keeping the low 32 bits as protobuf does. */
  readInt32(): number {
    return Number(BigInt.asIntN(32, this.readVarint()));
  }

  /** Reads a varint as a bool: any non-zero value is true. */
  readBool(): boolean {
    return this.readVarint() !== 0n;
  }

  /** Reads 8 little-endian bytes as an unsigned BigInt. */
  readFixed64(): bigint {
    const at = this.pos;
    this.need(8, 'a 64-bit value', at);
    let v = 0n;
    for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(this.buf[at + i]);
    this.pos += 8;
    return v;
  }

  /** Reads 4 little-endian bytes as an unsigned number. */
  readFixed32(): number {
    const at = this.pos;
    this.need(4, 'a 32-bit value', at);
    const b = this.buf;
    const v = (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
    this.pos += 4;
    return v;
  }

  /** Reads a length prefix and returns the bounds of the bytes it covers, then skips them. */
  readLengthDelimited(what = 'a length-delimited field'): { start: number; end: number } {
    const at = this.pos;
    const length = this.readUint32(`the length of ${what}`);
    this.need(length, what, at);
    const start = this.pos;
    this.pos += length;
    return { start, end: this.pos };
  }

  /** Reads a length-delimited field as bytes (a view into the buffer, not a copy). */
  readBytes(what?: string): Uint8Array {
    const { start, end } = this.readLengthDelimited(what);
    return this.buf.subarray(start, end);
  }

  /** Reads a length-delimited field as strict UTF-8 text. */
  readString(what = 'a string'): string {
    const at = this.pos;
    const bytes = this.readBytes(what);
    try {
      return utf8.decode(bytes);
    } catch {
      throw this.malformed(`${what} is not valid UTF-8`, at);
    }
  }

  /** Reads a length-delimited field and returns a reader over its bytes (a nested message). */
  readMessage(what?: string): ProtoReader {
    const { start, end } = this.readLengthDelimited(what);
    return new ProtoReader(this.buf, start, end);
  }

  /**
   * Skips the value of a field this decoder does not know, whatever its wire type. Groups
   * (wire type 3) are skipped up to their matching end-group tag.
   */
  skip(tag: Tag): void {
    const at = this.pos;
    switch (tag.wireType) {
      case WireType.varint:
        this.readVarint();
        return;
      case WireType.fixed64:
        this.need(8, 'a 64-bit value', at);
        this.pos += 8;
        return;
      case WireType.lengthDelimited:
        this.readLengthDelimited();
        return;
      case WireType.fixed32:
        this.need(4, 'a 32-bit value', at);
        this.pos += 4;
        return;
      case WireType.startGroup:
        this.skipGroup(tag.field, at);
        return;
      case WireType.endGroup:
        throw this.malformed(`an end-group tag for field ${tag.field} has no matching start-group tag`, at);
      default:
        throw this.malformed(`wire type ${tag.wireType} is not a protocol buffers wire type`, at);
    }
  }

  private skipGroup(field: number, at: number): void {
    const open = [field];
    while (open.length > 0) {
      if (this.done) throw this.malformed(`the group of field ${field} has no end-group tag`, at);
      const inner = this.readTag();
      if (inner.wireType === WireType.endGroup) {
        const expected = open.pop()!;
        if (inner.field !== expected) {
          throw this.malformed(`an end-group tag for field ${inner.field} closes the group of field ${expected}`);
        }
      } else if (inner.wireType === WireType.startGroup) {
        if (open.length >= MAX_GROUP_DEPTH) throw this.malformed(`groups are nested more than ${MAX_GROUP_DEPTH} deep`);
        open.push(inner.field);
      } else {
        this.skip(inner);
      }
    }
  }

  /** Reads a varint that must fit 32 unsigned bits (tags and lengths). */
  private readUint32(what: string): number {
    const at = this.pos;
    const v = this.readVarint();
    if (v > 0xffffffffn) throw this.malformed(`${what} is ${v}, larger than 32 bits`, at);
    return Number(v);
  }

  private nextByte(what: string, at: number): number {
    if (this.pos >= this.end) throw this.malformed(`${what} runs past the end of its message`, at);
    return this.buf[this.pos++];
  }

  private need(n: number, what: string, at: number): void {
    if (n > this.end - this.pos) {
      throw this.malformed(`${what} needs ${n} bytes but only ${this.end - this.pos} remain in its message`, at);
    }
  }
}
