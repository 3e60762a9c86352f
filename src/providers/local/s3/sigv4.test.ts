import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { signS3Request } from '../../../../test/support/sigv4-sign.js';
import { amzDate, canonicalQuery, encodeRfc3986, sha256Hex } from './sigv4.js';

const example = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const now = new Date('2015-08-30T12:36:00Z');

describe("the AWS SDK's signer the verifier's tests sign with", () => {
  test('signs an S3 request with a key needing encoding, a query and more headers as before', async () => {
    const got = await signS3Request(
      {
        method: 'PUT',
        path: '/my-bucket/a key+(x).txt',
        query: { 'list-type': '2', prefix: 'a b', delete: '' },
        headers: { host: '127.0.0.1:9000', 'x-amz-content-sha256': sha256Hex('hello'), 'Content-Type': ' text/plain ' },
      },
      { credentials: example, region: 'us-east-1', now },
    );
    assert.equal(got['x-amz-date'], '20150830T123600Z');
    // The signature Conductor's own signer produced for this request (also checked against @smithy/signature-v4 then).
    assert.equal(
      got.authorization,
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/s3/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=76671d299ca7a4aa3a7c807f89e6b7cf0d4599672e637254b4a9d8454f441770',
    );
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
