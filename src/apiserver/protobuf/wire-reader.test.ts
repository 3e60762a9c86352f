import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../machinery/errors.js';
import { ProtoReader } from './wire-reader.js';
import { encode, ProtoWriter } from './wire-writer.js';

function reader(bytes: number[] | Uint8Array): ProtoReader {
  return new ProtoReader(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes));
}

/** Asserts `fn` throws a 400 ApiError whose message contains `fragment`. */
function assertBadRequest(fn: () => unknown, fragment: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.match(err.message, /^the protobuf request body is malformed: /);
    assert.ok(err.message.includes(fragment), `message ${JSON.stringify(err.message)} lacks ${JSON.stringify(fragment)}`);
    return true;
  });
}

describe('ProtoReader varints', () => {
  const cases: { reason: string; bytes: number[]; want: bigint }[] = [
    { reason: 'zero is one byte', bytes: [0x00], want: 0n },
    { reason: 'the largest one-byte value', bytes: [0x7f], want: 127n },
    { reason: 'the continuation bit carries into a second byte', bytes: [0x80, 0x01], want: 128n },
    { reason: 'the protobuf documentation example 150', bytes: [0x96, 0x01], want: 150n },
    { reason: 'a value past 28 bits leaves the small-integer path', bytes: [0x80, 0x80, 0x80, 0x80, 0x01], want: 1n << 28n },
    { reason: 'a value past 32 bits', bytes: [0x80, 0x80, 0x80, 0x80, 0x10], want: 1n << 32n },
    {
      reason: 'the largest 64-bit value takes ten bytes',
      bytes: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
      want: (1n << 64n) - 1n,
    },
    { reason: 'a redundant (non-minimal) encoding is accepted', bytes: [0x81, 0x80, 0x00], want: 1n },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const r = reader(c.bytes);
      assert.equal(r.readVarint(), c.want);
      assert.ok(r.done);
    });
  }

  test('int64 reads two’s complement negatives and int32 keeps the low 32 bits', () => {
    const minusOne = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert.equal(reader(minusOne).readInt64(), -1);
    assert.equal(reader(minusOne).readInt32(), -1);
    assert.equal(reader([0x80, 0x80, 0x80, 0x80, 0x08]).readInt32(), -(2 ** 31), '2^31 wraps to the smallest int32');
    assert.equal(reader([0x80, 0x80, 0x80, 0x80, 0x10]).readInt32(), 0, '2^32 keeps no low bits');
  });

  test('bool is true for any non-zero varint', () => {
    assert.equal(reader([0x00]).readBool(), false);
    assert.equal(reader([0x01]).readBool(), true);
    assert.equal(reader([0x80, 0x01]).readBool(), true);
  });

  test('int64 values a JSON number cannot carry exactly are rejected', () => {
    const big = encode((w) => w.varintValue(2n ** 53n));
    assertBadRequest(() => reader(big).readInt64('metadata.generation'), 'metadata.generation is 9007199254740992');
    assert.equal(reader(encode((w) => w.varintValue(2n ** 53n - 1n))).readInt64(), Number.MAX_SAFE_INTEGER);
  });

  const malformed: { reason: string; bytes: number[]; read: (r: ProtoReader) => unknown; fragment: string }[] = [
    { reason: 'an empty buffer has no varint', bytes: [], read: (r) => r.readVarint(), fragment: 'a varint runs past the end' },
    { reason: 'a varint whose last byte still has the continuation bit', bytes: [0x80, 0x80], read: (r) => r.readVarint(), fragment: 'runs past the end' },
    {
      reason: 'an eleventh byte would exceed 64 bits',
      bytes: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
      read: (r) => r.readVarint(),
      fragment: 'longer than 64 bits',
    },
    {
      reason: 'a ten-byte varint that continues',
      bytes: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00],
      read: (r) => r.readVarint(),
      fragment: 'longer than 64 bits',
    },
  ];
  for (const c of malformed) {
    test(`rejects: ${c.reason}`, () => assertBadRequest(() => c.read(reader(c.bytes)), c.fragment));
  }

  test('any 64-bit value round-trips through the writer', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (v) => {
        const r = reader(encode((w) => w.varintValue(v)));
        assert.equal(r.readVarint(), v);
        assert.ok(r.done);
      }),
    );
  });

  test('any safe integer round-trips as int64, negatives included', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (v) => {
        assert.equal(reader(encode((w) => w.varintValue(v))).readInt64(), v);
      }),
    );
  });
});

describe('ProtoReader tags', () => {
  test('splits field number and wire type', () => {
    assert.deepEqual(reader([0x0a]).readTag(), { field: 1, wireType: 2 });
    assert.deepEqual(reader([0x88, 0x01]).readTag(), { field: 17, wireType: 0 });
    assert.deepEqual(reader(encode((w) => w.tag(0x1fffffff, 5))).readTag(), { field: 0x1fffffff, wireType: 5 });
  });

  const bad: { reason: string; bytes: number[]; fragment: string }[] = [
    { reason: 'field number 0', bytes: [0x02], fragment: 'field number 0' },
    { reason: 'wire type 6', bytes: [0x0e], fragment: 'wire type 6' },
    { reason: 'wire type 7', bytes: [0x0f], fragment: 'wire type 7' },
    { reason: 'a tag larger than 32 bits', bytes: [0x80, 0x80, 0x80, 0x80, 0x80, 0x01], fragment: 'a field tag is' },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => assertBadRequest(() => reader(c.bytes).readTag(), c.fragment));
  }
});

