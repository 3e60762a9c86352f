/**
 * The keys a claim gets (claimKeys), with STS mocked at the SDK's request level: federated keys
 * scoped by a session policy to one bucket, from GetFederationToken or AssumeRole of roleArn;
 * the same keys re-published until a third of their life has passed, then new ones; what
 * cannot federate says what to do; `provider` hands out the Provider's keys. And every SDK
 * client makes one attempt per call (the reconciler retries), against a local server answering
 * 503 to everything (mocked: it stands in for an AWS endpoint that is down).
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { DescribeDBInstancesCommand, RDSClient } from '@aws-sdk/client-rds';
import { FakeSts, FAKE_ACCOUNT } from '../../../test/support/aws-fakes.js';
import { startUnavailableHttp } from '../../../test/support/unavailable-servers.js';
import { bucketPolicy, claimKeys, clientConfig, FEDERATION_TOKEN_SECONDS, forgetCachedKeys, ROLE_SESSION_SECONDS, stsClient } from './aws-clients.js';
import { awsCredentialsFrom } from './credentials.js';
import { s3ClientFor } from './s3-bucket.js';

const secret = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const scope = { what: 'bucket shop-photos', policy: bucketPolicy('shop-photos') };

describe('claim keys (mocked STS)', () => {
  let sts: FakeSts;
  let clock: number;
  beforeEach(() => {
    forgetCachedKeys();
    clock = Date.parse('2026-01-01T00:00:00Z');
    sts = new FakeSts(secret.accessKeyId, () => clock);
  });
  afterEach(() => sts.restore());

  test('GetFederationToken with a policy naming the bucket only; kept for a third of its life, then renewed (mocked)', async () => {
    const c = awsCredentialsFrom(secret);
    const first = await claimKeys(c, 'us-east-1', scope, undefined, () => clock);
    assert.match(first.accessKeyId, /^ASIAFED/);
    assert.equal(first.expiresAt, new Date(clock + FEDERATION_TOKEN_SECONDS * 1000).toISOString());
    const call = sts.calls.find((x) => x.operation === 'GetFederationToken')!;
    assert.equal(call.input.DurationSeconds, FEDERATION_TOKEN_SECONDS);
    assert.match(call.input.Name, /^conductor-[0-9a-f]{16}$/);
    const policy = JSON.parse(call.input.Policy);
    assert.deepEqual(
      policy.Statement.map((s: any) => s.Resource),
      ['arn:aws:s3:::shop-photos/*', 'arn:aws:s3:::shop-photos'],
    );
    clock += ((FEDERATION_TOKEN_SECONDS * 1000) / 3) * 0.9;
    assert.deepEqual(await claimKeys(c, 'us-east-1', scope, undefined, () => clock), first, 'the same keys within a third of their life');
    clock += ((FEDERATION_TOKEN_SECONDS * 1000) / 3) * 0.2;
    const renewed = await claimKeys(c, 'us-east-1', scope, undefined, () => clock);
    assert.notEqual(renewed.accessKeyId, first.accessKeyId);
    assert.equal(sts.calls.filter((x) => x.operation === 'GetFederationToken').length, 2);
    // Another bucket: other keys.
    const other = await claimKeys(c, 'us-east-1', { what: 'bucket other', policy: bucketPolicy('other') }, undefined, () => clock);
    assert.notEqual(other.accessKeyId, renewed.accessKeyId);
  });

  test('with roleArn: AssumeRole of the role with the session policy, for an hour (mocked)', async () => {
    const c = awsCredentialsFrom({ ...secret, roleArn: `arn:aws:iam::${FAKE_ACCOUNT}:role/claims` });
    const keys = await claimKeys(c, 'eu-west-1', scope, undefined, () => clock);
    assert.match(keys.accessKeyId, /^ASIAROLE/);
    const call = sts.calls.find((x) => x.operation === 'AssumeRole' && x.input.Policy)!;
    assert.equal(call.input.RoleArn, `arn:aws:iam::${FAKE_ACCOUNT}:role/claims`);
    assert.equal(call.input.DurationSeconds, ROLE_SESSION_SECONDS);
    assert.deepEqual(JSON.parse(call.input.Policy), scope.policy);
  });

  test('what cannot federate says what to do; provider mode hands out the Provider keys (mocked)', async () => {
    await assert.rejects(
      claimKeys(awsCredentialsFrom({ ...secret, s3Endpoint: 'http://127.0.0.1:9000' }), 'us-east-1', scope),
      /needs STS to issue keys for bucket shop-photos.*add stsEndpoint, or set claimCredentials: provider/,
    );
    await assert.rejects(
      claimKeys(awsCredentialsFrom({ ...secret, sessionToken: 'FwoGZXIvYXdzEXAMPLE' }), 'us-east-1', scope),
      /GetFederationToken needs an IAM user's long-term keys — add roleArn/,
    );
    assert.deepEqual(await claimKeys(awsCredentialsFrom({ ...secret, claimCredentials: 'provider' }), 'us-east-1', scope), {
      accessKeyId: secret.accessKeyId,
      secretAccessKey: secret.secretAccessKey,
      sessionToken: '',
      expiresAt: '',
    });
    assert.equal(sts.calls.length, 0);
  });
});

describe('one attempt per call: no SDK retry inside the call deadline (mocked: a local server answers 503)', () => {
  test('S3, STS and RDS clients send one request for a call AWS answers 503 (the SDK default would send 3)', async () => {
    const down = await startUnavailableHttp();
    try {
      const c = awsCredentialsFrom({ ...secret, s3Endpoint: down.url, stsEndpoint: down.url, rdsEndpoint: down.url });
      assert.equal(clientConfig(c, 'us-east-1', 'rds').maxAttempts, 1);
      const calls: [string, () => Promise<unknown>][] = [
        ['S3 ListBuckets', () => s3ClientFor(c, 'us-east-1').send(new ListBucketsCommand({}))],
        ['STS GetCallerIdentity', () => stsClient(c, 'us-east-1').send(new GetCallerIdentityCommand({}))],
        ['RDS DescribeDBInstances', () => new RDSClient(clientConfig(c, 'us-east-1', 'rds')).send(new DescribeDBInstancesCommand({}))],
      ];
      for (const [what, call] of calls) {
        const before = down.requests();
        await assert.rejects(call(), (err: { $metadata?: { httpStatusCode?: number; attempts?: number } }) => err.$metadata?.httpStatusCode === 503, what);
        assert.equal(down.requests() - before, 1, `${what}: one request`);
      }
    } finally {
      await down.stop();
    }
  });
});
