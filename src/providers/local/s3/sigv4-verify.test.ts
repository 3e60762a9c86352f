import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { signS3Request } from '../../../../test/support/sigv4-sign.js';
import { encodePath, canonicalQuery, sha256Hex } from './sigv4.js';
import { authorize, verifySigV4, type IncomingS3Request } from './sigv4-verify.js';

const now = new Date('2026-11-25T12:00:00Z');
const secrets: Record<string, string> = { AKA: 'secret-a', AKB: 'secret-b' };
const secretOf = (id: string) => secrets[id];

/** signed builds a request as an SDK sends it, signed with key `id` by the SDK's signer. */
async function signed(method: string, path: string, query: Record<string, string>, id = 'AKA', extra: Record<string, string> = {}): Promise<IncomingS3Request> {
  const headers = { host: '127.0.0.1:9000', 'x-amz-content-sha256': sha256Hex(''), ...extra };
  const all = await signS3Request(
    { method, path, query, headers },
    { credentials: { accessKeyId: id, secretAccessKey: secrets[id] }, region: 'us-east-1', now },
  );
  const q = canonicalQuery(query);
  return { method, url: `${encodePath(path)}${q ? `?${q}` : ''}`, headers: all };
}

const segment = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('/'));
const objectPath = fc
  .tuple(fc.constantFrom('bucket-a', 'bucket-b'), fc.array(segment, { minLength: 0, maxLength: 3 }))
  .map(([b, parts]) => `/${[b, ...parts].join('/')}`);
const query = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ maxLength: 8 }), { maxKeys: 3 });

describe('verifySigV4', async () => {
  test("what the AWS SDK's signer signs verifies, for any path and query", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'PUT', 'DELETE', 'HEAD', 'POST'), objectPath, query, async (method, path, q) => {
        assert.deepEqual(verifySigV4(await signed(method, path, q), secretOf, now), { ok: true, accessKeyId: 'AKA' });
      }),
    );
  });

  test('changing the method, the path, the query, a signed header or the key fails', async () => {
    await fc.assert(
      fc.asyncProperty(objectPath, query, async (path, q) => {
        const good = await signed('GET', path, q);
        const variants: IncomingS3Request[] = [
          { ...good, method: 'DELETE' },
          { ...good, url: good.url.replace(/^\/bucket-[ab]/, (b) => (b === '/bucket-a' ? '/bucket-b' : '/bucket-a')) },
          { ...good, url: `${good.url}${good.url.includes('?') ? '&' : '?'}extra=1` },
          { ...good, headers: { ...good.headers, 'x-amz-content-sha256': sha256Hex('other') } },
          { ...good, headers: { ...good.headers, authorization: String(good.headers.authorization).replace('Credential=AKA/', 'Credential=AKB/') } },
        ];
        for (const v of variants) assert.equal(verifySigV4(v, secretOf, now).ok, false, JSON.stringify(v));
      }),
    );
  });

  const cases: { reason: string; req: IncomingS3Request; code: string }[] = [
    { reason: 'anonymous', req: { method: 'GET', url: '/bucket-a/x', headers: { host: 'h' } }, code: 'AccessDenied' },
    { reason: 'SigV2', req: { method: 'GET', url: '/bucket-a/x', headers: { host: 'h', authorization: 'AWS AKA:c2lnbmF0dXJl' } }, code: 'AccessDenied' },
    {
      reason: 'presigned',
      req: { method: 'GET', url: '/bucket-a/x?X-Amz-Credential=AKA%2F20261125%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=00', headers: { host: 'h' } },
      code: 'AccessDenied',
    },
    { reason: 'unknown key', req: await signed('GET', '/bucket-a/x', {}, 'AKA', {}), code: 'InvalidAccessKeyId' },
  ];
  cases[3].req.headers.authorization = String(cases[3].req.headers.authorization).replace('Credential=AKA/', 'Credential=NOPE/');
  for (const c of cases) test(`refused: ${c.reason}`, () => assert.deepEqual((verifySigV4(c.req, secretOf, now) as { code?: string }).code, c.code));

  test('a request more than 15 minutes old is refused', async () => {
    const later = new Date(now.getTime() + 16 * 60 * 1000);
    assert.equal((verifySigV4(await signed('GET', '/bucket-a/x', {}), secretOf, later) as { code?: string }).code, 'RequestTimeTooSkewed');
  });
});

describe('authorize', () => {
  const grant = { bucket: 'bucket-a' };
  const cases: { reason: string; method: string; url: string; headers?: Record<string, string>; ok: boolean }[] = [
    { reason: 'an object in its bucket', method: 'GET', url: '/bucket-a/k', ok: true },
    { reason: 'listing its bucket', method: 'GET', url: '/bucket-a?list-type=2', ok: true },
    { reason: 'listing its bucket (trailing slash)', method: 'GET', url: '/bucket-a/', ok: true },
    { reason: 'multi-delete in its bucket', method: 'POST', url: '/bucket-a?delete', ok: true },
    { reason: 'another bucket', method: 'GET', url: '/bucket-b/k', ok: false },
    { reason: 'a bucket sharing its prefix', method: 'GET', url: '/bucket-a2/k', ok: false },
    { reason: 'an encoded slash does not change the bucket', method: 'GET', url: '/bucket-b%2F..%2Fbucket-a/k', ok: false },
    { reason: 'listing every bucket', method: 'GET', url: '/', ok: false },
    { reason: 'deleting its bucket', method: 'DELETE', url: '/bucket-a', ok: false },
    { reason: 'creating a bucket', method: 'PUT', url: '/bucket-a', ok: false },
    { reason: 'copying from another bucket', method: 'PUT', url: '/bucket-a/k', headers: { 'x-amz-copy-source': '/bucket-b/secret' }, ok: false },
    { reason: 'copying from another bucket, encoded', method: 'PUT', url: '/bucket-a/k', headers: { 'x-amz-copy-source': 'bucket%2Db/secret' }, ok: false },
    { reason: 'a key walking out of its bucket', method: 'GET', url: '/bucket-a/../bucket-b/secret', ok: false },
    { reason: 'an encoded walk out of its bucket', method: 'GET', url: '/bucket-a/%2E%2E/bucket-b/secret', ok: false },
    { reason: 'a bucket segment with an encoded walk', method: 'GET', url: '/bucket-a%2F..%2Fbucket-b/secret', ok: false },
    { reason: 'a key segment with an encoded slash walk', method: 'GET', url: '/bucket-a/x%2F..%2F..%2Fbucket-b/secret', ok: false },
    {
      reason: 'a copy source walking out of its bucket',
      method: 'PUT',
      url: '/bucket-a/k',
      headers: { 'x-amz-copy-source': 'bucket-a/../bucket-b/secret' },
      ok: false,
    },
    { reason: 'copying within its bucket', method: 'PUT', url: '/bucket-a/k', headers: { 'x-amz-copy-source': 'bucket-a/other' }, ok: true },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(authorize({ method: c.method, url: c.url, headers: c.headers ?? {} }, grant).ok, c.ok));
  test('even the admin key may not use . or .. segments', () => {
    assert.equal(authorize({ method: 'GET', url: '/bucket-a/%2e%2e/%2e%2e/etc/passwd', headers: {} }, { all: true }).ok, false);
  });
});
