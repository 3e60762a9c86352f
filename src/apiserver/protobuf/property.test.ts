/**
 * Property tests: arbitrary or damaged bytes never escape as anything but a 400 or 415
 * ApiError (and never hang), and generated objects survive encode → decode.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../machinery/errors.js';
import { decodeProtobufObject, PROTOBUF_MAGIC } from './decode-object.js';
import { decodableKinds } from './kinds.js';
import { kubectlBodies } from './kubectl-fixtures.js';
import { encode, envelope } from './wire-writer.js';

/** Decodes and reports how it ended; any error other than a 400/415 ApiError fails the property. */
function decodeOutcome(body: Uint8Array): 'ok' | 400 | 415 {
  try {
    decodeProtobufObject(body);
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError && (err.code === 400 || err.code === 415)) return err.code;
    throw new Error(`decoding threw something other than a 400/415 ApiError: ${String(err)}`, { cause: err });
  }
}

const magic = Uint8Array.from(PROTOBUF_MAGIC);
const withMagic = (bytes: Uint8Array) => Buffer.concat([magic, bytes]);
const fixtures = Object.values(kubectlBodies).map((b) => Buffer.from(b.hex, 'hex'));
const kinds = decodableKinds.map((k) => ({ apiVersion: k.apiVersion === '*' ? 'v1' : k.apiVersion, kind: k.kind }));

describe('decodeProtobufObject never fails badly', () => {
  test('on random bytes, with or without the k8s prefix', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.boolean(), (bytes, prefixed) => {
        decodeOutcome(prefixed ? withMagic(bytes) : bytes);
      }),
      { numRuns: 3000 },
    );
  });

  test('on random bytes wrapped as the object of every decodable kind', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.uint8Array({ maxLength: 256 }), (k, bytes) => {
        assert.notEqual(decodeOutcome(envelope(k.apiVersion, k.kind, bytes)), 415);
      }),
      { numRuns: 3000 },
    );
  });

  test('on kubectl bodies with bytes changed, inserted or cut off', { timeout: 60_000 }, () => {
    const damage = fc.oneof(
      fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ op: fc.constant('insert' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ op: fc.constant('cut' as const), at: fc.nat(), value: fc.constant(0) }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), fc.array(damage, { minLength: 1, maxLength: 4 }), (fixture, changes) => {
        let body = Buffer.from(fixture);
        for (const c of changes) {
          const at = c.at % (body.length + 1);
          if (c.op === 'set' && at < body.length) body[at] = c.value;
          else if (c.op === 'insert') body = Buffer.concat([body.subarray(0, at), Buffer.from([c.value]), body.subarray(at)]);
          else if (c.op === 'cut') body = body.subarray(0, at);
        }
        decodeOutcome(body);
      }),
      { numRuns: 3000 },
    );
  });

  // A decoder that trusted the length or looped over the continuation bytes would allocate or
  // spin: such a hang is failed by the runner's per-test timeout, not by a clock here.
  test('on a huge declared length or a long run of continuation bytes', () => {
    assert.equal(decodeOutcome(withMagic(Uint8Array.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f]))), 400);
    assert.equal(decodeOutcome(withMagic(new Uint8Array(1 << 20).fill(0x80))), 400);
  });
});

describe('generated objects survive encode → decode', () => {
  const key = fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' });
  const text = fc.string({ maxLength: 20, unit: 'grapheme' });
  // fast-check builds null-prototype objects; the decoder builds plain ones.
  const plain = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o));
  const dict = fc.dictionary(key, text, { maxKeys: 5 }).map(plain);

  test('ConfigMaps: any UTF-8 keys and values, maps left out when empty', () => {
    fc.assert(
      fc.property(
        key,
        dict,
        dict,
        fc.dictionary(key, fc.uint8Array({ maxLength: 16 }), { maxKeys: 3 }).map(plain),
        fc.option(fc.boolean()),
        (name, labels, data, binary, immutable) => {
          const body = envelope(
            'v1',
            'ConfigMap',
            encode((w) => {
              w.message(1, (m) => {
                m.string(1, name);
                for (const [k, v] of Object.entries(labels)) m.mapEntry(11, k, v);
              });
              for (const [k, v] of Object.entries(data)) w.mapEntry(2, k, v);
              for (const [k, v] of Object.entries(binary)) w.mapEntry(3, k, v);
              if (immutable !== null) w.bool(4, immutable);
            }),
          );
          const want: Record<string, unknown> = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } };
          if (Object.keys(labels).length) (want.metadata as Record<string, unknown>).labels = labels;
          if (Object.keys(data).length) want.data = data;
          if (Object.keys(binary).length) {
            want.binaryData = Object.fromEntries(Object.entries(binary).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
          }
          if (immutable !== null) want.immutable = immutable;
          assert.deepEqual(decodeProtobufObject(body).object, want);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('Secret data: any bytes come back as the base64 of those bytes', () => {
    fc.assert(
      fc.property(fc.dictionary(key, fc.uint8Array({ maxLength: 64 }), { minKeys: 1, maxKeys: 4 }), (data) => {
        const body = envelope(
          'v1',
          'Secret',
          encode((w) => {
            for (const [k, v] of Object.entries(data)) w.mapEntry(2, k, v);
          }),
        );
        const got = decodeProtobufObject(body).object.data as Record<string, string>;
        assert.deepEqual(Object.keys(got).sort(), Object.keys(data).sort());
        for (const [k, v] of Object.entries(data)) assert.deepEqual(Buffer.from(got[k], 'base64'), Buffer.from(v));
      }),
      { numRuns: 300 },
    );
  });
});
