import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { amzDate, canonicalQuery, encodeRfc3986, sha256Hex, signRequest, type RequestToSign } from './sigv4.js';

const example = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const now = new Date('2015-08-30T12:36:00Z');

describe('signRequest', () => {
  const cases: { reason: string; request: RequestToSign; service: string; want: string }[] = [
    {
      reason: "AWS's published get-vanilla example",
      request: { method: 'GET', path: '/', headers: { host: 'example.amazonaws.com' }, payloadHash: sha256Hex('') },
      service: 'service',
      want: 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    },
    {
      reason: 'an S3 request with a key needing encoding, a query and more headers (checked against @smithy/signature-v4)',
      request: {
        method: 'PUT',
        path: '/my-bucket/a key+(x).txt',
        query: { 'list-type': '2', prefix: 'a b', delete: '' },
        headers: { host: '127.0.0.1:9000', 'x-amz-content-sha256': sha256Hex('hello'), 'Content-Type': ' text/plain ' },
        payloadHash: sha256Hex('hello'),
      },
      service: 's3',
      want: 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/s3/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=76671d299ca7a4aa3a7c807f89e6b7cf0d4599672e637254b4a9d8454f441770',
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = signRequest(c.request, { credentials: example, region: 'us-east-1', service: c.service, now });
      assert.equal(got['x-amz-date'], '20150830T123600Z');
      assert.equal(got.authorization, c.want);
    });
  }

  test('a request without a host header is refused', () => {
    assert.throws(() => signRequest({ method: 'GET', path: '/', headers: {}, payloadHash: '' }, { credentials: example, region: 'r', service: 's3', now }), /without a host header/);
  });
});

describe('encoding', () => {
  test('encodeRfc3986 leaves only unreserved characters unencoded', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const encoded = encodeRfc3986(text);
        assert.match(encoded, /^(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})*$/);
        assert.equal(decodeURIComponent(encoded), text);
      }),
    );
  });

  test('canonicalQuery sorts by name then value and encodes both', () => {
    assert.equal(canonicalQuery({ b: '2', a: 'x y', 'c*': '' }), 'a=x%20y&b=2&c%2A=');
  });

  test('amzDate drops separators and milliseconds', () => {
    assert.equal(amzDate(new Date('2024-01-02T03:04:05.678Z')), '20240102T030405Z');
  });
});
