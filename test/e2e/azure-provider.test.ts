/**
 * The azure provider against a real Azurite (the Azure Storage emulator, npm) with an account
 * of the test's own and a random key. Providers of type azure are Ready when the blob and
 * queue services answer the account key, and Ready=False with the reason — InvalidSpec for a region
 * Azure does not have, InvalidCredentials naming the missing key, AuthenticationFailed for a wrong key, Unreachable — never quoting
 * the key. Bucket and MessageQueue claims served by classes whose templates are a
 * BlobContainer and a StorageQueue become Bound and Ready; the claim's Secret alone (a SAS
 * token for that container or queue, never the account key) lets @azure/storage-blob upload
 * and read a blob and @azure/storage-queue send and receive a message, and reaches nothing
 * else of the account; a new token window reaches the claim's Secret. Deleting the claims deletes the container and queue under Delete and
 * keeps them under Retain. An existing container is imported by conductor.io/external-name
 * with ObserveOnly and left alone when its resource goes; names Azure refuses are refused at
 * admission (422 naming the field) or said in a condition. examples/clouds/azure works as written.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BlobServiceClient, ContainerClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { QueueClient, QueueServiceClient, StorageSharedKeyCredential as QueueKey } from '@azure/storage-queue';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, repoRoot, serverForSuite } from '../support/server.js';
import { credentialsSecretYaml, providerYaml } from '../support/cloud-provider.js';
import { startAzurite, type Azurite } from '../support/azurite.js';

const NS = 'conductor-system';
const ns = ['-n', NS];

describe('the azure provider against Azurite', () => {
  let azurite: Azurite;
  let blobAdmin: BlobServiceClient;
  let queueAdmin: QueueServiceClient;
  before(async () => {
    azurite = await startAzurite();
    blobAdmin = new BlobServiceClient(azurite.blobEndpoint, new StorageSharedKeyCredential(azurite.accountName, azurite.accountKey));
    queueAdmin = new QueueServiceClient(azurite.queueEndpoint, new QueueKey(azurite.accountName, azurite.accountKey));
  });
  after(async () => azurite?.stop());
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '500' } });

  const apply = (yaml: string) => kubectlOk(suite.server, ['apply', '-f', '-'], { input: yaml });
  const jsonpath = (args: string[], path: string) => kubectlOk(suite.server, ['get', ...args, '-o', `jsonpath=${path}`]);
  const condition = (kind: string, name: string, type: string, field: 'status' | 'reason' | 'message') =>
    jsonpath([kind, name, ...ns], `{.status.conditions[?(@.type=="${type}")].${field}}`);
  const secretOf = async (namespace: string, name: string) => {
    const s = JSON.parse(await kubectlOk(suite.server, ['get', 'secret', name, '-n', namespace, '-o', 'json']));
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const boundAndReady = (kind: string, namespace: string, name: string) =>
    eventually(
      async () => {
        const c = JSON.parse(await kubectlOk(suite.server, ['get', kind, name, '-n', namespace, '-o', 'json']));
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `${kind} ${namespace}/${name} Bound and Ready`,
      60_000,
    );
  const containerExists = (name: string) => blobAdmin.getContainerClient(name).exists();
  const queueExists = async (name: string) => {
    for await (const q of queueAdmin.listQueues({ prefix: name })) if (q.name === name) return true;
    return false;
  };
  const provider = (name: string, secret: string, region = 'eastus') => providerYaml('azure', name, secret, { region });
  const wrongKey = Buffer.alloc(64, 7).toString('base64');

  test('Providers of type azure: Ready when the account key authenticates, else Ready=False with the reason and no secret', async () => {
    const s = suite.server;
    await kubectlOk(s, [
      'wait',
      '--for=condition=Established',
      'crd/blobcontainers.storage.azure.conductor.io',
      'crd/storagequeues.messaging.azure.conductor.io',
      '--timeout=60s',
    ]);
    const a = azurite;
    const endpoints = { blobEndpoint: a.blobEndpoint, queueEndpoint: a.queueEndpoint };
    await apply(
      [
        credentialsSecretYaml('azure-key', { accountName: a.accountName, accountKey: a.accountKey, ...endpoints }),
        credentialsSecretYaml('azure-cs', {
          connectionString: `DefaultEndpointsProtocol=http;AccountName=${a.accountName};AccountKey=${a.accountKey};BlobEndpoint=${a.blobEndpoint};QueueEndpoint=${a.queueEndpoint};`,
        }),
        credentialsSecretYaml('azure-wrong-key', { accountName: a.accountName, accountKey: wrongKey, ...endpoints }),
        credentialsSecretYaml('azure-no-key', { accountName: a.accountName, ...endpoints }),
        // Port 1 on the loopback: nothing listens there.
        credentialsSecretYaml('azure-nowhere', {
          accountName: a.accountName,
          accountKey: a.accountKey,
          blobEndpoint: 'http://127.0.0.1:1/x',
          queueEndpoint: 'http://127.0.0.1:1/x',
        }),
        provider('azure', 'azure-key'),
        provider('azure-cs', 'azure-cs'),
        provider('wrong-key', 'azure-wrong-key'),
        provider('no-key', 'azure-no-key'),
        provider('nowhere', 'azure-nowhere'),
        provider('bad-region', 'azure-key', 'moon'),
      ].join('---\n'),
    );
    for (const name of ['azure', 'azure-cs']) {
      await eventually(async () => (await condition('provider', name, 'Ready', 'status')) === 'True', `Provider ${name} Ready`);
      assert.match(await condition('provider', name, 'Ready', 'message'), /blob and queue services .* answer and the account key authenticates/);
    }
    const expected: Record<string, { reason: string; message: RegExp }> = {
      'wrong-key': { reason: 'AuthenticationFailed', message: /403 .*check the account name and key/ },
      'no-key': { reason: 'InvalidCredentials', message: /has accountName but no accountKey: add accountKey/ },
      nowhere: { reason: 'Unreachable', message: /no answer .*ECONNREFUSED/ },
      'bad-region': { reason: 'InvalidSpec', message: /spec.region "moon" is not an Azure region/ },
    };
    for (const [name, want] of Object.entries(expected)) {
      await eventually(async () => (await condition('provider', name, 'Ready', 'status')) === 'False', `Provider ${name} not Ready`);
      assert.equal(await condition('provider', name, 'Ready', 'reason'), want.reason, name);
      const message = await condition('provider', name, 'Ready', 'message');
      assert.match(message, want.message, name);
      assert.ok(!message.includes(a.accountKey) && !message.includes(wrongKey), `${name}'s message quotes no key: ${message}`);
    }
  });

  const template = (kind: 'BlobContainer' | 'StorageQueue', location: string) =>
    kind === 'BlobContainer'
      ? `{apiVersion: storage.azure.conductor.io/v1alpha1, kind: BlobContainer, spec: {forProvider: {location: ${location}}}}`
      : `{apiVersion: messaging.azure.conductor.io/v1alpha1, kind: StorageQueue, spec: {forProvider: {location: ${location}}}}`;
  const resourceClass = (name: string, claim: string, kind: 'BlobContainer' | 'StorageQueue', policy: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${name}, namespace: ${NS}}
supportedResources: [${claim}]
rebindPolicy: ${policy}
providerRef: {name: azure}
template: ${template(kind, 'eastus')}
`;
  const claim = (kind: 'Bucket' | 'MessageQueue', name: string, cls: string) =>
    `apiVersion: ${kind === 'Bucket' ? 'storage' : 'messaging'}.conductor.io/v1alpha1\nkind: ${kind}\nmetadata: {name: ${name}, namespace: shop}\nspec: {resourceClass: ${cls}, requirements: {capacity: {storage: 10Gi}}}\n`;

  test('Bucket and MessageQueue claims: Bound and Ready, the Secret used by the Azure SDKs, Delete and Retain honoured', async () => {
    const s = suite.server;
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    await apply(
      [
        resourceClass('blob-delete', 'Bucket.v1alpha1.storage.conductor.io', 'BlobContainer', 'Delete'),
        resourceClass('blob-retain', 'Bucket.v1alpha1.storage.conductor.io', 'BlobContainer', 'Retain'),
        resourceClass('queue-delete', 'MessageQueue.v1alpha1.messaging.conductor.io', 'StorageQueue', 'Delete'),
        resourceClass('queue-retain', 'MessageQueue.v1alpha1.messaging.conductor.io', 'StorageQueue', 'Retain'),
        claim('Bucket', 'photos', 'blob-delete'),
        claim('Bucket', 'archive', 'blob-retain'),
        claim('MessageQueue', 'jobs', 'queue-delete'),
        claim('MessageQueue', 'events', 'queue-retain'),
      ].join('---\n'),
    );
    const photos = await boundAndReady('bucket', 'shop', 'photos');
    await boundAndReady('bucket', 'shop', 'archive');
    await boundAndReady('messagequeue', 'shop', 'jobs');
    await boundAndReady('messagequeue', 'shop', 'events');

    // The Bucket's Secret: the claim kind's keys and Azure's own; a SAS token, never the account key.
    const bucket = await secretOf('shop', 'photos');
    assert.deepEqual(Object.keys(bucket).sort(), [
      'accessKeyId',
      'accountName',
      'bucket',
      'containerName',
      'endpoint',
      'region',
      'sasExpiresOn',
      'sasToken',
      'sasUrl',
      'secretAccessKey',
    ]);
    assert.match(bucket.bucket, /^shop-photos-[0-9a-f]{16}$/);
    assert.equal(bucket.containerName, bucket.bucket);
    assert.equal(bucket.endpoint, azurite.blobEndpoint);
    assert.equal(bucket.region, 'eastus');
    assert.equal(bucket.accessKeyId, azurite.accountName);
    assert.equal(bucket.secretAccessKey, bucket.sasToken);
    assert.match(bucket.sasToken, /(^|&)sr=c(&|$)/, 'a container SAS');
    for (const value of Object.values(bucket)) assert.ok(!value.includes(azurite.accountKey), 'the Secret never holds the account key');
    assert.equal(await containerExists(bucket.bucket), true);

    // @azure/storage-blob with the Secret alone: upload, then read back.
    const container = new ContainerClient(`${bucket.endpoint}/${bucket.bucket}?${bucket.secretAccessKey}`);
    await container.getBlockBlobClient('cat.txt').upload('meow', 4);
    assert.equal((await new ContainerClient(bucket.sasUrl).getBlockBlobClient('cat.txt').downloadToBuffer()).toString(), 'meow');
    // The token reaches this container only: not another claim's.
    const archive = await secretOf('shop', 'archive');
    const elsewhere = new ContainerClient(`${bucket.endpoint}/${archive.bucket}?${bucket.sasToken}`);
    await assert.rejects(elsewhere.getBlockBlobClient('x.txt').upload('x', 1), (err: any) => err.statusCode === 403);

    // The MessageQueue's Secret with @azure/storage-queue: send, then receive.
    const jobs = await secretOf('shop', 'jobs');
    assert.deepEqual(Object.keys(jobs).sort(), ['accountName', 'endpoint', 'queue', 'sasExpiresOn', 'sasToken', 'sasUrl']);
    assert.equal(jobs.endpoint, azurite.queueEndpoint);
    assert.match(jobs.queue, /^shop-jobs-[0-9a-f]{16}$/);
    for (const value of Object.values(jobs)) assert.ok(!value.includes(azurite.accountKey), 'the Secret never holds the account key');
    const queue = new QueueClient(`${jobs.endpoint}/${jobs.queue}?${jobs.sasToken}`);
    await queue.sendMessage('ship order 42');
    const received = await queue.receiveMessages();
    assert.equal(received.receivedMessageItems[0]?.messageText, 'ship order 42');
    const events = await secretOf('shop', 'events');

    // The resource states its region and its monthly price from the table (10Gi in eastus, LRS).
    const resource = photos.status.resourceRef.name as string;
    assert.equal(await jsonpath(['blobcontainer', resource, ...ns], '{.spec.capabilities.region}'), 'eastus');
    assert.equal(await jsonpath(['blobcontainer', resource, ...ns], '{.status.atProvider.monthlyPrice.amount}'), '0.20');
    assert.match(
      await jsonpath(['blobcontainer', resource, ...ns], '{.status.atProvider.monthlyPrice.table}'),
      /^2023-09-30, unverified; https:\/\/azure\.microsoft\.com\//,
    );

    // A new token window reaches the claim's Secret: a shorter validity signs a new token at once.
    await kubectlOk(s, ['patch', 'blobcontainer', resource, ...ns, '--type=merge', '-p', '{"spec":{"forProvider":{"sasValidityDays":3}}}']);
    const rotated = await eventually(async () => {
      const now = await secretOf('shop', 'photos');
      return now.sasToken !== bucket.sasToken ? now : undefined;
    }, "the claim's Secret with the new token");
    assert.ok(Date.parse(rotated.sasExpiresOn) <= Date.now() + 3 * 86_400_000, `expires within 3 days: ${rotated.sasExpiresOn}`);
    assert.equal(rotated.secretAccessKey, rotated.sasToken);
    assert.equal((await new ContainerClient(rotated.sasUrl).getBlockBlobClient('cat.txt').downloadToBuffer()).toString(), 'meow');

    // Release: Delete removes the container and queue, Retain keeps them.
    await kubectlOk(s, ['delete', 'bucket', 'photos', 'archive', '-n', 'shop', '--wait=true', '--timeout=60s']);
    await kubectlOk(s, ['delete', 'messagequeue', 'jobs', 'events', '-n', 'shop', '--wait=true', '--timeout=60s']);
    await eventually(async () => !(await containerExists(bucket.bucket)), 'the Delete container gone from Azurite', 60_000);
    await eventually(async () => !(await queueExists(jobs.queue)), 'the Delete queue gone from Azurite', 60_000);
    await eventually(async () => (await kubectl(s, ['get', 'blobcontainer', resource, ...ns])).code !== 0, 'the Delete BlobContainer object gone', 60_000);
    assert.equal(await containerExists(archive.bucket), true, 'Retain keeps the container');
    assert.equal(await queueExists(events.queue), true, 'Retain keeps the queue');
  });

  test('an existing container imported by external name with ObserveOnly, and left alone when its resource goes', async () => {
    await blobAdmin.getContainerClient('imported-logs').create();
    await apply(`apiVersion: storage.azure.conductor.io/v1alpha1
kind: BlobContainer
metadata: {name: logs, namespace: ${NS}, annotations: {conductor.io/external-name: imported-logs}}
spec: {providerRef: {name: azure}, managementPolicy: ObserveOnly, rebindPolicy: Delete, writeConnectionSecretToRef: {name: logs-conn}}
`);
    await eventually(async () => (await condition('blobcontainer', 'logs', 'Ready', 'status')) === 'True', 'the imported container Ready');
    assert.equal(await jsonpath(['blobcontainer', 'logs', ...ns], '{.status.atProvider.containerName}'), 'imported-logs');
    const conn = await secretOf(NS, 'logs-conn');
    assert.equal(conn.containerName, 'imported-logs');
    await kubectlOk(suite.server, ['delete', 'blobcontainer', 'logs', ...ns, '--wait=true', '--timeout=60s']);
    assert.equal(await containerExists('imported-logs'), true, 'ObserveOnly never deletes');
  });

  test('bad input: names Azure refuses (422 naming the field, or a condition), a wrong key on a resource (no secret in the condition)', async () => {
    const s = suite.server;
    const refused = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: storage.azure.conductor.io/v1alpha1\nkind: BlobContainer\nmetadata: {name: bad-name, namespace: ${NS}}\nspec: {providerRef: {name: azure}, forProvider: {containerName: "bad--name"}}\n`,
    });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spec\.forProvider\.containerName.*two hyphens in a row/);
    const badLocation = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: messaging.azure.conductor.io/v1alpha1\nkind: StorageQueue\nmetadata: {name: bad-location, namespace: ${NS}}\nspec: {providerRef: {name: azure}, forProvider: {location: moon}}\n`,
    });
    assert.notEqual(badLocation.code, 0);
    assert.match(badLocation.stderr, /spec\.forProvider\.location/);

    await apply(`apiVersion: messaging.azure.conductor.io/v1alpha1
kind: StorageQueue
metadata: {name: upper, namespace: ${NS}, annotations: {conductor.io/external-name: Not_A_Queue}}
spec: {providerRef: {name: azure}}
---
apiVersion: storage.azure.conductor.io/v1alpha1
kind: BlobContainer
metadata: {name: wrong-key, namespace: ${NS}}
spec: {providerRef: {name: wrong-key}}
`);
    await eventually(async () => (await condition('storagequeue', 'upper', 'Synced', 'status')) === 'False', 'StorageQueue upper not Synced');
    assert.match(
      await condition('storagequeue', 'upper', 'Synced', 'message'),
      /queue name "Not_A_Queue" may hold only lower-case letters, digits and hyphens/,
    );
    await eventually(async () => (await condition('blobcontainer', 'wrong-key', 'Synced', 'status')) === 'False', 'BlobContainer wrong-key not Synced');
    const message = await condition('blobcontainer', 'wrong-key', 'Synced', 'message');
    assert.match(message, /403/);
    assert.ok(!message.includes(wrongKey) && !message.includes(azurite.accountKey), `no key in the condition: ${message}`);
    await kubectlOk(s, ['delete', 'storagequeue', 'upper', ...ns, '--wait=true', '--timeout=60s']);
    await kubectlOk(s, ['delete', 'blobcontainer', 'wrong-key', ...ns, '--wait=true', '--timeout=60s']);
  });
  test('examples/clouds/azure as written: a bucket and a queue for namespace media, used with the SDKs, gone with the namespace', async () => {
    const s = suite.server;
    const example = (file: string) => readFileSync(join(repoRoot, 'examples', 'clouds', 'azure', file), 'utf8');
    const providerYaml = example('01-provider.yaml')
      .replaceAll('ACCOUNT_NAME', azurite.accountName)
      .replace('ACCOUNT_KEY', azurite.accountKey)
      .replace(/# blobEndpoint: \S+/, `blobEndpoint: ${azurite.blobEndpoint}`)
      .replace(/# queueEndpoint: \S+/, `queueEndpoint: ${azurite.queueEndpoint}`);
    await apply(providerYaml);
    await apply(example('02-classes.yaml'));
    await apply(example('03-app.yaml'));
    await boundAndReady('bucket', 'media', 'uploads');
    await boundAndReady('messagequeue', 'media', 'thumbnails');
    const uploads = await secretOf('media', 'uploads');
    const thumbnails = await secretOf('media', 'thumbnails');
    await new ContainerClient(uploads.sasUrl).getBlockBlobClient('a.txt').upload('hi', 2);
    await new QueueClient(thumbnails.sasUrl).sendMessage('a.txt');
    assert.equal((await new QueueClient(thumbnails.sasUrl).receiveMessages()).receivedMessageItems[0]?.messageText, 'a.txt');
    await kubectlOk(s, ['delete', 'namespace', 'media', '--wait=true', '--timeout=90s']);
    await eventually(async () => !(await containerExists(uploads.bucket)) && !(await queueExists(thumbnails.queue)), 'the container and queue deleted', 60_000);
  });
});
