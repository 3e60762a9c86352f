import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { awsCredentialsFrom, CredentialsError } from './credentials.js';

const secret = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

describe('aws credentials Secret', () => {
  test('a full Secret is read', () => {
    const c = awsCredentialsFrom({
      ...secret,
      sessionToken: 'FwoGZXIvYXdzEXAMPLE',
      roleArn: 'arn:aws:iam::123456789012:role/conductor',
      externalId: 'shop-42',
      s3Endpoint: 'http://127.0.0.1:9000/',
      stsEndpoint: 'https://sts.eu-west-1.amazonaws.com',
      claimCredentials: 'provider',
      masterPasswordKey: 'a-long-random-string-of-letters',
    });
    assert.deepEqual(c.endpoints, { s3: 'http://127.0.0.1:9000', sts: 'https://sts.eu-west-1.amazonaws.com' });
    assert.equal(c.claimCredentials, 'provider');
    assert.equal(c.masterPasswordKey, 'a-long-random-string-of-letters');
    assert.equal(awsCredentialsFrom(secret).masterPasswordKey, secret.secretAccessKey, 'default: the secret key');
    assert.equal(awsCredentialsFrom(secret).claimCredentials, 'federated');
  });

  test('missing or malformed keys are named, values never quoted', () => {
    const cases: [Record<string, string> | undefined, RegExp][] = [
      [undefined, /names no credentials Secret, or it is empty/],
      [{}, /names no credentials Secret, or it is empty/],
      [{ region: 'x' }, /neither accessKeyId nor secretAccessKey/],
      [{ secretAccessKey: secret.secretAccessKey }, /has secretAccessKey but no accessKeyId: add accessKeyId/],
      [{ accessKeyId: secret.accessKeyId }, /has accessKeyId but no secretAccessKey: add secretAccessKey/],
      [{ ...secret, accessKeyId: 'akia-lower' }, /key accessKeyId is not an AWS access key ID/],
      [{ ...secret, secretAccessKey: 'short' }, /key secretAccessKey is not an AWS secret access key/],
      [{ ...secret, sessionToken: 'a b' }, /key sessionToken holds whitespace/],
      [{ ...secret, roleArn: 'arn:aws:iam::123:role/x' }, /key roleArn is not an IAM role ARN/],
      [{ ...secret, externalId: 'abc' }, /key externalId is set without roleArn/],
      [{ ...secret, sqsEndpoint: 'ftp://127.0.0.1' }, /key sqsEndpoint is not an http\(s\) URL/],
      [{ ...secret, rdsEndpoint: 'http://rds.example.com' }, /key rdsEndpoint uses http to a host that is not this machine/],
      [{ ...secret, s3Endpoint: 'https://user:pw@s3.example.com' }, /key s3Endpoint has a user, query or fragment/],
      [{ ...secret, s3Endpoint: 'not a url' }, /key s3Endpoint is not a URL/],
      [{ ...secret, claimCredentials: 'iam' }, /key claimCredentials is neither federated nor provider/],
      [{ ...secret, masterPasswordKey: 'short' }, /key masterPasswordKey is shorter than 16 characters/],
    ];
    for (const [data, message] of cases) {
      assert.throws(
        () => awsCredentialsFrom(data),
        (err: unknown) => {
          assert.ok(err instanceof CredentialsError);
          assert.match(err.message, message);
          assert.ok(!err.message.includes(secret.secretAccessKey) && !err.message.includes('pw@'), err.message);
          return true;
        },
      );
    }
  });
});
