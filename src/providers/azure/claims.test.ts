import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { MatchCandidate, ResourceTemplate } from '../spi.js';
import { blobContainerClaims, configureBlobContainer, configureStorageQueue, matchBlobContainer, matchStorageQueue, storageQueueClaims } from './claims.js';
import type { BlobContainer, StorageQueue } from './kinds.js';

const claim = (kind: string, spec: Record<string, unknown> = {}): KObject => ({
  apiVersion: kind === 'Bucket' ? 'storage.conductor.io/v1alpha1' : 'messaging.conductor.io/v1alpha1',
  kind,
  metadata: { name: 'photos', namespace: 'shop' },
  spec,
});
const container = (publicAccess: 'None' | 'Blob' | 'Container'): MatchCandidate<BlobContainer> => ({
  type: 'resource',
  resource: {
    apiVersion: 'storage.azure.conductor.io/v1alpha1',
    kind: 'BlobContainer',
    metadata: { name: 'c' },
    spec: { forProvider: { publicAccess } },
  } as unknown as BlobContainer,
});
const blobClass: MatchCandidate<BlobContainer> = {
  type: 'class',
  resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'blob' } },
  template: { apiVersion: 'storage.azure.conductor.io/v1alpha1', kind: 'BlobContainer' },
};

describe('BlobContainer for Bucket claims', () => {
  const cases: { reason: string; spec: Record<string, unknown>; candidate: MatchCandidate<BlobContainer>; want: RegExp | 'fits' }[] = [
    { reason: 'a private container fits a plain claim', spec: {}, candidate: container('None'), want: 'fits' },
    { reason: 'a public container fits a publicRead claim', spec: { publicRead: true }, candidate: container('Blob'), want: 'fits' },
    {
      reason: 'a private container does not fit publicRead',
      spec: { publicRead: true },
      candidate: container('None'),
      want: /not public .* claim asks publicRead/,
    },
    {
      reason: 'a public container does not fit a private claim',
      spec: {},
      candidate: container('Container'),
      want: /is public \(publicAccess Container\), claim does not ask publicRead/,
    },
    { reason: 'versioning does not fit, even a class', spec: { versioning: true }, candidate: blobClass, want: /offers no versioning: .* storage account/ },
    { reason: 'a class fits publicRead (it configures it)', spec: { publicRead: true }, candidate: blobClass, want: 'fits' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = matchBlobContainer(claim('Bucket', c.spec), c.candidate);
      if (c.want === 'fits') assert.deepEqual(got, { fits: true });
      else assert.ok(!got.fits && c.want.test(got.reason), JSON.stringify(got));
    });
  }

  test('configure: named after the claim, public access from publicRead, location as the region, requirements over capabilities; arguments untouched', () => {
    const template: ResourceTemplate = {
      apiVersion: 'storage.azure.conductor.io/v1alpha1',
      kind: 'BlobContainer',
      spec: {
        rebindPolicy: 'Delete',
        capabilities: { region: 'europe', cost: 'standard' },
        forProvider: { containerName: 'shared', publicAccess: 'Container', location: 'westeurope' },
      },
    };
    const before = JSON.stringify(template);
    const c = claim('Bucket', { publicRead: true, requirements: { capacity: { storage: '10Gi' }, region: 'europe', performance: 'fast' } });
    const spec = configureBlobContainer(c, template);
    assert.deepEqual(spec, {
      rebindPolicy: 'Delete',
      capabilities: { region: 'westeurope', cost: 'standard', capacity: { storage: '10Gi' }, performance: 'fast' },
      forProvider: { containerName: (spec.forProvider as { containerName: string }).containerName, publicAccess: 'Container', location: 'westeurope' },
    });
    assert.match((spec.forProvider as { containerName: string }).containerName, /^shop-photos-[0-9a-f]{16}$/);
    assert.equal(JSON.stringify(template), before);
    // Not asking publicRead makes it private whatever the template says.
    assert.equal((configureBlobContainer(claim('Bucket'), template).forProvider as { publicAccess: string }).publicAccess, 'None');
    assert.equal(
      (configureBlobContainer(claim('Bucket', { publicRead: true }), { ...template, spec: {} }).forProvider as { publicAccess: string }).publicAccess,
      'Blob',
    );
  });

  test("a template without a location takes its capabilities' region when that is an Azure location", () => {
    const spec = configureBlobContainer(claim('Bucket'), { apiVersion: 'x/v1', kind: 'BlobContainer', spec: { capabilities: { region: 'eastus2' } } });
    assert.equal((spec.forProvider as { location: string }).location, 'eastus2');
  });

  test('formatConnection: exactly the published keys, and a missing one is named', () => {
    const impl = blobContainerClaims[0];
    const details = Object.fromEntries(impl.connectionSecretKeys.map((k) => [k, `v-${k}`]));
    assert.deepEqual(impl.formatConnection({ ...details, extra: 'x' }), details);
    const { sasToken: _, ...missing } = details;
    assert.throws(() => impl.formatConnection(missing), /BlobContainer published no sasToken/);
  });
});

describe('StorageQueue for MessageQueue claims', () => {
  const candidate: MatchCandidate<StorageQueue> = {
    type: 'class',
    resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'q' } },
    template: { apiVersion: 'x/v1', kind: 'StorageQueue' },
  };
  test('fifo does not fit; the rest does', () => {
    const no = matchStorageQueue(claim('MessageQueue', { fifo: true }), candidate);
    assert.ok(!no.fits && /do not deliver first-in-first-out/.test(no.reason));
    assert.deepEqual(matchStorageQueue(claim('MessageQueue', { fifo: false, retentionSeconds: 3600 }), candidate), { fits: true });
  });
  test('configure names the queue after the claim', () => {
    const spec = configureStorageQueue(claim('MessageQueue'), {
      apiVersion: 'x/v1',
      kind: 'StorageQueue',
      spec: { forProvider: { queueName: 'shared', location: 'eastus' } },
    });
    assert.match((spec.forProvider as { queueName: string }).queueName, /^shop-photos-[0-9a-f]{16}$/);
    assert.deepEqual(spec.capabilities, { region: 'eastus' });
  });
  test('formatConnection keeps exactly the keys', () => {
    const impl = storageQueueClaims[0];
    assert.deepEqual(impl.connectionSecretKeys, ['endpoint', 'queue', 'accountName', 'sasToken', 'sasUrl', 'sasExpiresOn']);
  });
});
