/**
 * The S3Bucket client and the Provider check against the project's own S3-compatible server
 * (s3rver behind the SigV4 gateway, test/support/s3-gateway.ts), with the real
 * @aws-sdk/client-s3: create by name (a repeat finds the bucket), observe, the connection
 * details used to put and get an object, delete of a bucket holding objects, and the check's
 * ListBuckets mode for an emulator without STS.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3Gateway, type S3Gateway } from '../../../test/support/s3-gateway.js';
import { fixture } from '../testing.js';
import type { KObject } from '../../machinery/object.js';
import { checkAws } from './check.js';
import { awsCredentialsFrom } from './credentials.js';
import type { S3Bucket } from './kinds.js';
import { S3BucketClient } from './s3-bucket.js';

const provider: KObject = {
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'aws', namespace: 'conductor-system' },
  spec: { type: 'aws', region: 'us-east-1' },
};
const bucket = (name: string, forProvider: Record<string, unknown> = {}): S3Bucket =>
  fixture<S3Bucket>({
    apiVersion: 'storage.aws.conductor.io/v1alpha1',
    kind: 'S3Bucket',
    metadata: { namespace: 'conductor-system', name },
    spec: { providerRef: { name: 'aws' }, capabilities: { capacity: { storage: '100Gi' } }, forProvider: { ...forProvider } },
  });

describe('S3Bucket against the project S3 server', () => {
  let gw: S3Gateway;
  let secret: Record<string, string>;
  before(async () => {
    gw = await startS3Gateway();
    secret = { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey, s3Endpoint: gw.endpoint, claimCredentials: 'provider' };
  });
  after(async () => gw?.stop());

  test('the check lists buckets when the Secret gives an s3Endpoint and no stsEndpoint', async () => {
    const ok = await checkAws(provider, { credentials: secret });
    assert.equal(ok.ready, true, ok.message);
    assert.match(ok.message ?? '', /ListBuckets.*no stsEndpoint/);
    const wrong = await checkAws(provider, { credentials: { ...secret, secretAccessKey: `${gw.secretAccessKey.slice(0, -4)}AAAA` } });
    assert.equal(wrong.ready, false);
    assert.ok(!(wrong.message ?? '').includes(gw.secretAccessKey.slice(0, 20)), 'no key in the message');
    assert.match(wrong.ready ? '' : wrong.reason, /AuthenticationFailed|Forbidden/);
    const nowhere = await checkAws(provider, { credentials: { ...secret, s3Endpoint: 'http://127.0.0.1:1' } });
    assert.equal(nowhere.ready ? '' : nowhere.reason, 'Unreachable', nowhere.message);
  });

  test('create (twice), observe, use the details with the SDK, delete a bucket holding objects', async () => {
    const client = new S3BucketClient(awsCredentialsFrom(secret), provider);
    const r = bucket('photos', { bucketName: 'photos-bucket-1' });
    assert.equal((await client.observe(r)).exists, false);
    assert.equal((await client.create(r)).externalName, 'photos-bucket-1');
    assert.equal((await client.create(r)).externalName, 'photos-bucket-1', 'a repeated create finds the bucket');
    const seen = await client.observe(r);
    assert.equal(seen.exists, true);
    assert.equal(seen.upToDate, true);
    assert.equal(seen.atProvider?.bucketName, 'photos-bucket-1');
    assert.deepEqual(seen.atProvider?.monthlyPrice, {
      amount: '2.47',
      currency: 'USD',
      basis: '107.37 GB × 0.023 USD/GB-month (us-east-1, S3 Standard)',
      table: seen.atProvider?.monthlyPrice && (seen.atProvider.monthlyPrice as Record<string, string>).table,
    });
    const d = seen.connectionDetails!;
    assert.equal(d.endpoint, gw.endpoint);
    assert.equal(d.bucket, 'photos-bucket-1');
    assert.equal(d.region, 'us-east-1');
    const s3 = new S3Client({
      endpoint: d.endpoint,
      region: d.region,
      forcePathStyle: true,
      credentials: { accessKeyId: d.accessKeyId, secretAccessKey: d.secretAccessKey },
    });
    await s3.send(new PutObjectCommand({ Bucket: d.bucket, Key: 'cat.txt', Body: 'meow' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: d.bucket, Key: 'cat.txt' }));
    assert.equal(await got.Body!.transformToString(), 'meow');
    await client.delete(r);
    await assert.rejects(s3.send(new HeadBucketCommand({ Bucket: d.bucket })), (err: any) => err.$metadata?.httpStatusCode === 404);
    assert.equal((await client.observe(r)).exists, false);
    await client.delete(r); // a gone bucket is fine
  });

  test('an external name S3 refuses is said, not sent', async () => {
    const client = new S3BucketClient(awsCredentialsFrom(secret), provider);
    const r = bucket('bad');
    r.metadata.annotations = { 'conductor.io/external-name': 'Bad_Name' };
    await assert.rejects(client.observe(r), /bucket name "Bad_Name" may hold only lower-case letters, digits, dots and hyphens/);
  });
});
