/**
 * Bucket claims end to end on a real s3rver that Conductor runs (S3Server): a claim is bound
 * and its Secret alone lets the AWS SDK write and read an object; a bucket deleted by hand
 * and a killed server are repaired; Delete, Retain and Recycle act on the real buckets.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';
import { instanceRoots, killLeftovers } from '../support/leftovers.js';

const SYS = 'conductor-system';
const s3ServerPath = (name: string) => `/apis/storage.local.conductor.io/v1alpha1/namespaces/${SYS}/s3servers/${name}`;
const claimPath = (ns: string, name: string) => `/apis/storage.conductor.io/v1alpha1/namespaces/${ns}/buckets/${name}`;

/** s3 builds an SDK client from a claim's Secret and nothing else. */
function s3(secret: Record<string, string>): S3Client {
  return new S3Client({
    endpoint: secret.endpoint,
    region: secret.region,
    credentials: { accessKeyId: secret.accessKeyId, secretAccessKey: secret.secretAccessKey },
  });
}

/** adminS3 is a client with the server's own key (keys.json in its directory): what an operator uses "by hand". */
function adminS3(directory: string, secret: Record<string, string>): S3Client {
  const keys = JSON.parse(readFileSync(join(directory, 'keys.json'), 'utf8')) as { admin: { accessKeyId: string; secretAccessKey: string } };
  return new S3Client({ endpoint: secret.endpoint, region: secret.region, credentials: keys.admin });
}

