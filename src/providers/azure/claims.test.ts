import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { MatchCandidate, ResourceTemplate } from '../spi.js';
import { adminPassword } from './admin-password.js';
import {
  blobContainerClaims,
  configureBlobContainer,
  configureMySQLFlexibleServer,
  configurePostgreSQLFlexibleServer,
  configureRedisCache,
  configureStorageQueue,
  flexibleVersionFor,
  matchBlobContainer,
  matchMySQLFlexibleServer,
  matchPostgreSQLFlexibleServer,
  matchRedisCache,
  matchStorageQueue,
  storageQueueClaims,
} from './claims.js';
import type { BlobContainer, PostgreSQLFlexibleServer, RedisCache, StorageQueue } from './kinds.js';

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

describe('PostgreSQLFlexibleServer, MySQLFlexibleServer and RedisCache for SQL and Redis claims', () => {
  const sqlClaim = (kind: 'PostgreSQLInstance' | 'MySQLInstance', spec: Record<string, unknown> = {}): KObject => ({
    apiVersion: 'storage.conductor.io/v1alpha1',
    kind,
    metadata: { name: 'orders', namespace: 'shop' },
    spec,
  });
  const anyClass = <T extends KObject>(kind: string): MatchCandidate<T> => ({
    type: 'class',
    resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'c' } },
    template: { apiVersion: 'database.azure.conductor.io/v1alpha1', kind },
  });
  const pgServer = (version: string): MatchCandidate<PostgreSQLFlexibleServer> => ({
    type: 'resource',
    resource: {
      apiVersion: 'database.azure.conductor.io/v1alpha1',
      kind: 'PostgreSQLFlexibleServer',
      metadata: { name: 's' },
      spec: { forProvider: { version } },
    } as unknown as PostgreSQLFlexibleServer,
  });

  test('versions: the newest offered within the range, or why none', () => {
    assert.deepEqual(flexibleVersionFor('postgres', '>= 14'), { version: '17' });
    assert.deepEqual(flexibleVersionFor('postgres', '15'), { version: '15' });
    assert.deepEqual(flexibleVersionFor('mysql', '8.0'), { version: '8.0.21' });
    assert.deepEqual(flexibleVersionFor('mysql', '5.7'), { version: '5.7' });
    assert.match(flexibleVersionFor('postgres', '9.6').problem ?? '', /offers 13, 14, 15, 16, 17, none within "9.6"/);
    assert.match(flexibleVersionFor('mysql', 'latest!').problem ?? '', /not a valid version range/);
  });

  test('matchers: version ranges against classes and existing servers', () => {
    assert.deepEqual(matchPostgreSQLFlexibleServer(sqlClaim('PostgreSQLInstance', { version: '16' }), anyClass('PostgreSQLFlexibleServer')), { fits: true });
    assert.equal(matchPostgreSQLFlexibleServer(sqlClaim('PostgreSQLInstance', { version: '9' }), anyClass('PostgreSQLFlexibleServer')).fits, false);
    assert.equal(matchPostgreSQLFlexibleServer(sqlClaim('PostgreSQLInstance', { version: '16' }), pgServer('14')).fits, false);
    assert.deepEqual(matchMySQLFlexibleServer(sqlClaim('MySQLInstance', { version: '>= 8' }), anyClass('MySQLFlexibleServer')), { fits: true });
    assert.deepEqual(matchRedisCache(claim('RedisCluster', { version: '6' }), anyClass('RedisCache')), { fits: true });
    assert.match(String((matchRedisCache(claim('RedisCluster', { version: '7' }), anyClass('RedisCache')) as { reason?: string }).reason), /offers Redis 6/);
    assert.match(
      String((matchRedisCache(claim('RedisCluster', { evictionPolicy: 'allkeys-lru' }), anyClass('RedisCache')) as { reason?: string }).reason),
      /keeps Azure's maxmemory-policy volatile-lru/,
    );
  });

  // A size the service does not offer: said by the matcher (the claim stays Pending naming it), never clamped in silence.
  const redisClass = (forProvider: Record<string, unknown>): MatchCandidate<RedisCache> => ({
    type: 'class',
    resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'c' } },
    template: { apiVersion: 'cache.azure.conductor.io/v1alpha1', kind: 'RedisCache', spec: { forProvider } as never },
  });
  const redisCache = (forProvider: Record<string, unknown>): MatchCandidate<RedisCache> => ({
    type: 'resource',
    resource: { apiVersion: 'cache.azure.conductor.io/v1alpha1', kind: 'RedisCache', metadata: { name: 'r' }, spec: { forProvider } } as unknown as RedisCache,
  });
  const memory = (m: string) => claim('RedisCluster', { requirements: { capacity: { memory: m } } });
  const storage = (kind: 'PostgreSQLInstance' | 'MySQLInstance', st: string) => sqlClaim(kind, { requirements: { capacity: { storage: st } } });
  const sizes: { reason: string; got: () => { fits: boolean; reason?: string }; want: true | RegExp }[] = [
    {
      reason: 'PostgreSQL storage within 16384 GB',
      got: () => matchPostgreSQLFlexibleServer(storage('PostgreSQLInstance', '16000G'), anyClass('PostgreSQLFlexibleServer')),
      want: true,
    },
    {
      reason: 'PostgreSQL storage above 16384 GB',
      got: () => matchPostgreSQLFlexibleServer(storage('PostgreSQLInstance', '20Ti'), anyClass('PostgreSQLFlexibleServer')),
      want: /wants 21991 GB of storage; a flexible server offers at most 16384 GB/,
    },
    {
      reason: 'MySQL storage above 16384 GB',
      got: () => matchMySQLFlexibleServer(storage('MySQLInstance', '17T'), anyClass('MySQLFlexibleServer')),
      want: /offers at most 16384 GB/,
    },
    {
      reason: 'a storage that is no quantity',
      got: () => matchMySQLFlexibleServer(storage('MySQLInstance', 'lots'), anyClass('MySQLFlexibleServer')),
      want: /requirements\.capacity\.storage is not a quantity/,
    },
    {
      reason: 'Redis memory a Standard class grows to (C4)',
      got: () => matchRedisCache(memory('10Gi'), redisClass({ sku: 'Standard', capacity: 1 })),
      want: true,
    },
    {
      reason: 'Redis memory above the largest Standard size',
      got: () => matchRedisCache(memory('60Gi'), redisClass({ sku: 'Standard' })),
      want: /wants 60 GB of memory; a Standard cache holds at most 53 GB \(C6\) — use a Premium class/,
    },
    { reason: 'Redis memory a Premium class holds', got: () => matchRedisCache(memory('100Gi'), redisClass({ sku: 'Premium', capacity: 1 })), want: true },
    {
      reason: 'Redis memory above anything Azure offers',
      got: () => matchRedisCache(memory('200Gi'), redisClass({ sku: 'Premium' })),
      want: /wants 200 GB of memory; Azure Cache for Redis offers at most 120 GB \(Premium P5\)/,
    },
    {
      reason: 'an existing cache too small',
      got: () => matchRedisCache(memory('2Gi'), redisCache({ sku: 'Basic', capacity: 1 })),
      want: /cache is Basic C1 with 1 GB of memory, claim wants 2 GB/,
    },
    { reason: 'an existing cache large enough', got: () => matchRedisCache(memory('2Gi'), redisCache({ sku: 'Standard', capacity: 2 })), want: true },
    {
      reason: 'Redis memory that is no quantity',
      got: () => matchRedisCache(memory('lots'), redisClass({})),
      want: /requirements\.capacity\.memory is not a quantity/,
    },
  ];
  for (const c of sizes) {
    test(`sizes: ${c.reason}`, () => {
      const got = c.got();
      if (c.want === true) assert.deepEqual(got, { fits: true });
      else {
        assert.equal(got.fits, false);
        assert.match(got.reason ?? '', c.want);
      }
    });
  }

  test('configure grows a Redis class’s size to the smallest of its SKU that holds the memory asked, never shrinks it', () => {
    const fp = (m: string | undefined, forProvider: Record<string, unknown>) =>
      configureRedisCache(m === undefined ? claim('RedisCluster') : memory(m), {
        apiVersion: 'cache.azure.conductor.io/v1alpha1',
        kind: 'RedisCache',
        spec: { forProvider } as never,
      }).forProvider as Record<string, unknown>;
    assert.equal(fp('10Gi', { sku: 'Standard', capacity: 1 }).capacity, 4);
    assert.equal(fp('1Gi', { sku: 'Standard', capacity: 3 }).capacity, 3);
    assert.equal(fp('7Gi', { sku: 'Premium' }).capacity, 2);
    assert.equal(fp('200Mi', {}).capacity, undefined, 'C0 (the default) holds it');
    assert.equal(fp(undefined, { sku: 'Basic', capacity: 2 }).capacity, 2);
  });

  test('configurators: the claim names the server, version, login, database and storage; the template its location', () => {
    const spec = configurePostgreSQLFlexibleServer(
      sqlClaim('PostgreSQLInstance', {
        version: '>= 15',
        masterUsername: 'orders_app',
        databaseName: 'orders',
        requirements: { capacity: { storage: '50Gi' } },
      }),
      {
        apiVersion: 'database.azure.conductor.io/v1alpha1',
        kind: 'PostgreSQLFlexibleServer',
        spec: { forProvider: { serverName: 'template-name', location: 'westeurope', skuName: 'Standard_B2s' } },
      },
    );
    const fp = spec.forProvider as Record<string, unknown>;
    assert.match(String(fp.serverName), /^shop-orders-[0-9a-f]{16}$/);
    assert.equal(fp.version, '17');
    assert.equal(fp.administratorLogin, 'orders_app');
    assert.equal(fp.databaseName, 'orders');
    assert.equal(fp.storageSizeGB, 54, '50 GiB is 53.7 GB, rounded up');
    assert.equal(fp.skuName, 'Standard_B2s');
    assert.equal((spec.capabilities as Record<string, unknown>).region, 'westeurope');
    // A login Azure reserves is not taken from the claim.
    const reserved = configureMySQLFlexibleServer(sqlClaim('MySQLInstance', { masterUsername: 'admin' }), {
      apiVersion: 'database.azure.conductor.io/v1alpha1',
      kind: 'MySQLFlexibleServer',
    });
    assert.equal((reserved.forProvider as Record<string, unknown>).administratorLogin, undefined);
    assert.equal((reserved.forProvider as Record<string, unknown>).storageSizeGB, 32);
    const cache = configureRedisCache(claim('RedisCluster'), {
      apiVersion: 'cache.azure.conductor.io/v1alpha1',
      kind: 'RedisCache',
      spec: { capabilities: { region: 'eastus' } },
    });
    assert.equal((cache.forProvider as Record<string, unknown>).location, 'eastus');
    assert.match(String((cache.forProvider as Record<string, unknown>).cacheName), /^shop-photos-[0-9a-f]{16}$/);
  });

  test('generated admin passwords: stable per server, different across servers, always of three character classes', () => {
    const a = adminPassword('key-0123456789abcdef', 'sub', 'rg', 'srv-a');
    assert.equal(a, adminPassword('key-0123456789abcdef', 'SUB', 'RG', 'srv-a'));
    assert.notEqual(a, adminPassword('key-0123456789abcdef', 'sub', 'rg', 'srv-b'));
    assert.notEqual(a, adminPassword('another-key-0123456', 'sub', 'rg', 'srv-a'));
    assert.equal(a.length, 36);
    assert.ok(/[A-Z]/.test(a) && /[a-z]/.test(a) && /[0-9]/.test(a) && /[^A-Za-z0-9]/.test(a));
  });
});
