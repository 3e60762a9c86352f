/**
 * The external clients and the Provider check against a real Azurite: idempotent create
 * (a create repeated after a crash finds the container or queue), delete of what is gone,
 * public access drift corrected, an external name importing an existing container, aborted
 * calls rejecting with an AbortError, and the tokens handed out reaching only their own
 * container or queue.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient, ContainerClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { QueueClient } from '@azure/storage-queue';
import type { KObject } from '../../machinery/object.js';
import { startAzurite, type Azurite } from '../../../test/support/azurite.js';
import { BlobContainerClient } from './blob-container.js';
import { checkAzure } from './check.js';
import type { StorageAccount } from './credentials.js';
import type { BlobContainer, StorageQueue } from './kinds.js';
import { StorageQueueClient } from './storage-queue.js';

const container = (name: string, forProvider: Record<string, unknown>, annotations?: Record<string, string>): BlobContainer =>
  ({
    apiVersion: 'storage.azure.conductor.io/v1alpha1',
    kind: 'BlobContainer',
    metadata: { name, namespace: 'conductor-system', ...(annotations ? { annotations } : {}) },
    spec: { forProvider },
  }) as unknown as BlobContainer;
const queue = (name: string, forProvider: Record<string, unknown>): StorageQueue =>
  ({
    apiVersion: 'messaging.azure.conductor.io/v1alpha1',
    kind: 'StorageQueue',
    metadata: { name, namespace: 'conductor-system' },
    spec: { forProvider },
  }) as unknown as StorageQueue;
const providerObject: KObject = { apiVersion: 'core.conductor.io/v1alpha1', kind: 'Provider', metadata: { name: 'azure' } };
const aborted = () => {
  const c = new AbortController();
  c.abort(new Error('deadline passed'));
  return c.signal;
};

describe('azure storage clients against Azurite', () => {
  let azurite: Azurite;
  let account: StorageAccount;
  let admin: BlobServiceClient;
  before(async () => {
    azurite = await startAzurite();
    account = { accountName: azurite.accountName, accountKey: azurite.accountKey, blobEndpoint: azurite.blobEndpoint, queueEndpoint: azurite.queueEndpoint };
    admin = new BlobServiceClient(azurite.blobEndpoint, new StorageSharedKeyCredential(azurite.accountName, azurite.accountKey));
  });
  after(async () => azurite?.stop());

  test('a container: observe absent, create twice (a crash between create and its record), drift corrected, delete twice', async () => {
    const client = new BlobContainerClient(account, undefined);
    const r = container('assets', { containerName: 'assets-1', publicAccess: 'None' });
    assert.deepEqual(await client.observe(r), { exists: false, upToDate: false });
    const first = await client.create(r);
    const again = await client.create(r);
    assert.equal(first.externalName, 'assets-1');
    assert.deepEqual(again, first, 'the repeated create finds the container and reports the same');
    const seen = await client.observe(r);
    assert.equal(seen.exists && seen.upToDate, true);

    await admin.getContainerClient('assets-1').setAccessPolicy('container');
    const drifted = await client.observe(r);
    assert.equal(drifted.upToDate, false);
    assert.equal(drifted.drift, 'public access is Container, spec wants None');
    await client.update(r);
    assert.equal((await client.observe(r)).upToDate, true);

    await client.delete(r);
    await client.delete(r);
    assert.equal((await client.observe(r)).exists, false);
  });

  test('the external name imports an existing container, whatever the spec names', async () => {
    await admin.getContainerClient('legacy-data').create();
    const client = new BlobContainerClient(account, {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'Provider',
      metadata: { name: 'azure' },
      spec: { type: 'azure', region: 'eastus' },
    } satisfies KObject);
    const seen = await client.observe(container('legacy', { containerName: 'something-else' }, { 'conductor.io/external-name': 'legacy-data' }));
    assert.equal(seen.exists, true);
    assert.equal(seen.atProvider?.containerName, 'legacy-data');
    assert.equal(seen.atProvider?.location, 'eastus', "the Provider's region when the spec names none");
    await assert.rejects(client.observe(container('bad', {}, { 'conductor.io/external-name': 'Legacy_Data' })), /container name "Legacy_Data" may hold only/);
  });

  test('aborted calls reject with an AbortError and make nothing', async () => {
    const blobs = new BlobContainerClient(account, undefined);
    const queues = new StorageQueueClient(account, undefined);
    const r = container('never', { containerName: 'never-made' });
    const q = queue('never', { queueName: 'never-made' });
    for (const call of [
      () => blobs.observe(r, { signal: aborted() }),
      () => blobs.create(r, { signal: aborted() }),
      () => queues.create(q, { signal: aborted() }),
    ]) {
      await assert.rejects(call(), (err: Error) => err.name === 'AbortError');
    }
    assert.equal((await blobs.observe(r)).exists, false);
    assert.equal((await queues.observe(q)).exists, false);
  });

  test('the tokens reach their own container and queue only, with the operations a claim needs', async () => {
    const blobs = new BlobContainerClient(account, undefined);
    const queues = new StorageQueueClient(account, undefined);
    const mine = (await blobs.create(container('mine', { containerName: 'mine-1' }))).connectionDetails!;
    await blobs.create(container('theirs', { containerName: 'theirs-1' }));
    const c = new ContainerClient(mine.sasUrl);
    await c.getBlockBlobClient('a.txt').upload('A', 1);
    const listed: string[] = [];
    for await (const b of c.listBlobsFlat()) listed.push(b.name);
    assert.deepEqual(listed, ['a.txt']);
    await c.getBlockBlobClient('a.txt').delete();
    await assert.rejects(
      new ContainerClient(`${mine.endpoint}/theirs-1?${mine.sasToken}`).getBlockBlobClient('b.txt').upload('B', 1),
      (e: { statusCode?: number }) => e.statusCode === 403,
    );

    const jobs = (await queues.create(queue('jobs', { queueName: 'jobs-1' }))).connectionDetails!;
    await queues.create(queue('other', { queueName: 'other-1' }));
    const qc = new QueueClient(jobs.sasUrl);
    await qc.sendMessage('hello');
    const got = await qc.receiveMessages();
    assert.equal(got.receivedMessageItems[0].messageText, 'hello');
    await qc.deleteMessage(got.receivedMessageItems[0].messageId, got.receivedMessageItems[0].popReceipt);
    await assert.rejects(new QueueClient(`${jobs.endpoint}/other-1?${jobs.sasToken}`).sendMessage('x'), (e: { statusCode?: number }) => e.statusCode === 403);
  });

  test('the Provider check: ready, or the reason', async () => {
    const creds = {
      accountName: account.accountName,
      accountKey: account.accountKey,
      blobEndpoint: account.blobEndpoint,
      queueEndpoint: account.queueEndpoint,
    };
    assert.equal((await checkAzure(providerObject, { credentials: creds })).ready, true);
    const wrong = await checkAzure(providerObject, { credentials: { ...creds, accountKey: Buffer.alloc(64, 9).toString('base64') } });
    assert.deepEqual(wrong.ready ? undefined : wrong.reason, 'AuthenticationFailed');
    const missing = await checkAzure(providerObject, { credentials: { accountName: 'abc' } });
    assert.deepEqual(missing.ready ? undefined : missing.reason, 'InvalidCredentials');
    const signal = aborted();
    // Rejected with the signal's reason (or the SDK's AbortError): what the SPI asks.
    await assert.rejects(checkAzure(providerObject, { credentials: creds, signal }), (err: Error) => err === signal.reason || err.name === 'AbortError');
  });
});
