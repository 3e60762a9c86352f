import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { keyIdOf, MAX_JWT_LENGTH, signJwt, verifyJwt, type JwtVerdict } from './jwt.js';

function ecKey(): { privateKey: KeyObject; publicKey: KeyObject; kid: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey, kid: keyIdOf(publicKey) };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const reasonOf = (v: JwtVerdict) => (v.ok ? 'verified' : v.reason);

/** es256 signs header.payload the way any ES256 signer does (raw r||s), without jose. */
function es256(header: unknown, payload: unknown, privateKey: KeyObject): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

describe('signJwt and verifyJwt', async () => {
  const key = ecKey();
  const other = ecKey();
  const keys = new Map([[key.kid, key.publicKey]]);
  const token = await signJwt({ sub: 'x', n: 1 }, key.privateKey, key.kid);

  test('a signed token has the header {alg: ES256, kid} and verifies to its payload', async () => {
    const [h] = token.split('.') as [string];
    assert.equal(Buffer.from(h, 'base64url').toString(), `{"alg":"ES256","kid":"${key.kid}"}`);
    assert.equal(Buffer.from(token.split('.')[1], 'base64url').toString(), '{"sub":"x","n":1}');
    assert.equal(Buffer.from(token.split('.')[2], 'base64url').length, 64);
    assert.deepEqual(await verifyJwt(token, keys), { ok: true, header: { alg: 'ES256', kid: key.kid }, payload: { sub: 'x', n: 1 } });
  });

  test('a token signed by another ES256 implementation verifies', async () => {
    assert.equal(reasonOf(await verifyJwt(es256({ alg: 'ES256', kid: key.kid }, { sub: 'y' }, key.privateKey), keys)), 'verified');
  });

  test('the key id is the same for a private key and its public key', () => {
    assert.equal(keyIdOf(key.privateKey), key.kid);
    assert.notEqual(other.kid, key.kid);
  });

  const [h, p, s] = token.split('.') as [string, string, string];
  const forged = await signJwt({ sub: 'x', n: 1 }, other.privateKey, key.kid);
  const hmacInput = `${b64({ alg: 'HS256', kid: key.kid })}.${p}`;
  const hmacKey = key.publicKey.export({ type: 'spki', format: 'pem' });
  const hmac = `${hmacInput}.${createHmac('sha256', hmacKey).update(hmacInput).digest('base64url')}`;
  const cases: Array<{ reason: string; token: string; want: RegExp }> = [
    { reason: 'a changed payload no longer matches the signature', token: `${h}.${b64({ sub: 'y', n: 1 })}.${s}`, want: /does not verify/ },
    { reason: 'a token signed by another key under our key id', token: forged, want: /does not verify/ },
    {
      reason: 'a token naming an unknown key id',
      token: await signJwt({ sub: 'x' }, other.privateKey, other.kid),
      want: /key id .* is not a known signing key/,
    },
    { reason: 'alg none is never accepted', token: `${b64({ alg: 'none' })}.${p}.`, want: /algorithm "none" is not accepted/ },
    { reason: 'an HMAC algorithm is never accepted, even keyed with the public key', token: hmac, want: /algorithm "HS256" is not accepted/ },
    {
      reason: 'another asymmetric algorithm is not accepted',
      token: `${b64({ alg: 'RS256', kid: key.kid })}.${p}.${s}`,
      want: /algorithm "RS256" is not accepted/,
    },
    { reason: 'a truncated signature', token: `${h}.${p}.${s.slice(0, 20)}`, want: /does not verify/ },
    { reason: 'an empty signature', token: `${h}.${p}.`, want: /does not verify/ },
    {
      reason: 'a DER-encoded signature (not the raw 64 bytes of JWS)',
      token: `${h}.${p}.${sign('sha256', Buffer.from(`${h}.${p}`), key.privateKey).toString('base64url')}`,
      want: /does not verify/,
    },
    {
      reason: 'a signed payload that is a JSON string',
      token: es256({ alg: 'ES256', kid: key.kid }, 'x', key.privateKey),
      want: /payload is not a JSON object/,
    },
    {
      reason: 'a signed payload that is a JSON array',
      token: es256({ alg: 'ES256', kid: key.kid }, [1], key.privateKey),
      want: /payload is not a JSON object/,
    },
    { reason: 'two parts', token: 'a.b', want: /2 dot-separated part\(s\), expected 3/ },
    { reason: 'four parts', token: 'a.b.c.d', want: /4 dot-separated/ },
    { reason: 'characters outside base64url', token: 'a+b.c.d', want: /header is not base64url-encoded JSON/ },
    { reason: 'a header that is not JSON', token: 'bm90IGpzb24.e30.c2ln', want: /header is not base64url-encoded JSON/ },
    { reason: 'a header that is a JSON array', token: `${b64([1])}.e30.c2ln`, want: /header is not base64url-encoded JSON/ },
    { reason: 'a header without alg', token: `${b64({ kid: 'k' })}.e30.c2ln`, want: /no "alg" string/ },
    { reason: 'a header whose kid is not a string', token: `${b64({ alg: 'ES256', kid: 7 })}.e30.c2ln`, want: /"kid" must be a string/ },
    { reason: 'a header whose typ is not a string', token: `${b64({ alg: 'ES256', typ: [] })}.e30.c2ln`, want: /"typ" must be a string/ },
    { reason: 'an oversized token', token: 'a'.repeat(MAX_JWT_LENGTH + 1), want: /expected at most/ },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      assert.match(reasonOf(await verifyJwt(c.token, keys)), c.want);
    });
  }

  test('a token without a key id is tried against every key', async () => {
    const noKid = es256({ alg: 'ES256' }, { sub: 'x' }, key.privateKey);
    const both = new Map([
      [other.kid, other.publicKey],
      [key.kid, key.publicKey],
    ]);
    assert.equal(reasonOf(await verifyJwt(noKid, both)), 'verified');
    assert.match(reasonOf(await verifyJwt(noKid, new Map([[other.kid, other.publicKey]]))), /does not verify/);
  });

  test('changing any one character of a token makes it fail to verify', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(token.length - 1), fc.constantFrom(...'AbZ09-_.x='), async (at, ch) => {
        if (token[at] === ch) return;
        const changed = token.slice(0, at) + ch + token.slice(at + 1);
        const verdict = await verifyJwt(changed, keys);
        // The last base64url character of a part may carry unused bits: flipping only those keeps the bytes.
        const same =
          Buffer.from(changed.split('.')[2] ?? '', 'base64url').equals(Buffer.from(s, 'base64url')) && changed.split('.').slice(0, 2).join('.') === `${h}.${p}`;
        if (!same) assert.equal(verdict.ok, false, `changed token verified: ${changed}`);
      }),
      { numRuns: 300 },
    );
  });

  test('arbitrary text is refused with a reason, never verified and never thrown', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.array(fc.base64String({ maxLength: 60 }), { minLength: 3, maxLength: 3 }).map((a) => a.join('.').replaceAll('+', '-').replaceAll('/', '_')),
        ),
        async (text) => {
          const v = await verifyJwt(text, keys);
          assert.equal(v.ok, false);
          assert.ok(!v.ok && v.reason.length > 0);
        },
      ),
    );
  });
});
