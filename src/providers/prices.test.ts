import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../machinery/object.js';
import { advertisedPrice, OWN_MACHINE_PRICE, priceStatus, withOwnMachinePrice } from './prices.js';
import { elastiCacheReplicationGroupClaims, s3BucketClaims, rdsInstanceClaims, sqsQueueClaims } from './aws/claims.js';
import { cloudSqlInstanceClaims, gcsBucketClaims, memorystoreInstanceClaims, spannerDatabaseClaims, pubSubTopicClaims } from './gcp/claims.js';
import { blobContainerClaims, mysqlFlexibleServerClaims, postgresqlFlexibleServerClaims, redisCacheClaims } from './azure/claims.js';
import type { ClaimImplementation, ConcreteKind, MatchCandidate, PriceContext } from './spi.js';

const claim = (kind: string, storage: string): KObject => ({
  apiVersion: `${kind === 'MessageQueue' ? 'messaging' : 'storage'}.conductor.io/v1alpha1`,
  kind,
  metadata: { name: 'c', namespace: 'shop', uid: 'u' },
  spec: { requirements: { capacity: { storage } } },
});

const classOf = (apiVersion: string, kind: string, spec: Record<string, unknown>): MatchCandidate => ({
  type: 'class',
  resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'k', namespace: 'conductor-system' } },
  template: { apiVersion, kind, spec: spec as never },
});

const provider = (region: string): KObject => ({ apiVersion: 'core.conductor.io/v1alpha1', kind: 'Provider', metadata: { name: 'p' }, spec: { region } });

function price(impl: ClaimImplementation | undefined, c: KObject, candidate: MatchCandidate, context: PriceContext = {}) {
  const got = impl?.price?.(c, candidate, context);
  assert.ok(got, 'the kind prices claims');
  return got;
}

