/**
 * A small protocol buffers encoder: it builds messages field by field with explicit field
 * numbers. Tests use it to state the wire layout independently of the decoder's tables;
 * `apiserver/docs` uses it to encode the OpenAPI v2 document. It is deliberately permissive
 * (it will write any tag, length or wire type) so tests can also build malformed input;
 * callers that encode real messages choose field numbers and wire types themselves.
 */

/** A ProtoWriter does append-only encoding of one message. */
export class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];

  /** Appends raw bytes as they are. */
  raw(bytes: Uint8Array | number[]): this {
    this.chunks.push(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes));
    return this;
  }

  /** Appends a bare varint (no tag). Negative numbers are written as 64-bit two's complement. */
  varintValue(value: number | bigint): this {
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) b |= 0x80;
      out.push(b);
    } while (v > 0n);
    return this.raw(out);
  }

  /** Appends a field tag. */
  tag(field: number, wireType: number): this {
    return this.varintValue((BigInt(field) << 3n) | BigInt(wireType));
  }

  /** A varint field (int32, int64, bool, enum). */
  varint(field: number, value: number | bigint | boolean): this {
    return this.tag(field, 0).varintValue(typeof value === 'boolean' ? (value ? 1 : 0) : value);
  }

  bool(field: number, value: boolean): this {
    return this.varint(field, value);
  }

  /** A 64-bit little-endian field. */
  fixed64(field: number, value: bigint): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
    return this.tag(field, 1).raw(b);
  }

  /** A `double` field: an IEEE 754 binary64 value, little-endian (wire type 1). */
  double(field: number, value: number): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, value, true);
    return this.tag(field, 1).raw(b);
  }

  /** A 32-bit little-endian field. */
  fixed32(field: number, value: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, value >>> 0, true);
    return this.tag(field, 5).raw(b);
  }

  /** A length-delimited field holding bytes. */
  bytes(field: number, value: Uint8Array | number[]): this {
    const b = value instanceof Uint8Array ? value : Uint8Array.from(value);
    return this.tag(field, 2).varintValue(b.length).raw(b);
  }

  /** A length-delimited field holding UTF-8 text. */
  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  /** A nested message built by `build`. */
  message(field: number, build: (w: ProtoWriter) => unknown): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  /** One entry of a `map<string, string>` field. */
  mapEntry(field: number, key: string, value: string | Uint8Array): this {
    return this.message(field, (e) => {
      e.string(1, key);
      if (typeof value === 'string') e.string(2, value);
      else e.bytes(2, value);
    });
  }

  /** A `meta.v1.Time` / `MicroTime` message. */
  timestamp(field: number, seconds: number, nanos = 0): this {
    return this.message(field, (t) => {
      if (seconds !== 0) t.varint(1, seconds);
      if (nanos !== 0) t.varint(2, nanos);
    });
  }

  /** The encoded bytes. */
  finish(): Uint8Array {
    const size = this.chunks.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** Builds a message with `build` and returns its bytes. */
export function encode(build: (w: ProtoWriter) => unknown): Uint8Array {
  const w = new ProtoWriter();
  build(w);
  return w.finish();
}

/**
 * Wraps an encoded object in the Kubernetes envelope: the `k8s\0` prefix, then a
 * runtime.Unknown whose typeMeta (field 1: apiVersion 1, kind 2) names the object and whose
 * raw (field 2) holds it.
 */
export function envelope(apiVersion: string, kind: string, object: Uint8Array, extra?: (w: ProtoWriter) => unknown): Buffer {
  const unknown = encode((w) => {
    w.message(1, (tm) => tm.string(1, apiVersion).string(2, kind));
    w.bytes(2, object);
    extra?.(w);
  });
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), unknown]);
}
