import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../machinery/errors.js';
import { decodeMessage } from './message-decoder.js';
import { dict, many, message, one } from './message-type.js';
import { ProtoReader } from './wire-reader.js';
import { encode, type ProtoWriter } from './wire-writer.js';

/** A made-up message exercising every value type and cardinality. */
const Inner = message('Inner', { 1: one('name', 'string'), 2: many('tags', 'string'), 3: one('count', 'int32') });
const Wrapper = message('Wrapper', { 1: many('items', 'string') }, { unwrap: 'items' });
const Sample = message('Sample', {
  1: one('text', 'string'),
  2: one('kept', 'string', { keep: true }),
  3: one('flag', 'bool'),
  4: one('pointerFlag', 'bool', { keep: true }),
  5: one('small', 'int32'),
  6: one('big', 'int64'),
  7: one('blob', 'bytes'),
  8: one('when', 'time'),
  9: one('whenMicro', 'microTime'),
  10: one('fields', 'fieldsV1'),
  11: one('inner', Inner),
  12: many('inners', Inner),
  13: many('names', 'string'),
  14: dict('labels', 'string'),
  15: dict('blobs', 'bytes'),
  16: dict('extra', Wrapper),
});

function decode(build: (w: ProtoWriter) => unknown): Record<string, unknown> {
  const bytes = encode(build);
  return decodeMessage(new ProtoReader(bytes), Sample, 'Sample');
}

