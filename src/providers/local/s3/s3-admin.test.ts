import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { SharedExternalClient } from '../../spi.js';
import type { S3Server } from './kinds.js';
import { S3Admin, S3Error } from './s3-admin.js';
import { parseS3Keys } from './s3-keys.js';
import { s3ServerConcreteKind } from './s3-server.js';
import { resolveS3rver, S3Servers } from './s3-servers.js';

// S3Admin against the real gateway (s3rver behind Conductor's SigV4 check), with the admin key.
describe('S3Admin on the S3 gateway', () => {
  let root: string;
  let servers: S3Servers;
  let admin: S3Admin;
  let endpoint: string;
  let adminKey: { accessKeyId: string; secretAccessKey: string };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 's3admin-test-'));
    servers = new S3Servers({ root, program: await resolveS3rver() });
    const resource: S3Server = {
      apiVersion: 'storage.local.conductor.io/v1alpha1',
      kind: 'S3Server',
      metadata: { namespace: 'conductor-system', name: 'admin' },
      spec: {},
      status: {},
    } as S3Server;
    const client = (await s3ServerConcreteKind(servers).connector.connect(resource, {})) as SharedExternalClient<S3Server>;
    await client.create(resource);
    const dir = servers.dirFor('conductor-system', 'admin');
    const port = (await servers.status(dir)).port!;
    endpoint = `http://127.0.0.1:${port}`;
    admin = await servers.admin(dir, port, 'us-east-1');
    adminKey = parseS3Keys(await readFile(join(dir, 'keys.json'), 'utf8')).admin;
  });
  after(async () => {
    await servers.stopAll();
    await rm(root, { recursive: true, force: true });
  });

  test('createBucket is idempotent; bucketExists and listBuckets see the bucket', async () => {
    await admin.createBucket('pics');
    await admin.createBucket('pics');
    assert.equal(await admin.bucketExists('pics'), true);
    assert.equal(await admin.bucketExists('nope'), false);
    assert.ok((await admin.listBuckets()).includes('pics'));
  });

  test('emptyBucket removes every object across pages, keys needing encoding included; deleteBucket removes the bucket', async () => {
    await admin.createBucket('full');
    const s3 = new S3Client({ endpoint, region: 'us-east-1', credentials: adminKey, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const keys = ['a key+(x).txt', 'dir/ü.txt', ...Array.from({ length: 1005 }, (_, i) => `k${i}`)];
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((Key) => s3.send(new PutObjectCommand({ Bucket: 'full', Key, Body: 'x' }))));
    }
    assert.equal((await admin.listKeys('full')).length, keys.length);
    assert.deepEqual(await admin.listKeys('full', 3), ['a key+(x).txt', 'dir/ü.txt', 'k0']);
    assert.equal(await admin.emptyBucket('full'), keys.length);
    assert.deepEqual(await admin.listKeys('full'), []);
    await admin.deleteBucket('full');
    assert.equal(await admin.bucketExists('full'), false);
    await admin.deleteBucket('full');
    assert.deepEqual(await admin.listKeys('full'), [], 'a missing bucket has no keys');
  });

  test('a refused request is an S3Error with the HTTP status and S3 code', async () => {
    const wrong = new S3Admin({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: adminKey.accessKeyId, secretAccessKey: `${adminKey.secretAccessKey}x` },
    });
    const err = await wrong.listBuckets().then(
      () => assert.fail('listed buckets with a wrong secret'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof S3Error, String(err));
    assert.equal(err.status, 403);
    assert.equal(err.code, 'SignatureDoesNotMatch');
    assert.match(err.message, /^cannot list buckets: SignatureDoesNotMatch \(HTTP 403\)/);
  });
});
