/**
 * HPACK (RFC 7541) for an HTTP/2 client: a decoder of the peer's header blocks (static and
 * dynamic table, Huffman-coded strings, table size updates) and an encoder that writes every
 * field as a literal without indexing (or a static table entry), so the peer's decoder never
 * has to keep a table of ours.
 */
import { huffmanDecode } from './huffman.js';

/** RFC 7541, Appendix A. */
export const STATIC_TABLE: ReadonlyArray<readonly [string, string]> = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/** A header field as decoded: name and value (latin1, as node:http2 gives them). */
export type HeaderField = [name: string, value: string];

/** An HpackError is a header block that cannot be decoded: a connection error (COMPRESSION_ERROR). */
export class HpackError extends Error {}

/** The decoder of one connection's header blocks (its dynamic table lives as long as the connection). */
export class HpackDecoder {
  /** Newest first. */
  private readonly dynamic: HeaderField[] = [];
  private size = 0;
  /** The size the peer may use at most (our SETTINGS_HEADER_TABLE_SIZE, 4096 by default). */
  private readonly maxAllowed: number;
  private max: number;

  constructor(maxTableSize = 4096) {
    this.maxAllowed = maxTableSize;
    this.max = maxTableSize;
  }

  /** The dynamic table's size in RFC 7541's octets (for tests). */
  get tableSize(): number {
    return this.size;
  }

  /** The dynamic table, newest first (for tests). */
  get table(): readonly HeaderField[] {
    return this.dynamic;
  }

  decode(block: Uint8Array): HeaderField[] {
    const fields: HeaderField[] = [];
    const at = { pos: 0 };
    let fieldSeen = false;
    while (at.pos < block.length) {
      const first = block[at.pos];
      if (first & 0x80) {
        // Indexed header field.
        fields.push(this.entry(readInteger(block, at, 7)));
        fieldSeen = true;
      } else if (first & 0x40) {
        // Literal with incremental indexing.
        const field = this.literal(block, at, 6);
        this.insert(field);
        fields.push(field);
        fieldSeen = true;
      } else if (first & 0x20) {
        // Dynamic table size update: only at the start of a block.
        if (fieldSeen) throw new HpackError('a dynamic table size update after a header field');
        const size = readInteger(block, at, 5);
        if (size > this.maxAllowed) throw new HpackError(`a dynamic table size of ${size}, above the ${this.maxAllowed} allowed`);
        this.max = size;
        this.evict(0);
      } else {
        // Literal without indexing (0000) or never indexed (0001).
        fields.push(this.literal(block, at, 4));
        fieldSeen = true;
      }
    }
    return fields;
  }

  private entry(index: number): HeaderField {
    if (index === 0) throw new HpackError('header index 0');
    if (index <= STATIC_TABLE.length) {
      const [name, value] = STATIC_TABLE[index - 1];
      return [name, value];
    }
    const field = this.dynamic[index - STATIC_TABLE.length - 1];
    if (!field) throw new HpackError(`header index ${index} is beyond the table (${STATIC_TABLE.length + this.dynamic.length} entries)`);
    return [field[0], field[1]];
  }

  private literal(block: Uint8Array, at: { pos: number }, prefixBits: number): HeaderField {
    const index = readInteger(block, at, prefixBits);
    const name = index === 0 ? readString(block, at) : this.entry(index)[0];
    return [name, readString(block, at)];
  }

  private insert(field: HeaderField): void {
    const size = field[0].length + field[1].length + 32;
    this.evict(size);
    // An entry larger than the table empties it and is not added (RFC 7541, 4.4).
    if (size > this.max) return;
    this.dynamic.unshift(field);
    this.size += size;
  }

  /** evict drops the oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    while (this.dynamic.length > 0 && this.size + room > this.max) {
      const [name, value] = this.dynamic.pop()!;
      this.size -= name.length + value.length + 32;
    }
  }
}

/** readInteger reads an HPACK integer with an N-bit prefix (RFC 7541, 5.1). */
export function readInteger(block: Uint8Array, at: { pos: number }, prefixBits: number): number {
  if (at.pos >= block.length) throw new HpackError('a header block ends inside an integer');
  const limit = (1 << prefixBits) - 1;
  let value = block[at.pos++] & limit;
  if (value < limit) return value;
  let shift = 0;
  for (;;) {
    if (at.pos >= block.length) throw new HpackError('a header block ends inside an integer');
    const byte = block[at.pos++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return value;
    if (shift > 28) throw new HpackError('an HPACK integer longer than 4 bytes');
  }
}

function readString(block: Uint8Array, at: { pos: number }): string {
  if (at.pos >= block.length) throw new HpackError('a header block ends before a string');
  const huffman = (block[at.pos] & 0x80) !== 0;
  const length = readInteger(block, at, 7);
  const end = at.pos + length;
  if (end > block.length) throw new HpackError('a string runs past the end of its header block');
  let text: string;
  try {
    text = huffman ? huffmanDecode(block, at.pos, end) : Buffer.from(block.buffer, block.byteOffset + at.pos, length).toString('latin1');
  } catch (err) {
    throw new HpackError((err as Error).message);
  }
  at.pos = end;
  return text;
}

/** writeInteger appends an HPACK integer with an N-bit prefix, its first byte or-ed with `flags`. */
export function writeInteger(out: number[], value: number, prefixBits: number, flags: number): void {
  const limit = (1 << prefixBits) - 1;
  if (value < limit) {
    out.push(flags | value);
    return;
  }
  out.push(flags | limit);
  let rest = value - limit;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

/**
 * encodeHeaders writes a header block: a field found whole in the static table as its index,
 * every other one as a literal without indexing (its name by static index when there is one),
 * strings as they are (no Huffman coding). Names must be lower case; values latin1.
 */
export function encodeHeaders(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  const out: number[] = [];
  for (const [name, value] of fields) {
    let nameIndex = 0;
    let whole = 0;
    for (let i = 0; i < STATIC_TABLE.length; i++) {
      if (STATIC_TABLE[i][0] !== name) continue;
      if (nameIndex === 0) nameIndex = i + 1;
      if (STATIC_TABLE[i][1] === value) {
        whole = i + 1;
        break;
      }
    }
    if (whole > 0) {
      writeInteger(out, whole, 7, 0x80);
      continue;
    }
    writeInteger(out, nameIndex, 4, 0x00);
    if (nameIndex === 0) writeString(out, name);
    writeString(out, value);
  }
  return Buffer.from(out);
}

function writeString(out: number[], text: string): void {
  writeInteger(out, text.length, 7, 0x00);
  for (let i = 0; i < text.length; i++) out.push(text.charCodeAt(i) & 0xff);
}