describe('decodeMessage', () => {
  const cases: { reason: string; build: (w: ProtoWriter) => unknown; want: Record<string, unknown> }[] = [
    { reason: 'an empty message is an empty object', build: () => undefined, want: {} },
    {
      reason: 'zero scalars are left out, as Kubernetes JSON omits them',
      build: (w) => w.string(1, '').bool(3, false).varint(5, 0).varint(6, 0).bytes(7, []),
      want: {},
    },
    {
      reason: 'kept fields show their zero value (pointer fields, always-written fields)',
      build: (w) => w.string(2, '').bool(4, false),
      want: { kept: '', pointerFlag: false },
    },
    {
      reason: 'scalars take their JSON form; bytes become base64',
      build: (w) => w.string(1, 'héllo').bool(3, true).varint(5, -7).varint(6, 1234567890123).bytes(7, [0, 1, 254, 255]),
      want: { text: 'héllo', flag: true, small: -7, big: 1234567890123, blob: 'AAH+/w==' },
    },
    {
      reason: 'the last occurrence of a scalar wins, and a later zero removes an earlier value',
      build: (w) => w.string(1, 'first').string(1, 'second').varint(5, 3).varint(5, 0),
      want: { text: 'second' },
    },
    {
      reason: 'times become RFC 3339 strings; an empty Timestamp is the zero time and is left out',
      build: (w) =>
        w
          .timestamp(8, 1714557600, 999)
          .timestamp(9, 1714557600, 5_500)
          .message(8, () => undefined)
          .timestamp(9, 1714557600, 5_500),
      want: { whenMicro: '2024-05-01T10:00:00.000005Z' },
    },
    {
      reason: 'a Time with seconds 0 but present fields is the epoch',
      build: (w) => w.message(8, (t) => t.varint(1, 0)),
      want: { when: '1970-01-01T00:00:00Z' },
    },
    {
      reason: 'FieldsV1 raw bytes are parsed as a JSON object',
      build: (w) => w.message(10, (f) => f.string(1, '{"f:metadata":{"f:labels":{".":{}}}}')),
      want: { fields: { 'f:metadata': { 'f:labels': { '.': {} } } } },
    },
    {
      reason: 'a present nested message is an object even when empty',
      build: (w) => w.message(11, () => undefined),
      want: { inner: {} },
    },
    {
      reason: 'repeated occurrences of a singular message merge (scalars replaced, lists appended)',
      build: (w) => w.message(11, (m) => m.string(1, 'a').string(2, 'x').varint(3, 1)).message(11, (m) => m.string(1, 'b').string(2, 'y')),
      want: { inner: { name: 'b', tags: ['x', 'y'], count: 1 } },
    },
    {
      reason: 'repeated fields keep order and keep empty elements',
      build: (w) =>
        w
          .string(13, 'a')
          .string(13, '')
          .string(13, 'c')
          .message(12, (m) => m.string(1, 'one'))
          .message(12, () => undefined),
      want: { names: ['a', '', 'c'], inners: [{ name: 'one' }, {}] },
    },
    {
      reason: 'map entries become object keys; the last duplicate wins; empty values stay',
      build: (w) =>
        w
          .mapEntry(14, 'a', '1')
          .mapEntry(14, 'b', '')
          .mapEntry(14, 'a', '3')
          .mapEntry(15, 'bin', Uint8Array.from([255])),
      want: { labels: { a: '3', b: '' }, blobs: { bin: '/w==' } },
    },
    {
      reason: 'a map entry missing its key or value uses the zero value',
      build: (w) => w.message(14, (e) => e.string(2, 'no key')).message(14, (e) => e.string(1, 'no value')),
      want: { labels: { '': 'no key', 'no value': '' } },
    },
    {
      reason: 'an unwrapped message value is its list',
      build: (w) => w.message(16, (e) => e.string(1, 'k').message(2, (v) => v.string(1, 'x').string(1, 'y'))).message(16, (e) => e.string(1, 'empty')),
      want: { extra: { k: ['x', 'y'], empty: [] } },
    },
    {
      reason: 'unknown fields of every wire type are skipped',
      build: (w) => w.varint(99, 1).fixed64(98, 1n).string(97, 'x').fixed32(96, 1).tag(95, 3).varint(1, 1).tag(95, 4).string(1, 'kept'),
      want: { text: 'kept' },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(decode(c.build), c.want));
  }

  test('map keys such as "__proto__" stay ordinary keys', () => {
    const got = decode((w) => w.mapEntry(14, '__proto__', 'x').mapEntry(14, 'constructor', 'y'));
    const labels = got.labels as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(labels), Object.prototype);
    assert.deepEqual(Object.keys(labels), ['__proto__', 'constructor']);
    assert.equal(JSON.stringify(labels), '{"__proto__":"x","constructor":"y"}');
  });

  const malformed: { reason: string; build: (w: ProtoWriter) => unknown; fragment: string }[] = [
    {
      reason: 'a string field sent as a varint',
      build: (w) => w.varint(1, 5),
      fragment: 'Sample.text (field 1) has wire type 0 (varint); expected 2 (length-delimited)',
    },
    {
      reason: 'a bool field sent length-delimited',
      build: (w) => w.string(3, 'true'),
      fragment: 'Sample.flag (field 3) has wire type 2 (length-delimited); expected 0 (varint)',
    },
    {
      reason: 'a map value of the wrong wire type',
      build: (w) => w.message(14, (e) => e.string(1, 'k').varint(2, 1)),
      fragment: 'Sample.labels["k"] (field 2) has wire type 0',
    },
    {
      reason: 'a nested field of the wrong wire type',
      build: (w) => w.message(11, (m) => m.fixed32(3, 1)),
      fragment: 'Sample.inner.count (field 3) has wire type 5 (32-bit)',
    },
    {
      reason: 'a repeated element of the wrong wire type',
      build: (w) => w.string(13, 'a').fixed64(13, 1n),
      fragment: 'Sample.names[1] (field 13) has wire type 1 (64-bit)',
    },
    {
      reason: 'invalid UTF-8 in a map value',
      build: (w) => w.message(14, (e) => e.string(1, 'k').bytes(2, [0xff])),
      fragment: 'Sample.labels["k"] is not valid UTF-8',
    },
    {
      reason: 'a time beyond year 9999',
      build: (w) => w.timestamp(8, 253402300800),
      fragment: 'Sample.when is not a valid time: seconds 253402300800 lie outside years 0001 to 9999',
    },
    { reason: 'a MicroTime with negative nanos', build: (w) => w.timestamp(9, 1, -1), fragment: 'Sample.whenMicro is not a valid time: nanos -1' },
    { reason: 'FieldsV1 that is not JSON', build: (w) => w.message(10, (f) => f.string(1, '{nope')), fragment: 'Sample.fields is not valid JSON' },
    { reason: 'FieldsV1 that is a JSON array', build: (w) => w.message(10, (f) => f.string(1, '[]')), fragment: 'Sample.fields must hold a JSON object' },
    { reason: 'an int64 beyond 2^53', build: (w) => w.varint(6, 2n ** 60n), fragment: 'Sample.big is 1152921504606846976' },
    { reason: 'a nested message cut short', build: (w) => w.tag(11, 2).varintValue(10).raw([0x0a]), fragment: 'Sample.inner needs 10 bytes but only 1 remain' },
  ];
  for (const c of malformed) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(
        () => decode(c.build),
        (err: unknown) => err instanceof ApiError && err.code === 400 && err.message.includes(c.fragment),
      );
    });
  }
});
