/**
 * Two Bucket claims on one S3Server (issue 10 item 12), with the real AWS SDK: each claim's
 * keys reach its own bucket and nothing else; anonymous, unsigned, badly signed and
 * s3rver's built-in key's requests are refused with 403.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { KObject } from '../../../machinery/object.js';
import type { SharedExternalClient } from '../../spi.js';
import type { S3Server } from './kinds.js';
import { s3ServerConcreteKind } from './s3-server.js';
import { resolveS3rver, S3Servers } from './s3-servers.js';
import { signS3Request } from '../../../../test/support/sigv4-sign.js';
import { awaitDaemonReady, spawnDaemon } from '../process/daemons.js';
import { waitForExit } from '../process/processes.js';
import { fixture } from '../../testing.js';

const resource: S3Server = fixture<S3Server>({
  apiVersion: 'storage.local.conductor.io/v1alpha1',
  kind: 'S3Server',
  metadata: { namespace: 'conductor-system', name: 'shared' },
  spec: {},
  status: { bindings: ['a', 'b'].map((n) => ({ claimRef: { namespace: `team-${n}`, name: 'files' } })) },
});
const claim = (team: string): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'Bucket',
  metadata: { namespace: `team-${team}`, name: 'files', uid: `uid-${team}` },
});

type Details = Record<string, string>;
const sdk = (d: Details, keys: { accessKeyId: string; secretAccessKey: string } = { accessKeyId: d.accessKeyId, secretAccessKey: d.secretAccessKey }) =>
  new S3Client({ endpoint: d.endpoint, region: d.region, forcePathStyle: true, credentials: keys, maxAttempts: 1 });

/** denied runs an SDK call that must fail with HTTP 403 and returns the S3 error code. */
async function denied(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    assert.equal(e.$metadata?.httpStatusCode, 403, `${e.name}: want 403`);
    return String(e.name);
  }
  assert.fail('the request was allowed');
}

describe('Bucket claims on a shared S3Server are kept apart', () => {
  let root: string;
  let servers: S3Servers;
  let client: SharedExternalClient<S3Server>;
  let a: Details;
  let b: Details;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 's3-isolation-'));
    servers = new S3Servers({ root, program: await resolveS3rver() });
    client = (await s3ServerConcreteKind(servers).connector.connect(resource, {})) as SharedExternalClient<S3Server>;
    await client.create(resource);
    a = await client.bindClaim(resource, claim('a'));
    b = await client.bindClaim(resource, claim('b'));
    await sdk(b).send(new PutObjectCommand({ Bucket: b.bucket, Key: 'secret.txt', Body: 'b-data' }));
  });
  after(async () => {
    await servers.stopAll();
    await rm(root, { recursive: true, force: true });
  });

  test("each claim has keys of its own, not s3rver's shared S3RVER key", () => {
    assert.notEqual(a.accessKeyId, b.accessKeyId);
    assert.notEqual(a.secretAccessKey, b.secretAccessKey);
    assert.notEqual(a.accessKeyId, 'S3RVER');
  });

  test("claim A's keys work on its own bucket", async () => {
    const s3 = sdk(a);
    await s3.send(new PutObjectCommand({ Bucket: a.bucket, Key: 'dir/a b+c.txt', Body: 'a-data' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: a.bucket, Key: 'dir/a b+c.txt' }));
    assert.equal(await got.Body!.transformToString(), 'a-data');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: a.bucket, Prefix: 'dir/' }));
    assert.deepEqual(
      listed.Contents?.map((c) => c.Key),
      ['dir/a b+c.txt'],
    );
    await s3.send(new PutObjectCommand({ Bucket: a.bucket, Key: 'plain.txt', Body: 'p' }));
    await s3.send(new CopyObjectCommand({ Bucket: a.bucket, Key: 'copy.txt', CopySource: `${a.bucket}/plain.txt` }));
    await s3.send(new DeleteObjectCommand({ Bucket: a.bucket, Key: 'copy.txt' }));
  });

  test("claim A's keys cannot list, read, write or delete in claim B's bucket", async () => {
    const s3 = sdk(a);
    assert.equal(await denied(s3.send(new ListObjectsV2Command({ Bucket: b.bucket }))), 'AccessDenied');
    assert.equal(await denied(s3.send(new GetObjectCommand({ Bucket: b.bucket, Key: 'secret.txt' }))), 'AccessDenied');
    assert.equal(await denied(s3.send(new PutObjectCommand({ Bucket: b.bucket, Key: 'planted.txt', Body: 'x' }))), 'AccessDenied');
    assert.equal(await denied(s3.send(new DeleteObjectCommand({ Bucket: b.bucket, Key: 'secret.txt' }))), 'AccessDenied');
    assert.equal(await denied(s3.send(new CopyObjectCommand({ Bucket: a.bucket, Key: 'stolen.txt', CopySource: `${b.bucket}/secret.txt` }))), 'AccessDenied');
    assert.equal(await denied(s3.send(new DeleteBucketCommand({ Bucket: b.bucket }))), 'AccessDenied');
    const still = await sdk(b).send(new GetObjectCommand({ Bucket: b.bucket, Key: 'secret.txt' }));
    assert.equal(await still.Body!.transformToString(), 'b-data');
  });

  test("claim A's keys cannot list every bucket, create buckets or delete its own", async () => {
    const s3 = sdk(a);
    await denied(s3.send(new ListBucketsCommand({})));
    await denied(s3.send(new CreateBucketCommand({ Bucket: 'squatted' })));
    await denied(s3.send(new DeleteBucketCommand({ Bucket: a.bucket })));
  });

  test('anonymous requests are refused with 403', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', `/${b.bucket}`],
      ['GET', `/${b.bucket}/secret.txt`],
      ['PUT', `/${b.bucket}/anon.txt`],
      ['PUT', '/anon-bucket'],
      ['DELETE', `/${b.bucket}/secret.txt`],
    ] as const) {
      const res = await fetch(`${a.endpoint}${path}`, { method, ...(method === 'PUT' ? { body: 'x' } : {}) });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.match(await res.text(), /<Code>AccessDenied<\/Code>/);
    }
  });

  test("a wrong secret, s3rver's S3RVER key and a presigned-looking URL are refused", async () => {
    assert.equal(
      await denied(sdk(a, { accessKeyId: a.accessKeyId, secretAccessKey: `${a.secretAccessKey}x` }).send(new ListObjectsV2Command({ Bucket: a.bucket }))),
      'SignatureDoesNotMatch',
    );
    assert.equal(
      await denied(sdk(a, { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }).send(new ListObjectsV2Command({ Bucket: b.bucket }))),
      'InvalidAccessKeyId',
    );
    const res = await fetch(
      `${a.endpoint}/${b.bucket}/secret.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=S3RVER%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=00`,
    );
    assert.equal(res.status, 403);
  });

  test("a correctly signed request cannot walk out of claim A's bucket with encoded . or .. segments", async () => {
    const url = new URL(a.endpoint);
    for (const raw of [
      `/${a.bucket}/x%2F..%2F..%2F${b.bucket}/secret.txt`,
      `/${a.bucket}/%2E%2E/${b.bucket}/secret.txt`,
      `/${a.bucket}%2F..%2F${b.bucket}/secret.txt`,
    ]) {
      const headers = await signS3Request(
        { method: 'GET', path: decodeURIComponent(raw), headers: { host: url.host } },
        { credentials: { accessKeyId: a.accessKeyId, secretAccessKey: a.secretAccessKey }, region: a.region, now: new Date() },
      );
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, path: raw, method: 'GET', headers }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(status, 403, `${raw}: ${body}`);
      assert.doesNotMatch(body, /b-data/);
    }
  });

  test("after a Delete release, the claim's keys no longer work", async () => {
    await client.unbindClaim(resource, { namespace: 'team-b', name: 'files' }, 'Delete');
    assert.equal(await denied(sdk(b).send(new ListObjectsV2Command({ Bucket: b.bucket }))), 'InvalidAccessKeyId');
  });
});

