import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EnvelopeError, ENVELOPE_PREFIX, isSealed, open, seal, sealedKeyId } from './envelope.js';
import { newKey, type EncryptionKey } from './key-file.js';

const k1 = newKey([]);
const k2 = newKey([k1]);
const both = new Map<string, EncryptionKey>([
  [k1.id, k1],
  [k2.id, k2],
]);

function errorOf(fn: () => unknown): EnvelopeError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EnvelopeError, `expected an EnvelopeError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to throw');
}

describe('envelope', () => {
  test('a sealed value names its key, hides the text and opens to it again', () => {
    const sealed = seal(k1, '/registry/core/secrets/ns/a', '{"data":{"password":"aHVudGVyMg=="}}');
    assert.ok(sealed.startsWith(`${ENVELOPE_PREFIX}${k1.id}:`));
    assert.equal(sealedKeyId(sealed), k1.id);
    assert.ok(!sealed.includes('aHVudGVyMg'));
    assert.equal(open(sealed, '/registry/core/secrets/ns/a', both), '{"data":{"password":"aHVudGVyMg=="}}');
  });

  test('two seals of the same text differ (a fresh nonce each time)', () => {
    assert.notEqual(seal(k1, 'k', 'same'), seal(k1, 'k', 'same'));
  });

  const cases: { reason: string; value: () => string; key: string; keys: Map<string, EncryptionKey>; want: EnvelopeError['code']; keyId: string }[] = [
    {
      reason: 'a value moved to another storage key fails authentication',
      value: () => seal(k1, '/a', 'x'),
      key: '/b',
      keys: both,
      want: 'corrupt',
      keyId: k1.id,
    },
    {
      reason: 'a value whose key is gone names the missing key',
      value: () => seal(k2, '/a', 'x'),
      key: '/a',
      keys: new Map([[k1.id, k1]]),
      want: 'missing-key',
      keyId: k2.id,
    },
    {
      reason: 'a flipped ciphertext byte fails authentication',
      value: () => {
        const s = seal(k1, '/a', 'some longer text');
        const body = Buffer.from(s.slice(ENVELOPE_PREFIX.length + k1.id.length + 1), 'base64');
        body[14] = body[14] ^ 1;
        return `${ENVELOPE_PREFIX}${k1.id}:${body.toString('base64')}`;
      },
      key: '/a',
      keys: both,
      want: 'corrupt',
      keyId: k1.id,
    },
    { reason: 'a truncated envelope is refused', value: () => `${ENVELOPE_PREFIX}${k1.id}:AAAA`, key: '/a', keys: both, want: 'corrupt', keyId: k1.id },
    {
      reason: 'the same key under another id does not open it (the id is checked by lookup)',
      value: () => seal(k1, '/a', 'x').replace(k1.id, k2.id),
      key: '/a',
      keys: both,
      want: 'corrupt',
      keyId: k2.id,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const err = errorOf(() => open(c.value(), c.key, c.keys));
      assert.equal(err.code, c.want);
      assert.equal(err.keyId, c.keyId);
      assert.match(err.message, new RegExp(c.keyId));
    });
  }

  test('plain JSON is not taken for an envelope', () => {
    assert.equal(isSealed('{"apiVersion":"v1"}'), false);
    assert.equal(sealedKeyId('{"apiVersion":"v1"}'), undefined);
  });

  test('property: any text under any storage key round-trips', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ minLength: 1, maxLength: 60 }), (text, key) => {
        const sealed = seal(k2, key, text);
        assert.equal(open(sealed, key, both), text);
        assert.ok(text.length < 4 || !sealed.includes(text));
      }),
      { numRuns: 200 },
    );
  });
});