describe('ProtoReader fixed and length-delimited values', () => {
  test('reads little-endian fixed64 and fixed32', () => {
    const bytes = encode((w) => w.fixed64(1, 0x0102030405060708n).fixed32(2, 0xdeadbeef));
    const r = reader(bytes);
    assert.deepEqual(r.readTag(), { field: 1, wireType: 1 });
    assert.equal(r.readFixed64(), 0x0102030405060708n);
    assert.deepEqual(r.readTag(), { field: 2, wireType: 5 });
    assert.equal(r.readFixed32(), 0xdeadbeef);
    assert.ok(r.done);
  });

  test('reads strings as UTF-8 and bytes as a view', () => {
    const r = reader(encode((w) => w.string(1, 'héllo ✓').bytes(2, [0, 255])));
    r.readTag();
    assert.equal(r.readString(), 'héllo ✓');
    r.readTag();
    assert.deepEqual([...r.readBytes()], [0, 255]);
  });

  test('a nested reader stops at its own end and reports offsets in the whole buffer', () => {
    const bytes = encode((w) => w.message(1, (m) => m.varint(1, 5)).varint(2, 7));
    const outer = reader(bytes);
    outer.readTag();
    const inner = outer.readMessage();
    assert.equal(inner.offset, 2);
    inner.readTag();
    assert.equal(inner.readVarint(), 5n);
    assert.ok(inner.done);
    assert.deepEqual(outer.readTag(), { field: 2, wireType: 0 });
  });

  const bad: { reason: string; bytes: number[]; read: (r: ProtoReader) => unknown; fragment: string }[] = [
    {
      reason: 'a length past the end',
      bytes: [0x05, 0x61],
      read: (r) => r.readBytes('metadata.name'),
      fragment: 'metadata.name needs 5 bytes but only 1 remain',
    },
    { reason: 'a length larger than 32 bits', bytes: [0x80, 0x80, 0x80, 0x80, 0x80, 0x01], read: (r) => r.readBytes(), fragment: 'larger than 32 bits' },
    { reason: 'invalid UTF-8 in a string', bytes: [0x02, 0xc3, 0x28], read: (r) => r.readString('data["a"]'), fragment: 'data["a"] is not valid UTF-8' },
    { reason: 'a truncated fixed64', bytes: [1, 2, 3], read: (r) => r.readFixed64(), fragment: 'a 64-bit value needs 8 bytes but only 3 remain' },
    { reason: 'a truncated fixed32', bytes: [1], read: (r) => r.readFixed32(), fragment: 'a 32-bit value needs 4 bytes' },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => assertBadRequest(() => c.read(reader(c.bytes)), c.fragment));
  }

  test('a length may not reach past the end of the enclosing message', () => {
    // Outer field 1 holds 2 bytes; inside, a string claims 3 bytes that exist only outside.
    const bytes = [0x0a, 0x02, 0x0a, 0x03, 0x61, 0x62, 0x63];
    const outer = reader(bytes);
    outer.readTag();
    const inner = outer.readMessage();
    inner.readTag();
    assertBadRequest(() => inner.readString(), 'needs 3 bytes but only 0 remain');
  });
});

describe('ProtoReader.skip', () => {
  test('skips a field of every wire type and lands on the next tag', () => {
    const bytes = encode((w) => {
      w.varint(1, 300);
      w.fixed64(2, 1n);
      w.string(3, 'skipped');
      w.fixed32(4, 1);
      w.tag(5, 3).varint(1, 1).tag(6, 3).string(2, 'x').tag(6, 4).tag(5, 4); // nested groups
      w.varint(15, 42);
    });
    const r = reader(bytes);
    for (let i = 0; i < 5; i++) r.skip(r.readTag());
    assert.deepEqual(r.readTag(), { field: 15, wireType: 0 });
    assert.equal(r.readVarint(), 42n);
    assert.ok(r.done);
  });

  const bad: { reason: string; bytes: Uint8Array; fragment: string }[] = [
    { reason: 'an end-group tag with nothing open', bytes: encode((w) => w.tag(1, 4)), fragment: 'has no matching start-group tag' },
    { reason: 'a group that never ends', bytes: encode((w) => w.tag(1, 3).varint(2, 1)), fragment: 'has no end-group tag' },
    { reason: 'a group closed by another field’s end tag', bytes: encode((w) => w.tag(1, 3).tag(2, 4)), fragment: 'closes the group of field 1' },
    {
      reason: 'groups nested too deep',
      bytes: encode((w) => {
        for (let i = 0; i < 70; i++) w.tag(1, 3);
      }),
      fragment: 'nested more than 64 deep',
    },
    { reason: 'a truncated 64-bit value', bytes: encode((w) => w.tag(1, 1).raw([1, 2])), fragment: 'needs 8 bytes' },
  ];
  for (const c of bad) {
    test(`rejects ${c.reason}`, () => {
      const r = reader(c.bytes);
      assertBadRequest(() => r.skip(r.readTag()), c.fragment);
    });
  }
});

test('a ProtoWriter field is what the reader reads back', () => {
  const w = new ProtoWriter().varint(3, -5).bool(4, true).string(5, '');
  const r = reader(w.finish());
  assert.deepEqual(r.readTag(), { field: 3, wireType: 0 });
  assert.equal(r.readInt64(), -5);
  assert.deepEqual(r.readTag(), { field: 4, wireType: 0 });
  assert.equal(r.readBool(), true);
  assert.deepEqual(r.readTag(), { field: 5, wireType: 2 });
  assert.equal(r.readString(), '');
  assert.ok(r.done);
});
