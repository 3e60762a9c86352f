/**
 * The aws Provider check with STS mocked at the SDK's request level: Ready from
 * GetCallerIdentity (as the role, with roleArn), and Ready=False with the reason — InvalidSpec,
 * InvalidCredentials naming the key, AuthenticationFailed, WrongAccount, Throttled (with AWS's
 * Retry-After as `retryAfterSeconds`) — never quoting a value of the Secret.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STSServiceException } from '@aws-sdk/client-sts';
import { FakeSts, FAKE_ACCOUNT } from '../../../test/support/aws-fakes.js';
import type { KObject } from '../../machinery/object.js';
import { forgetCachedKeys } from './aws-clients.js';
import { checkAws } from './check.js';

const secret = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const provider = (spec: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'aws' },
  spec: { type: 'aws', region: 'eu-west-1', ...spec },
});

describe('the aws Provider check (mocked STS)', () => {
  let sts: FakeSts;
  beforeEach(() => {
    forgetCachedKeys();
    sts = new FakeSts(secret.accessKeyId);
  });
  afterEach(() => sts.restore());

  test('Ready from GetCallerIdentity, as the user or the assumed role (mocked)', async () => {
    const ok = await checkAws(provider({ project: FAKE_ACCOUNT }), { credentials: secret });
    assert.deepEqual(ok, {
      ready: true,
      message: `STS GetCallerIdentity: the keys authenticate as arn:aws:iam::${FAKE_ACCOUNT}:user/conductor in account ${FAKE_ACCOUNT}`,
    });
    const role = await checkAws(provider(), { credentials: { ...secret, roleArn: `arn:aws:iam::${FAKE_ACCOUNT}:role/conductor`, externalId: 'shop-42' } });
    assert.equal(role.ready, true);
    assert.match(role.message ?? '', /assumed-role\/conductor/);
    const assumed = sts.calls.find((c) => c.operation === 'AssumeRole')!;
    assert.equal(assumed.input.RoleArn, `arn:aws:iam::${FAKE_ACCOUNT}:role/conductor`);
    assert.equal(assumed.input.ExternalId, 'shop-42');
  });

  test('Ready=False with the reason, never quoting a value (mocked)', async () => {
    const cases: [KObject, Record<string, string>, string, RegExp][] = [
      [provider({ region: 'moon-1' }), secret, 'InvalidSpec', /spec.region "moon-1" is not an AWS region/],
      [provider({ region: undefined }), secret, 'InvalidSpec', /spec.region is not set/],
      [provider({ project: 'acme' }), secret, 'InvalidSpec', /spec.project is not an AWS account ID: want 12 digits/],
      [provider(), { accessKeyId: secret.accessKeyId }, 'InvalidCredentials', /has accessKeyId but no secretAccessKey: add secretAccessKey/],
      [provider(), { ...secret, accessKeyId: 'not a key' }, 'InvalidCredentials', /key accessKeyId is not an AWS access key ID/],
      [provider(), { ...secret, stsEndpoint: 'http://sts.example.com' }, 'InvalidCredentials', /key stsEndpoint uses http to a host that is not this machine/],
      [provider(), { ...secret, roleArn: 'arn:aws:iam::12:role/x' }, 'InvalidCredentials', /key roleArn is not an IAM role ARN/],
      [
        provider(),
        { ...secret, accessKeyId: 'AKIAOTHERKEY00000000' },
        'AuthenticationFailed',
        /403 InvalidClientTokenId.*check accessKeyId, secretAccessKey and sessionToken/,
      ],
      [provider({ project: '210987654321' }), secret, 'WrongAccount', /authenticate as account 123456789012, not spec.project 210987654321/],
    ];
    for (const [p, credentials, reason, message] of cases) {
      const got = await checkAws(p, { credentials });
      assert.equal(got.ready, false, `${reason}: ${got.message}`);
      if (got.ready) continue;
      assert.equal(got.reason, reason, got.message);
      assert.match(got.message, message);
      assert.ok(!got.message.includes(secret.secretAccessKey), 'no secret key in the message');
    }
    sts.failNext(
      'GetCallerIdentity',
      new STSServiceException({ name: 'Throttling', $fault: 'client', message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }),
    );
    const throttled = await checkAws(provider(), { credentials: secret });
    assert.equal(throttled.ready ? '' : throttled.reason, 'Throttled');
    assert.equal(throttled.ready ? 0 : throttled.retryAfterSeconds, undefined, 'no Retry-After, no wait');

    // With AWS's Retry-After the verdict carries the wait: the Provider controller checks again after it.
    sts.failNext(
      'GetCallerIdentity',
      Object.assign(new STSServiceException({ name: 'Throttling', $fault: 'client', message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }), {
        $response: { headers: { 'retry-after': '30' } },
      }),
    );
    const waiting = await checkAws(provider(), { credentials: secret });
    assert.deepEqual(waiting.ready ? undefined : [waiting.reason, waiting.retryAfterSeconds], ['Throttled', 30]);
    assert.match(waiting.ready ? '' : waiting.message, /throttled by AWS; retrying in 30s/);
  });
});
