import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { decodeJwt, keyIdOf, MAX_JWT_LENGTH, signJwt, verifyJwtSignature } from './jwt.js';

function ecKey(): { privateKey: KeyObject; publicKey: KeyObject; kid: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey, kid: keyIdOf(publicKey) };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('signJwt and verifyJwtSignature', () => {
  const key = ecKey();
  const other = ecKey();
  const keys = new Map([[key.kid, key.publicKey]]);
  const token = signJwt({ sub: 'x', n: 1 }, key.privateKey, key.kid);

  test('a signed token decodes to its header and payload and verifies', () => {
    const jwt = decodeJwt(token);
    assert.deepEqual(jwt.header, { alg: 'ES256', kid: key.kid });
    assert.deepEqual(jwt.payload, { sub: 'x', n: 1 });
    assert.equal(verifyJwtSignature(jwt, keys), undefined);
  });

  test('the key id is the same for a private key and its public key', () => {
    assert.equal(keyIdOf(key.privateKey), key.kid);
    assert.notEqual(other.kid, key.kid);
  });

  const [h, p, s] = token.split('.') as [string, string, string];
  const forged = signJwt({ sub: 'x', n: 1 }, other.privateKey, key.kid);
  const cases: Array<{ reason: string; token: string; want: RegExp }> = [
    { reason: 'a changed payload no longer matches the signature', token: `${h}.${b64({ sub: 'y', n: 1 })}.${s}`, want: /does not verify/ },
    { reason: 'a token signed by another key under our key id', token: forged, want: /does not verify/ },
    { reason: 'a token naming an unknown key id', token: signJwt({ sub: 'x' }, other.privateKey, other.kid), want: /key id .* is not a known signing key/ },
    { reason: 'alg none is never accepted', token: `${b64({ alg: 'none' })}.${p}.${s}`, want: /algorithm "none" is not accepted/ },
    { reason: 'an HMAC algorithm is never accepted', token: `${b64({ alg: 'HS256', kid: key.kid })}.${p}.${s}`, want: /algorithm "HS256" is not accepted/ },
    { reason: 'a truncated signature', token: `${h}.${p}.${s.slice(0, 20)}`, want: /signature is 15 bytes, expected 64/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.match(verifyJwtSignature(decodeJwt(c.token), keys) ?? 'verified', c.want);
    });
  }

  test('a token without a key id is tried against every key', () => {
    const input = `${b64({ alg: 'ES256' })}.${b64({ sub: 'x' })}`;
    const sig = sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    const both = new Map([[other.kid, other.publicKey], [key.kid, key.publicKey]]);
    assert.equal(verifyJwtSignature(decodeJwt(`${input}.${sig}`), both), undefined);
    assert.match(verifyJwtSignature(decodeJwt(`${input}.${sig}`), new Map([[other.kid, other.publicKey]])) ?? '', /does not verify/);
  });

  test('changing any one character of a token makes it fail to decode or to verify', () => {
    fc.assert(
      fc.property(fc.nat(token.length - 1), fc.constantFrom(...'AbZ09-_.x='), (at, ch) => {
        if (token[at] === ch) return;
        const changed = token.slice(0, at) + ch + token.slice(at + 1);
        let verdict: string | undefined;
        try {
          verdict = verifyJwtSignature(decodeJwt(changed), keys);
        } catch {
          verdict = 'malformed';
        }
        // The last base64url character of a part may carry unused bits: flipping only those keeps the bytes.
        const same = Buffer.from(changed.split('.')[2] ?? '', 'base64url').equals(Buffer.from(s, 'base64url')) && changed.split('.').slice(0, 2).join('.') === `${h}.${p}`;
        if (!same) assert.notEqual(verdict, undefined, `changed token verified: ${changed}`);
      }),
      { numRuns: 300 },
    );
  });
});

describe('decodeJwt', () => {
  const cases: Array<{ reason: string; token: string; want: RegExp }> = [
    { reason: 'two parts', token: 'a.b', want: /2 dot-separated part\(s\), expected 3/ },
    { reason: 'four parts', token: 'a.b.c.d', want: /4 dot-separated/ },
    { reason: 'an empty part', token: `${b64({ alg: 'ES256' })}..c`, want: /non-empty base64url/ },
    { reason: 'characters outside base64url', token: 'a+b.c.d', want: /base64url/ },
    { reason: 'a header that is not JSON', token: 'bm90IGpzb24.e30.c2ln', want: /header is not base64url-encoded JSON/ },
    { reason: 'a header that is a JSON array', token: `${b64([1])}.e30.c2ln`, want: /header is not a JSON object/ },
    { reason: 'a header without alg', token: `${b64({ kid: 'k' })}.e30.c2ln`, want: /no "alg" string/ },
    { reason: 'a payload that is a string', token: `${b64({ alg: 'ES256' })}.${b64('x')}.c2ln`, want: /payload is not a JSON object/ },
    { reason: 'an oversized token', token: 'a'.repeat(MAX_JWT_LENGTH + 1), want: /expected at most/ },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.throws(() => decodeJwt(c.token), c.want));
  }

  test('arbitrary text either decodes or throws an Error, never anything else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        try {
          decodeJwt(text);
        } catch (err) {
          assert.ok(err instanceof Error);
        }
      }),
    );
  });
});