describe('Bucket claims on a real s3rver', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  const clients: S3Client[] = [];

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => (await api.request('GET', path)).json();
  const boundAndReady = (ns: string, name: string) =>
    eventually(
      async () => {
        const c = await get(claimPath(ns, name));
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `${ns}/${name} Bound and Ready`,
      30_000,
    );
  const secretOf = async (ns: string, name: string) => {
    const s = await get(`/api/v1/namespaces/${ns}/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const client = (secret: Record<string, string>) => {
    const c = s3(secret);
    clients.push(c);
    return c;
  };
  const s3Server = (name: string, policy: string) => `apiVersion: storage.local.conductor.io/v1alpha1
kind: S3Server
metadata: {name: ${name}, namespace: ${SYS}, labels: {pool: ${name}}}
spec:
  providerRef: {name: local}
  rebindPolicy: ${policy}
  capabilities: {capacity: {storage: 100Gi}}
`;
  const bucketClaim = (name: string, pool: string) => `apiVersion: storage.conductor.io/v1alpha1
kind: Bucket
metadata: {name: ${name}, namespace: media}
spec:
  requirements: {capacity: {storage: 1Gi}}
  resourceSelector: {matchLabels: {pool: ${pool}}}
`;
  const readText = async (c: S3Client, bucket: string, key: string) =>
    (await c.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString();

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '1000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/s3servers.storage.local.conductor.io', '--timeout=30s']);
    await kubectlOk(server, ['create', 'namespace', 'media']);
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
---
${s3Server('objects', 'Delete')}---
${s3Server('keeper', 'Retain')}---
${s3Server('recycler', 'Recycle')}`);
  });
  after(async () => {
    for (const c of clients) c.destroy();
    api?.close();
    await server?.stop();
    if (server) {
      killLeftovers(server.dataDir, 's3', 's3rver.pid');
      removeDir(instanceRoots(server.dataDir, 's3')[1]);
      removeDir(server.dataDir);
    }
  });

  test('a claim binds, and its Secret alone lets the AWS SDK write and read an object', async () => {
    await apply(bucketClaim('photos', 'objects'));
    const claim = await boundAndReady('media', 'photos');
    assert.equal(claim.status.resourceRef.name, 'objects');
    const secret = await secretOf('media', 'photos');
    assert.deepEqual(Object.keys(secret).sort(), ['accessKeyId', 'bucket', 'endpoint', 'region', 'secretAccessKey']);
    assert.match(secret.bucket, /^media-photos-[0-9a-f]{16}$/);
    const c = client(secret);
    await c.send(new PutObjectCommand({ Bucket: secret.bucket, Key: 'cat.txt', Body: 'meow' }));
    assert.equal(await readText(c, secret.bucket, 'cat.txt'), 'meow');
    const resource = await get(s3ServerPath('objects'));
    assert.equal(resource.status.allocatable.storage, '99Gi');
    assert.equal(resource.status.atProvider.running, true);
    assert.equal(resource.status.atProvider.endpoint, secret.endpoint);
    const table = await kubectlOk(server, ['get', 'buckets', '-n', 'media']);
    assert.match(table, /^photos\s+Bound\s+objects\s+/m);
  });

  test(
    'as root, the S3 gateway does not run as root: its process, data directory and keys belong to an unprivileged user',
    { skip: process.getuid?.() !== 0 && 'Conductor is not root here' },
    async () => {
      const { pid, directory } = (await get(s3ServerPath('objects'))).status.atProvider;
      const [underData, root] = instanceRoots(server.dataDir, 's3');
      assert.equal(directory.startsWith(`${underData}/`), false, 'not under the private data dir');
      assert.equal(directory.startsWith(`${root}/`), true, `under ${root}`);
      assert.equal(statSync(root).mode & 0o777, 0o711, `${root} is searchable only`);
      assert.equal(statSync(directory).mode & 0o777, 0o711);
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
      assert.notEqual(uid, 0, `the gateway ${pid} does not run as root`);
      const data = statSync(join(directory, 'data'));
      assert.equal(data.uid, uid, "the buckets are the gateway user's");
      assert.equal(data.mode & 0o777, 0o700);
      const keys = statSync(join(directory, 'keys.json'));
      assert.equal(keys.uid, uid);
      assert.equal(keys.mode & 0o777, 0o600);
    },
  );

  test('drift: a bucket deleted by hand is recreated (a broken share the claim controller repairs); a killed s3rver is restarted on the same endpoint', async () => {
    const secret = await secretOf('media', 'photos');
    const c = client(secret);
    await c.send(new DeleteObjectCommand({ Bucket: secret.bucket, Key: 'cat.txt' }));
    // A claim's key may not delete its bucket: the operator does, with the server's own key.
    await assert.rejects(c.send(new DeleteBucketCommand({ Bucket: secret.bucket })), (err: any) => err.$metadata?.httpStatusCode === 403);
    await adminS3((await get(s3ServerPath('objects'))).status.atProvider.directory, secret).send(new DeleteBucketCommand({ Bucket: secret.bucket }));
    await eventually(
      async () => ((await c.send(new HeadBucketCommand({ Bucket: secret.bucket }))).$metadata.httpStatusCode === 200 ? true : undefined),
      'the bucket to be recreated',
      20_000,
    );

    await c.send(new PutObjectCommand({ Bucket: secret.bucket, Key: 'dog.txt', Body: 'woof' }));
    const before = (await get(s3ServerPath('objects'))).status.atProvider;
    process.kill(before.pid, 'SIGKILL');
    const after = await eventually(
      async () => {
        const a = (await get(s3ServerPath('objects'))).status?.atProvider;
        return a?.running && a.pid !== before.pid ? a : undefined;
      },
      'a new s3rver process',
      20_000,
    );
    assert.equal(after.port, before.port, 'the port is kept, so the Secret still works');
    assert.equal(await readText(c, secret.bucket, 'dog.txt'), 'woof', 'the data survives the restart');
  });

  test('Retain keeps the bucket and its objects; Recycle empties it; Delete removes it', async () => {
    await apply(bucketClaim('kept', 'keeper') + '---\n' + bucketClaim('scrubbed', 'recycler'));
    await Promise.all([boundAndReady('media', 'kept'), boundAndReady('media', 'scrubbed')]);
    const kept = await secretOf('media', 'kept');
    const scrubbed = await secretOf('media', 'scrubbed');
    const photos = await secretOf('media', 'photos');
    for (const secret of [kept, scrubbed]) await client(secret).send(new PutObjectCommand({ Bucket: secret.bucket, Key: 'a/b.txt', Body: 'data' }));
    await kubectlOk(server, ['delete', 'buckets', 'kept', 'scrubbed', 'photos', '-n', 'media', '--timeout=60s']);

    assert.equal(await readText(client(kept), kept.bucket, 'a/b.txt'), 'data', 'Retain keeps the objects');
    const listed = await client(scrubbed).send(new ListObjectsV2Command({ Bucket: scrubbed.bucket }));
    assert.equal(listed.KeyCount ?? 0, 0, 'Recycle empties the bucket');
    await client(scrubbed).send(new HeadBucketCommand({ Bucket: scrubbed.bucket }));
    // Delete removed the bucket and the claim's key with it.
    await assert.rejects(client(photos).send(new HeadBucketCommand({ Bucket: photos.bucket })), (err: any) => err.$metadata?.httpStatusCode === 403);
    const objects = await get(s3ServerPath('objects'));
    await assert.rejects(
      adminS3(objects.status.atProvider.directory, photos).send(new HeadBucketCommand({ Bucket: photos.bucket })),
      (err: any) => err.$metadata?.httpStatusCode === 404,
    );
    assert.equal(objects.status.bindings?.length ?? 0, 0);
    assert.equal(objects.status.allocatable.storage, '100Gi');
  });

  test('deleting an S3Server stops its process and removes its files', async () => {
    const resource = await get(s3ServerPath('recycler'));
    const { pid, directory } = resource.status.atProvider;
    await kubectlOk(server, ['delete', 's3server', 'recycler', '-n', SYS, '--timeout=60s']);
    await eventually(
      () => {
        try {
          process.kill(pid, 0);
          return undefined;
        } catch {
          return true;
        }
      },
      'the s3rver process to exit',
      10_000,
    );
    assert.throws(() => readdirSync(directory), /ENOENT/);
  });
});
