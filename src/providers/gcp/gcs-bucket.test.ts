import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '@google-cloud/storage';
import { startFakeCloudStorage, type FakeCloudStorage } from '../../../test/support/fake-gcp-storage.js';
import { gcpCredentialsFrom } from './credentials.js';
import type { GcpError } from './errors.js';
import { GcsBucketClient, OWNER_LABEL } from './gcs-bucket.js';
import { bucketSettings } from './kind-settings.js';
import { gcsBucketKind, type GCSBucket } from './kinds.js';

const provider = {
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'gcp', namespace: 'conductor-system' },
  spec: { region: 'us-east1' },
};

function resource(name: string, forProvider: Record<string, unknown> = {}, namespace = 'conductor-system'): GCSBucket {
  return gcsBucketKind.make({
    metadata: { name, namespace },
    spec: {
      providerRef: { name: 'gcp' },
      rebindPolicy: 'Delete',
      managementPolicy: 'Full',
      capabilities: { capacity: { storage: '100Gi' } },
      forProvider: forProvider as never,
    },
  });
}

describe('GCSBucket against a fake of the Cloud Storage JSON API (mocked)', () => {
  let fake: FakeCloudStorage;
  let client: GcsBucketClient;
  before(async () => {
    fake = await startFakeCloudStorage();
    const credentials = gcpCredentialsFrom({
      projectId: 'conductor-test',
      pubsubEndpoint: 'http://127.0.0.1:1',
      spannerEndpoint: 'http://127.0.0.1:1',
      storageEndpoint: fake.endpoint,
      hmacAccessId: 'GOOG1EXAMPLEACCESSID',
      hmacSecret: 'hmac-secret-value-0001',
    });
    client = new GcsBucketClient(credentials, provider);
  });
  after(async () => {
    await fake?.stop();
  });

  test('mocked: create, observe, the Bucket keys; a client with the keys puts and gets an object', async () => {
    const r = resource('assets', { bucketName: 'shop-assets-1', versioning: true });
    assert.deepEqual(await client.observe(r), { exists: false, upToDate: false });
    assert.equal((await client.create(r)).externalName, 'shop-assets-1');
    const stored = fake.buckets.get('shop-assets-1');
    assert.equal(stored?.body.location, 'US-EAST1');
    assert.equal(stored?.body.iamConfiguration.publicAccessPrevention, 'enforced');
    assert.equal(stored?.body.labels[OWNER_LABEL], bucketSettings(r, provider, 'conductor-test').owner);
    const seen = await client.observe(r);
    assert.equal(seen.upToDate, true, seen.drift);
    assert.deepEqual(seen.connectionDetails, {
      endpoint: fake.endpoint,
      bucket: 'shop-assets-1',
      region: 'us-east1',
      accessKeyId: 'GOOG1EXAMPLEACCESSID',
      secretAccessKey: 'hmac-secret-value-0001',
      projectId: 'conductor-test',
      storageEndpoint: fake.endpoint,
      emulated: 'true',
      credentials: '',
    });
    assert.match(JSON.stringify(seen.atProvider?.monthlyPrice), /STANDARD, us-east1/);
    const app = new Storage({ projectId: 'conductor-test', apiEndpoint: fake.endpoint });
    await app.bucket('shop-assets-1').file('hello.txt').save('hello from a claim', { resumable: false, validation: 'md5' });
    const [data] = await app.bucket('shop-assets-1').file('hello.txt').download({ validation: 'md5' });
    assert.equal(data.toString(), 'hello from a claim');
  });

  test('mocked: a bucket holding objects is kept (clear error) unless forceDestroy; a gone one is done', async () => {
    const r = resource('full', { bucketName: 'shop-full-1' });
    await client.create(r);
    fake.buckets.get('shop-full-1')!.objects.set('a', Buffer.from('x'));
    await assert.rejects(client.delete(r), (err: GcpError) => err.reason === 'FailedPrecondition' && /forceDestroy/.test(err.message));
    await client.delete(resource('full', { bucketName: 'shop-full-1', forceDestroy: true }));
    assert.equal(fake.buckets.has('shop-full-1'), false);
    await client.delete(r);
  });

  test('mocked: publicRead lets allUsers read; drift in versioning is repaired by update', async () => {
    const r = resource('public', { bucketName: 'shop-public-1', publicRead: true });
    await client.create(r);
    assert.deepEqual(fake.buckets.get('shop-public-1')?.policy.bindings, [{ role: 'roles/storage.objectViewer', members: ['allUsers'] }]);
    const versioned = resource('public', { bucketName: 'shop-public-1', publicRead: true, versioning: true });
    assert.match((await client.observe(versioned)).drift ?? '', /versioning is off, spec wants on/);
    await client.update(versioned);
    assert.equal((await client.observe(versioned)).upToDate, true);
  });

  test('mocked: a name taken by another resource or project is refused; quota 429 and a location not offered are clear errors', async () => {
    await client.create(resource('mine', { bucketName: 'shop-taken-1' }));
    await client.create(resource('mine', { bucketName: 'shop-taken-1' }));
    await assert.rejects(client.create(resource('mine', { bucketName: 'shop-taken-1' }, 'elsewhere')), (err: GcpError) => err.reason === 'AlreadyExists');
    fake.buckets.set('someone-elses', { body: { location: 'US' }, objects: new Map(), policy: { bindings: [] }, foreign: true });
    await assert.rejects(
      client.observe(resource('x', { bucketName: 'someone-elses' })),
      (err: GcpError) => err.reason === 'Forbidden' && /another project/.test(err.message),
    );
    fake.fail({
      method: 'POST',
      path: /^\/storage\/v1\/b$/,
      status: 429,
      grpcStatus: 'RESOURCE_EXHAUSTED',
      message: 'The project exceeded the rate limit for creating and deleting buckets.',
    });
    await assert.rejects(client.create(resource('q', { bucketName: 'shop-quota-1' })), (err: GcpError) => err.reason === 'Throttled');
    fake.fail({
      method: 'GET',
      path: /^\/storage\/v1\/b\/shop-busy-1$/,
      status: 429,
      grpcStatus: 'RESOURCE_EXHAUSTED',
      message: 'The rate of change requests to the bucket is too high.',
      retryAfterSeconds: 12,
    });
    await assert.rejects(client.observe(resource('busy', { bucketName: 'shop-busy-1' })), (err: GcpError) => {
      assert.equal(err.reason, 'Throttled');
      assert.equal(err.retryAfterSeconds, 12);
      assert.match(err.message, /throttled by Google Cloud; retrying in 12s$/);
      return true;
    });
    await assert.rejects(client.create(resource('far', { bucketName: 'shop-far-1', region: 'me-west1' })), (err: GcpError) => err.reason === 'InvalidArgument');
    assert.throws(() => bucketSettings(resource('bad', { bucketName: 'my-google-bucket' }), provider, 'p'), /must not hold "google"/);
  });

  test('default names carry the project: two projects never reach for the same bucket', () => {
    const a = bucketSettings(resource('data'), provider, 'project-one').name;
    const b = bucketSettings(resource('data'), provider, 'project-two').name;
    assert.notEqual(a, b);
    assert.match(a, /^[a-z][a-z0-9-]{2,62}$/);
  });
});
