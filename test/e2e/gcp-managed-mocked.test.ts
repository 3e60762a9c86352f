/**
 * The gcp provider's CloudSQLInstance, MemorystoreInstance and GCSBucket through kubectl,
 * against HTTP-level fakes of the Cloud SQL Admin, Memorystore for Redis and Cloud Storage
 * REST APIs (test/support/fake-gcp-*.ts; mocked: no emulator of these services exists here).
 * The Provider's check still asks Pub/Sub and Spanner, so their emulators run too. PostgreSQL,
 * MySQL, RedisCluster and Bucket claims become Bound and Ready with their Secrets in the claim
 * kinds' format; the RedisCluster's Secret reaches a real redis-server (which the fake reports
 * as the instance's endpoint) with its AUTH string; the Bucket's Secret lets
 * @google-cloud/storage put and read an object. Deleting the claims deletes under Delete and
 * keeps under Retain. Bad input: a region Google does not have is refused at admission; a tier
 * Cloud SQL does not offer and a quota error are said in conditions, with no password in them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Storage } from '@google-cloud/storage';
import { createClient } from 'redis';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, repoRoot, serverForSuite } from '../support/server.js';
import { credentialsSecretYaml, providerYaml } from '../support/cloud-provider.js';
import { freePort, startPubSubEmulator, startSpannerEmulator, type Emulator } from '../support/gcp-emulators.js';
import { startFakeCloudSql, type FakeCloudSql } from '../support/fake-gcp-sql.js';
import { startFakeMemorystore, type FakeMemorystore } from '../support/fake-gcp-redis.js';
import { startFakeCloudStorage, type FakeCloudStorage } from '../support/fake-gcp-storage.js';

const NS = 'conductor-system';
const ns = ['-n', NS];
const PROJECT = 'conductor-test';
const PASSWORD_KEY = 'e2e-master-password-key-000000001';

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('gcp CloudSQLInstance, MemorystoreInstance and GCSBucket against fakes of their REST APIs (mocked)', () => {
  let pubsub: Emulator;
  let spanner: Emulator;
  let sql: FakeCloudSql;
  let redis: FakeMemorystore;
  let storage: FakeCloudStorage;
  let redisServer: ChildProcess | undefined;
  before(async () => {
    [pubsub, spanner, sql, redis, storage] = await Promise.all([
      startPubSubEmulator(),
      startSpannerEmulator(),
      startFakeCloudSql(),
      startFakeMemorystore(),
      startFakeCloudStorage(),
    ]);
    sql.creatingLooks = 3;
    redis.creatingLooks = 3;
    redis.redisPort = await freePort();
    redisServer = spawn(
      'redis-server',
      ['--port', String(redis.redisPort), '--bind', '127.0.0.1', '--requirepass', redis.nextAuthString, '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    await eventually(() => accepts(redis.redisPort), 'redis-server to listen', 30_000, 100);
  });
  after(async () => {
    redisServer?.kill('SIGTERM');
    await Promise.all([pubsub?.stop(), spanner?.stop(), sql?.stop(), redis?.stop(), storage?.stop()]);
  });
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '500' } });

  const apply = (yaml: string) => kubectlOk(suite.server, ['apply', '-f', '-'], { input: yaml });
  const jsonOf = async (args: string[]) => JSON.parse(await kubectlOk(suite.server, ['get', ...args, '-o', 'json']));
  const secretOf = async (namespace: string, name: string) => {
    const s = await jsonOf(['secret', name, '-n', namespace]);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const boundAndReady = (kind: string, name: string) =>
    eventually(
      async () => {
        const c = await jsonOf([kind, name, '-n', 'shop']);
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `${kind} shop/${name} Bound and Ready`,
      90_000,
    );
  const resourceClass = (name: string, claim: string, template: string, policy: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${name}, namespace: ${NS}}
supportedResources: [${claim}]
rebindPolicy: ${policy}
providerRef: {name: gcp}
template: ${template}
`;
  const claim = (group: string, kind: string, name: string, cls: string, extra = '') =>
    `apiVersion: ${group}.conductor.io/v1alpha1\nkind: ${kind}\nmetadata: {name: ${name}, namespace: shop}\nspec: {resourceClass: ${cls}, requirements: {capacity: {storage: 20Gi}}${extra}}\n`;

  test('mocked: SQL, Redis and Bucket claims Bound and Ready, Secrets in the claim kinds’ format and usable; Delete and Retain honoured', async () => {
    const s = suite.server;
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    await apply(
      [
        credentialsSecretYaml('gcp-fakes', {
          pubsubEndpoint: pubsub.endpoint,
          spannerEndpoint: spanner.endpoint,
          sqlEndpoint: sql.endpoint,
          redisEndpoint: redis.endpoint,
          storageEndpoint: storage.endpoint,
          masterPasswordKey: PASSWORD_KEY,
          hmacAccessId: 'GOOG1EXAMPLEACCESS',
          hmacSecret: 'e2e-hmac-secret-value',
        }),
        providerYaml('gcp', 'gcp', 'gcp-fakes', { project: PROJECT, region: 'us-central1' }),
        resourceClass(
          'cloudsql-delete',
          'PostgreSQLInstance.v1alpha1.storage.conductor.io',
          '{apiVersion: database.gcp.conductor.io/v1alpha1, kind: CloudSQLInstance, spec: {forProvider: {engine: POSTGRES, tier: db-custom-1-3840}}}',
          'Delete',
        ),
        resourceClass(
          'cloudsql-mysql',
          'MySQLInstance.v1alpha1.storage.conductor.io',
          '{apiVersion: database.gcp.conductor.io/v1alpha1, kind: CloudSQLInstance, spec: {forProvider: {engine: MYSQL, tier: db-g1-small}}}',
          'Retain',
        ),
        resourceClass(
          'memorystore',
          'RedisCluster.v1alpha1.cache.conductor.io',
          '{apiVersion: cache.gcp.conductor.io/v1alpha1, kind: MemorystoreInstance, spec: {forProvider: {tier: BASIC, memorySizeGb: 1}}}',
          'Delete',
        ),
        resourceClass(
          'gcs',
          'Bucket.v1alpha1.storage.conductor.io',
          '{apiVersion: storage.gcp.conductor.io/v1alpha1, kind: GCSBucket, spec: {forProvider: {region: us-east1, forceDestroy: true}}}',
          'Delete',
        ),
        claim('storage', 'PostgreSQLInstance', 'orders', 'cloudsql-delete', ', version: "16", masterUsername: shop, databaseName: orders'),
        claim('storage', 'MySQLInstance', 'legacy', 'cloudsql-mysql'),
        claim('cache', 'RedisCluster', 'sessions', 'memorystore', ', evictionPolicy: allkeys-lru'),
        claim('storage', 'Bucket', 'assets', 'gcs', ', versioning: true'),
      ].join('---\n'),
    );
    await boundAndReady('postgresqlinstance', 'orders');
    await boundAndReady('mysqlinstance', 'legacy');
    await boundAndReady('rediscluster', 'sessions');
    await boundAndReady('bucket', 'assets');

    // PostgreSQL: the SQL keys and Cloud SQL's own; the password is the one the fake's user was made with.
    const pg = await secretOf('shop', 'orders');
    assert.deepEqual(Object.keys(pg).sort(), [
      'connectionName',
      'database',
      'engine',
      'host',
      'instanceId',
      'password',
      'port',
      'projectId',
      'uri',
      'username',
    ]);
    assert.match(pg.instanceId, /^shop-orders-[0-9a-f]{16}$/);
    const made = sql.instances.get(pg.instanceId);
    assert.equal(pg.username, 'shop');
    assert.equal(pg.database, 'orders');
    assert.equal(pg.password, made?.users.get('shop')?.password, 'the Secret holds the password the user was created with');
    assert.match(pg.password, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(pg.uri, `postgresql://shop:${pg.password}@127.0.0.1:5432/orders`);
    assert.equal(pg.connectionName, `${PROJECT}:us-central1:${pg.instanceId}`);
    assert.equal(Number(made?.body.settings.dataDiskSizeGb), 22, 'storage from the claim: 20Gi is 21.5 GB, rounded up');
    const my = await secretOf('shop', 'legacy');
    assert.equal(my.port, '3306');
    assert.equal(my.engine, 'MYSQL');
    assert.equal(sql.instances.get(my.instanceId)?.users.get('app')?.host, '%');

    // Redis: host, port and the AUTH string reach a real redis-server.
    const cache = await secretOf('shop', 'sessions');
    assert.deepEqual(Object.keys(cache).sort(), ['host', 'instanceId', 'password', 'port', 'projectId', 'tls', 'uri']);
    assert.equal(cache.password, redis.nextAuthString);
    const client = createClient({ url: cache.uri, socket: { reconnectStrategy: false, connectTimeout: 5000 } });
    await client.connect();
    try {
      assert.equal(await client.ping(), 'PONG');
    } finally {
      await client.quit();
    }
    const stored = [...redis.instances.values()][0];
    assert.equal(stored.body.redisConfigs['maxmemory-policy'], 'allkeys-lru');

    // Bucket: the Bucket keys and GCS's own; the Secret lets @google-cloud/storage put and read an object.
    const bucket = await secretOf('shop', 'assets');
    assert.deepEqual(Object.keys(bucket).sort(), [
      'accessKeyId',
      'bucket',
      'credentials',
      'emulated',
      'endpoint',
      'projectId',
      'region',
      'secretAccessKey',
      'storageEndpoint',
    ]);
    assert.equal(bucket.region, 'us-east1');
    assert.equal(bucket.accessKeyId, 'GOOG1EXAMPLEACCESS');
    assert.equal(storage.buckets.get(bucket.bucket)?.body.versioning.enabled, true);
    const app = new Storage({ projectId: bucket.projectId, apiEndpoint: bucket.storageEndpoint });
    await app.bucket(bucket.bucket).file('hello.txt').save('from the claim', { resumable: false, validation: 'md5' });
    assert.equal((await app.bucket(bucket.bucket).file('hello.txt').download({ validation: 'md5' }))[0].toString(), 'from the claim');

    // The prices compared: each resource advertises its monthly price from the dated table.
    const pgResource = (await jsonOf(['cloudsqlinstances', ...ns])).items.find((r: any) => r.spec.forProvider.instanceId === pg.instanceId);
    assert.equal(pgResource.spec.forProvider.databaseVersion, 'POSTGRES_16', 'the claim\'s version "16"');
    assert.match(pgResource.status.atProvider.monthlyPrice.table, /unverified; https:\/\/cloud\.google\.com\/sql\/pricing/);

    // Delete the claims: Delete removes the instance and bucket (with its object: forceDestroy); Retain keeps the MySQL instance.
    await kubectlOk(s, ['delete', 'postgresqlinstance/orders', 'mysqlinstance/legacy', 'rediscluster/sessions', 'bucket/assets', '-n', 'shop', '--wait=false']);
    await eventually(async () => !sql.instances.has(pg.instanceId), 'the Delete Cloud SQL instance gone', 90_000);
    await eventually(async () => redis.instances.size === 0, 'the Memorystore instance gone', 90_000);
    await eventually(async () => !storage.buckets.has(bucket.bucket), 'the bucket gone', 90_000);
    assert.equal(sql.instances.get(my.instanceId)?.state, 'RUNNABLE', 'the Retain instance is kept');
    assert.ok(
      sql.requests.every((q) => q.authorization === undefined),
      'no token sent to the loopback fake',
    );
  });

  test('mocked: bad input — an unknown region refused at admission; a tier not offered and quota said in conditions, no password in them', async () => {
    const s = suite.server;
    const resource = (name: string, forProvider: string) =>
      `apiVersion: database.gcp.conductor.io/v1alpha1\nkind: CloudSQLInstance\nmetadata: {name: ${name}, namespace: ${NS}}\nspec: {providerRef: {name: gcp}, rebindPolicy: Delete, forProvider: {${forProvider}}}\n`;
    const refused = await kubectl(s, ['apply', '-f', '-'], { input: resource('moon', 'engine: POSTGRES, region: moon-central1') });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /forProvider\.region/);
    await apply(resource('odd-tier', 'engine: POSTGRES, tier: db-custom-3-3840'));
    sql.fail({
      method: 'POST',
      path: /\/instances$/,
      status: 429,
      grpcStatus: 'RESOURCE_EXHAUSTED',
      message: 'Quota exceeded for quota metric SQL instances.',
      times: 1000,
    });
    await apply(resource('no-quota', 'engine: POSTGRES'));
    const said = async (name: string, text: RegExp) =>
      eventually(
        async () => {
          const r = await jsonOf(['cloudsqlinstances', name, ...ns]);
          const messages = JSON.stringify(r.status?.conditions ?? []);
          return text.test(messages) ? messages : undefined;
        },
        `CloudSQLInstance ${name} says ${text}`,
        60_000,
      );
    const odd = await said('odd-tier', /Cloud SQL offers 1 vCPU or an even number up to 96/);
    const quota = await said('no-quota', /Quota exceeded for quota metric SQL instances/);
    const passwords = sql.requests.filter((q) => q.body.includes('rootPassword')).map((q) => JSON.parse(q.body).rootPassword as string);
    for (const p of passwords) assert.ok(!odd.includes(p) && !quota.includes(p), 'no password in a condition');
    assert.ok(!quota.includes(PASSWORD_KEY));
    sql.clearFaults();
    await kubectlOk(s, ['delete', 'cloudsqlinstances', 'odd-tier', 'no-quota', ...ns, '--wait=false']);
  });

  test('mocked: a throttling answer with Google’s RetryInfo is said in the Event ("throttled by Google Cloud; retrying in 2s"); the resource becomes Ready once it ends', async () => {
    const s = suite.server;
    storage.fail({
      method: 'GET',
      path: /^\/storage\/v1\/b\/shop-throttled-1$/,
      status: 429,
      grpcStatus: 'RESOURCE_EXHAUSTED',
      message: 'The rate of change requests to the bucket is too high.',
      retryAfterSeconds: 2,
    });
    await apply(
      `apiVersion: storage.gcp.conductor.io/v1alpha1\nkind: GCSBucket\nmetadata: {name: throttled, namespace: ${NS}}\nspec: {providerRef: {name: gcp}, rebindPolicy: Delete, forProvider: {bucketName: shop-throttled-1, region: us-east1}}\n`,
    );
    const event = await eventually(
      async () => {
        const events = await jsonOf(['events', ...ns, '--field-selector', 'involvedObject.name=throttled']);
        return events.items.find((e: any) => e.reason === 'CannotObserve');
      },
      'the CannotObserve Event of GCSBucket throttled',
      60_000,
    );
    assert.match(event.message, /429|Too Many Requests|rate of change/);
    assert.match(event.message, /throttled by Google Cloud; retrying in 2s$/);
    await eventually(
      async () => {
        const r = await jsonOf(['gcsbucket', 'throttled', ...ns]);
        return r.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
      },
      'GCSBucket throttled Ready once the throttling ends',
      60_000,
    );
    await kubectlOk(s, ['delete', 'gcsbucket', 'throttled', ...ns, '--wait=true', '--timeout=60s']);
  });

  test('mocked: examples/clouds/gcp 04 and 05 as written: a database, a cache and a bucket for namespace storefront, gone with the namespace', async () => {
    const s = suite.server;
    const example = (file: string) => readFileSync(join(repoRoot, 'examples', 'clouds', 'gcp', file), 'utf8');
    await apply(example('04-managed-classes.yaml'));
    await apply(example('05-managed-app.yaml'));
    for (const [kind, name] of [
      ['postgresqlinstance', 'catalog'],
      ['rediscluster', 'carts'],
      ['bucket', 'images'],
    ] as const) {
      await eventually(
        async () => {
          const c = await jsonOf([kind, name, '-n', 'storefront']);
          return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? true : undefined;
        },
        `${kind} storefront/${name} Bound and Ready`,
        90_000,
      );
    }
    const catalog = await secretOf('storefront', 'catalog');
    assert.equal(catalog.database, 'catalog');
    assert.equal(sql.instances.get(catalog.instanceId)?.databases.has('catalog'), true);
    const images = await secretOf('storefront', 'images');
    assert.equal(storage.buckets.has(images.bucket), true);
    await kubectlOk(s, ['delete', 'namespace', 'storefront', '--wait=true', '--timeout=90s']);
    await eventually(async () => !sql.instances.has(catalog.instanceId) && !storage.buckets.has(images.bucket), 'the instance and bucket deleted', 60_000);
  });
});