test('an unauthenticated s3rver an earlier Conductor left running on a server directory is stopped and replaced by the gateway', async () => {
  const root = await mkdtemp(join(tmpdir(), 's3-legacy-'));
  const program = await resolveS3rver();
  const first = new S3Servers({ root, program });
  const dir = first.dirFor('conductor-system', 'legacy');
  try {
    const { pid, port } = await first.ensureRunning(dir, { namespace: 'conductor-system', name: 'legacy' });
    process.kill(pid, 'SIGKILL');
    assert.ok(await waitForExit(pid, 5000));
    // What Conductor ran before issue 10: s3rver itself, answering anonymous requests.
    const legacy = await spawnDaemon({
      program: process.execPath,
      args: [program.s3rverScript, '--directory', join(dir, 'data'), '--address', '127.0.0.1', '--port', String(port), '--silent', '--no-vhost-buckets'],
      cwd: dir,
      logFile: join(dir, 's3rver.log'),
      pidFile: join(dir, 's3rver.pid'),
    });
    assert.ok(!('error' in legacy));
    const anonymous = () =>
      fetch(`http://127.0.0.1:${port}/`).then(
        (r) => r.status,
        () => 0,
      );
    assert.equal(
      await awaitDaemonReady(legacy.pid, legacy.exited, async () => (await anonymous()) === 200, 30_000),
      'ready',
      'the legacy s3rver answers anonymously',
    );
    const next = new S3Servers({ root, program });
    const started = await next.ensureRunning(dir, { namespace: 'conductor-system', name: 'legacy' });
    assert.equal(started.started, true);
    assert.ok(await waitForExit(legacy.pid, 10_000), 'the legacy s3rver is stopped');
    assert.equal(await fetch(`http://127.0.0.1:${started.port}/`).then((r) => r.status), 403);
    await next.stopAll();
  } finally {
    await first.stopAll();
    await rm(root, { recursive: true, force: true });
  }
});