describe('the cloud kinds price a class for the size a claim asks, from their tables', () => {
  const cases: { reason: string; got: () => ReturnType<typeof price>; amount?: string; reason_?: RegExp }[] = [
    {
      reason: 'aws S3Bucket: 10Gi of S3 Standard in the template region',
      got: () =>
        price(s3BucketClaims[0], claim('Bucket', '10Gi'), classOf('storage.aws.conductor.io/v1alpha1', 'S3Bucket', { forProvider: { region: 'us-east-1' } })),
      amount: '0.25',
    },
    {
      reason: "aws S3Bucket: the Provider's region when the template names none",
      got: () =>
        price(s3BucketClaims[0], claim('Bucket', '100G'), classOf('storage.aws.conductor.io/v1alpha1', 'S3Bucket', {}), { provider: provider('eu-central-1') }),
      amount: '2.45',
    },
    {
      reason: 'aws S3Bucket: no region anywhere is no price, said',
      got: () => price(s3BucketClaims[0], claim('Bucket', '10Gi'), classOf('storage.aws.conductor.io/v1alpha1', 'S3Bucket', {})),
      reason_: /^no region/,
    },
    {
      reason: 'aws RDSInstance: the instance class and the storage the claim asks (730 h × 0.016 + 25 GB × 0.115)',
      got: () =>
        price(
          rdsInstanceClaims[0],
          claim('PostgreSQLInstance', '25Gi'),
          classOf('database.aws.conductor.io/v1alpha1', 'RDSInstance', { forProvider: { region: 'us-east-1', instanceClass: 'db.t4g.micro' } }),
        ),
      amount: '14.56',
    },
    {
      reason: 'aws SQSQueue: priced per request, no price',
      got: () => price(sqsQueueClaims[0], claim('MessageQueue', '1Gi'), classOf('x/v1', 'SQSQueue', {})),
      reason_: /per request/,
    },
    {
      reason: 'gcp SpannerDatabase: processing units and storage in the placed region (the context)',
      got: () =>
        price(
          spannerDatabaseClaims[0],
          claim('PostgreSQLInstance', '10G'),
          classOf('database.gcp.conductor.io/v1alpha1', 'SpannerDatabase', { forProvider: { processingUnits: 100 } }),
          {
            provider: provider('us-central1'),
          },
        ),
      amount: '68.70',
    },
    {
      reason: 'gcp PubSubTopic: stored messages, one global price',
      got: () => price(pubSubTopicClaims[0], claim('MessageQueue', '10Gi'), classOf('x/v1', 'PubSubTopic', {})),
      amount: '2.70',
    },
    {
      reason: 'azure BlobContainer: Hot LRS in the template location',
      got: () =>
        price(
          blobContainerClaims[0],
          claim('Bucket', '10Gi'),
          classOf('storage.azure.conductor.io/v1alpha1', 'BlobContainer', { forProvider: { location: 'eastus' } }),
        ),
      amount: '0.20',
    },
    {
      reason: 'aws ElastiCacheReplicationGroup: the node type grown to the memory the claim asks (1Gi → cache.t4g.small), primary and replica',
      got: () =>
        price(
          elastiCacheReplicationGroupClaims[0],
          { ...claim('RedisCluster', '1Gi'), apiVersion: 'cache.conductor.io/v1alpha1', spec: { requirements: { capacity: { memory: '1Gi' } } } },
          classOf('cache.aws.conductor.io/v1alpha1', 'ElastiCacheReplicationGroup', { forProvider: { region: 'us-east-1', replicas: 1 } }),
        ),
      amount: '46.72',
    },
    {
      reason: "azure PostgreSQLFlexibleServer: a month of Standard_B1ms plus the claim's 100Gi rounded up to the 128 GB step, in the Provider's region",
      got: () =>
        price(
          postgresqlFlexibleServerClaims[0],
          claim('PostgreSQLInstance', '100Gi'),
          classOf('database.azure.conductor.io/v1alpha1', 'PostgreSQLFlexibleServer', { forProvider: {} }),
          { provider: provider('eastus') },
        ),
      amount: '27.13',
    },
    {
      reason: "azure MySQLFlexibleServer: a month of Standard_B1ms plus the claim's 50Gi (54 GB)",
      got: () =>
        price(
          mysqlFlexibleServerClaims[0],
          claim('MySQLInstance', '50Gi'),
          classOf('database.azure.conductor.io/v1alpha1', 'MySQLFlexibleServer', { forProvider: { location: 'eastus' } }),
        ),
      amount: '21.33',
    },
    {
      reason: 'azure RedisCache: a month of the SKU and size (Standard C1)',
      got: () =>
        price(
          redisCacheClaims[0],
          { ...claim('RedisCluster', '1Gi'), apiVersion: 'cache.conductor.io/v1alpha1', spec: {} },
          classOf('cache.azure.conductor.io/v1alpha1', 'RedisCache', { forProvider: { location: 'eastus', sku: 'Standard', capacity: 1 } }),
        ),
      amount: '100.74',
    },
    {
      reason: "gcp CloudSQLInstance: the tier's vCPU and memory hours plus the claim's 20Gi (22 GB) of SSD, in the Provider's region",
      got: () =>
        price(
          cloudSqlInstanceClaims[0],
          claim('PostgreSQLInstance', '20Gi'),
          classOf('database.gcp.conductor.io/v1alpha1', 'CloudSQLInstance', { forProvider: { tier: 'db-custom-1-3840' } }),
          { provider: provider('us-central1') },
        ),
      amount: '53.06',
    },
    {
      reason: 'gcp MemorystoreInstance: the memory the claim asks (5Gi → 5 GB at the M2 band rate)',
      got: () =>
        price(
          memorystoreInstanceClaims[0],
          { ...claim('RedisCluster', '1Gi'), apiVersion: 'cache.conductor.io/v1alpha1', spec: { requirements: { capacity: { memory: '5Gi' } } } },
          classOf('cache.gcp.conductor.io/v1alpha1', 'MemorystoreInstance', { forProvider: { region: 'us-central1' } }),
        ),
      amount: '98.55',
    },
    {
      reason: 'gcp GCSBucket: 100 GB of Standard storage in the template region',
      got: () =>
        price(
          gcsBucketClaims[0],
          claim('Bucket', '100G'),
          classOf('storage.gcp.conductor.io/v1alpha1', 'GCSBucket', { forProvider: { region: 'us-central1' } }),
        ),
      amount: '2.00',
    },
    {
      reason: "gcp GCSBucket: no region is no price, in the client's own words",
      got: () => price(gcsBucketClaims[0], claim('Bucket', '100G'), classOf('storage.gcp.conductor.io/v1alpha1', 'GCSBucket', {})),
      reason_: /has no region: set spec.forProvider.region/,
    },
    {
      reason: 'azure RedisCache: no location anywhere is no price, said',
      got: () => price(redisCacheClaims[0], claim('RedisCluster', '1Gi'), classOf('cache.azure.conductor.io/v1alpha1', 'RedisCache', {})),
      reason_: /^no location/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = c.got();
      if (c.amount !== undefined) assert.equal(got.amount, c.amount, JSON.stringify(got));
      else assert.match(got.amount === undefined ? got.reason : 'a price', c.reason_!);
    });
  }

  test('an existing resource: what it advertises, else worked out from its spec', () => {
    const advertised: KObject = {
      apiVersion: 'storage.aws.conductor.io/v1alpha1',
      kind: 'S3Bucket',
      metadata: { name: 'b', namespace: 'conductor-system' },
      spec: {},
      status: { atProvider: { monthlyPrice: { amount: '9.99', currency: 'USD', basis: 'b', table: 't' } } },
    };
    assert.equal(price(s3BucketClaims[0], claim('Bucket', '1Gi'), { type: 'resource', resource: advertised }).amount, '9.99');
    const bare: KObject = { ...advertised, spec: { forProvider: { region: 'us-east-1' }, capabilities: { capacity: { storage: '100G' } } }, status: {} };
    assert.equal(price(s3BucketClaims[0], claim('Bucket', '1Gi'), { type: 'resource', resource: bare }).amount, '2.30');
  });
});

describe('shared price helpers', () => {
  test('priceStatus and advertisedPrice read back each other', () => {
    const p = { amount: '1.50', currency: 'USD', basis: 'x', table: 'y' };
    const resource = (at: object): KObject => ({ apiVersion: 'v1', kind: 'K', metadata: {}, status: { atProvider: at } });
    assert.deepEqual(advertisedPrice(resource(priceStatus(p))), p);
    assert.deepEqual(advertisedPrice(resource(priceStatus({ reason: 'per request' }))), { reason: 'per request' });
    assert.equal(advertisedPrice(resource({})), undefined);
  });

  test("withOwnMachinePrice prices what runs here at 0 USD, keeping a kind's own price", () => {
    const own = () => ({ amount: '3.00', currency: 'USD', basis: 'b', table: 't' });
    const kind = (price?: ClaimImplementation['price']) =>
      ({ kind: 'K', implements: [{ claimKind: { group: 'g', kind: 'C' }, ...(price ? { price } : {}) }] }) as unknown as ConcreteKind;
    const [plain, priced] = withOwnMachinePrice([kind(), kind(own)]);
    const c = claim('Bucket', '1Gi');
    const cand = classOf('x/v1', 'K', {});
    assert.deepEqual(plain.implements[0].price?.(c, cand, {}), OWN_MACHINE_PRICE);
    assert.equal(priced.implements[0].price?.(c, cand, {}).amount, '3.00');
  });
});
