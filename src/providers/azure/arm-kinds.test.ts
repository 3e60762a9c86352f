/**
 * The database and cache kinds and the Provider's ARM check against the HTTP-level fake of
 * Azure Resource Manager and Entra ID (test/support/fake-azure-arm.ts, on https with a test
 * CA): the token exchange, the long-running create polled to Ready, the database made for
 * the claim, idempotent create, import, delete, and throttling, quota and invalid-parameter
 * errors surfacing with their reason — never with a secret in a message.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { ExternalClient, ExternalObservation } from '../spi.js';
import { startFakeAzureArm, type FakeAzureArm } from '../../../test/support/fake-azure-arm.js';
import { createAzureProvider } from './azure-provider.js';
import { ArmError } from './arm-errors.js';

const providerObject: KObject = {
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'azure' },
  spec: { type: 'azure', region: 'eastus' },
};

const resource = (kind: string, group: string, name: string, forProvider: Record<string, unknown>, annotations?: Record<string, string>): KObject => ({
  apiVersion: `${group}/v1alpha1`,
  kind,
  metadata: { name, namespace: 'conductor-system', ...(annotations ? { annotations } : {}) },
  spec: { forProvider },
});
const pg = (name: string, fp: Record<string, unknown> = {}, annotations?: Record<string, string>) =>
  resource('PostgreSQLFlexibleServer', 'database.azure.conductor.io', name, fp, annotations);
const mysql = (name: string, fp: Record<string, unknown> = {}) => resource('MySQLFlexibleServer', 'database.azure.conductor.io', name, fp);
const redis = (name: string, fp: Record<string, unknown> = {}) => resource('RedisCache', 'cache.azure.conductor.io', name, fp);

describe('azure database and cache kinds against the ARM fake (mocked ARM and Entra ID)', () => {
  let fake: FakeAzureArm;
  let provider: ReturnType<typeof createAzureProvider>;

  before(async () => {
    fake = await startFakeAzureArm({ steps: 8, quota: 6 });
    provider = createAzureProvider({ httpClient: fake.httpClient });
  });
  after(async () => {
    await fake?.stop();
  });

  const clientOf = async (kind: string, r: KObject, credentials = fake.credentials()): Promise<ExternalClient> => {
    const k = provider.kinds.find((x) => x.kind === kind)!;
    return k.connector.connect(r, { credentials, provider: providerObject });
  };

  /** Observes until `done` holds (the fake moves one step per poll); bounded. */
  const observeUntil = async (client: ExternalClient, r: KObject, done: (o: ExternalObservation) => boolean): Promise<ExternalObservation> => {
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      const o = await client.observe(r);
      if (done(o)) return o;
      seen.push(o.notReady?.reason ?? (o.exists ? (o.upToDate ? 'ready' : `drift: ${o.drift ?? ''}`) : 'absent'));
    }
    throw new Error(`not done after 20 observations: ${seen.join(', ')}`);
  };

  test('the Provider check exchanges a token and lists the resource group (mocked)', async () => {
    const ok = await provider.check!(providerObject, { credentials: fake.credentials() });
    assert.equal(ok.ready, true, JSON.stringify(ok));
    assert.match(ok.message ?? '', /service principal gets a token/);
  });

  test('the Provider check names a refused secret, a missing resource group and missing keys, never quoting a secret (mocked)', async () => {
    const wrong = 'Wr0ng~secret-value-that-must-not-leak';
    const bad = await provider.check!(providerObject, { credentials: fake.credentials({ clientSecret: wrong }) });
    assert.equal(bad.ready, false);
    assert.equal(!bad.ready && bad.reason, 'AuthenticationFailed');
    assert.ok(!JSON.stringify(bad).includes(wrong));
    assert.match(bad.message ?? '', /check tenantId, clientId and clientSecret/);

    const noGroup = await provider.check!(providerObject, { credentials: fake.credentials({ resourceGroup: 'nope' }) });
    assert.equal(!noGroup.ready && noGroup.reason, 'ResourceGroupNotFound');

    const partial = fake.credentials();
    delete partial.resourceGroup;
    const missing = await provider.check!(providerObject, { credentials: partial });
    assert.equal(!missing.ready && missing.reason, 'InvalidCredentials');
    assert.match(missing.message ?? '', /no resourceGroup/);
    assert.ok(!JSON.stringify(missing).includes(fake.clientSecret));

    const plain = await provider.check!(providerObject, { credentials: fake.credentials({ armEndpoint: fake.url.replace('https:', 'http:') }) });
    assert.equal(!plain.ready && plain.reason, 'InvalidCredentials');
    assert.match(plain.message ?? '', /armEndpoint is not an https URL/);
  });

  test('PostgreSQLFlexibleServer: create polls the operation to Ready, makes the database, publishes the generated password (mocked)', async () => {
    const r = pg('orders', { serverName: 'orders-pg', location: 'eastus', version: '16', skuName: 'Standard_B1ms', storageSizeGB: 40, databaseName: 'orders' });
    const client = await clientOf('PostgreSQLFlexibleServer', r);
    assert.equal((await client.observe(r)).exists, false);
    const created = await client.create(r);
    assert.equal(created.externalName, 'orders-pg');
    // A create repeated (a crash before the external name was seen) sends the same PUT: ARM answers the same operation, no second server.
    await client.create(r);
    assert.equal(fake.requests.filter((q) => q.startsWith('PUT') && q.endsWith('/flexibleServers/orders-pg')).length, 2);
    assert.equal([...fake.servers.keys()].filter((k) => k.endsWith('/orders-pg')).length, 1);
    const server = fake.servers.get('Microsoft.DBforPostgreSQL/orders-pg')!;
    assert.equal(
      (server.body.properties as Record<string, unknown>).storage && (server.body.properties as { storage: { storageSizeGB: number } }).storage.storageSizeGB,
      64,
    );

    const creating = await client.observe(r);
    assert.equal(creating.notReady?.reason, 'Creating');
    const drift = await observeUntil(client, r, (o) => o.exists && !o.notReady);
    assert.equal(drift.upToDate, false);
    assert.match(drift.drift ?? '', /database orders does not exist/);
    await client.update(r);
    const ready = await observeUntil(client, r, (o) => o.exists && !o.notReady && o.upToDate);
    const details = ready.connectionDetails!;
    assert.equal(details.host, 'orders-pg.postgres.database.azure.com');
    assert.equal(details.port, '5432');
    assert.equal(details.username, 'conductor');
    assert.equal(details.database, 'orders');
    assert.equal(details.password, server.adminPassword, 'the published password is the one the server was made with');
    assert.match(details.uri, /^postgresql:\/\/conductor:.+@orders-pg\.postgres\.database\.azure\.com:5432\/orders\?sslmode=require$/);
    assert.ok(!JSON.stringify(ready.atProvider).includes(server.adminPassword));
    assert.match(JSON.stringify(ready.atProvider), /"amount":"(\d+\.\d\d)"/);

    // Drift: a bigger SKU is PATCHed.
    const bigger = pg('orders', { ...(r.spec as { forProvider: Record<string, unknown> }).forProvider, skuName: 'Standard_D2ds_v5' });
    const o = await client.observe(bigger);
    assert.match(o.drift ?? '', /SKU is Standard_B1ms, spec wants Standard_D2ds_v5/);
    await client.update(bigger);
    await observeUntil(client, bigger, (x) => x.exists && x.upToDate && !x.notReady);

    await client.delete(r);
    const dropping = await client.observe(r);
    assert.equal(dropping.notReady?.reason, 'Dropping');
    await observeUntil(client, r, (x) => !x.exists);
    await client.delete(r); // gone: fine
  });

  test('MySQLFlexibleServer: the same lifecycle through the MySQL SDK (mocked)', async () => {
    const r = mysql('shop', { serverName: 'shop-mysql', location: 'westeurope', version: '8.0.21', skuName: 'Standard_B2s', storageSizeGB: 32 });
    const client = await clientOf('MySQLFlexibleServer', r);
    await client.create(r);
    await observeUntil(client, r, (o) => o.exists && !o.notReady && !o.upToDate);
    await client.update(r);
    const ready = await observeUntil(client, r, (o) => o.exists && !o.notReady && o.upToDate);
    assert.equal(ready.connectionDetails?.port, '3306');
    assert.equal(ready.connectionDetails?.database, 'app');
    assert.match(ready.connectionDetails?.uri ?? '', /^mysql:\/\/conductor:.+@shop-mysql\.mysql\.database\.azure\.com:3306\/app\?ssl-mode=REQUIRED$/);
    assert.equal(ready.connectionDetails?.password, fake.servers.get('Microsoft.DBforMySQL/shop-mysql')?.adminPassword);
    await client.delete(r);
    await observeUntil(client, r, (o) => !o.exists);
  });

  test('a server of the name made for something else is refused; imported by external name it publishes no password (mocked)', async () => {
    const owner = pg('owner', { serverName: 'shared-pg', location: 'eastus' });
    const ownerClient = await clientOf('PostgreSQLFlexibleServer', owner);
    await ownerClient.create(owner);
    await observeUntil(ownerClient, owner, (o) => o.exists && !o.notReady);

    const other = pg('other', { serverName: 'shared-pg', location: 'eastus' });
    await assert.rejects((await clientOf('PostgreSQLFlexibleServer', other)).create(other), (err: Error) => {
      assert.ok(err instanceof ArmError && err.reason === 'Conflict');
      assert.match(err.message, /was not made for this resource — import it with the annotation conductor.io\/external-name/);
      return true;
    });
    const imported = pg('imported', { location: 'eastus' }, { 'conductor.io/external-name': 'shared-pg' });
    const seen = await (await clientOf('PostgreSQLFlexibleServer', imported)).observe(imported);
    assert.equal(seen.exists, true);
    assert.equal(seen.connectionDetails?.password, '');
    await ownerClient.delete(owner);
  });

  test('RedisCache: Creating until Succeeded, then the TLS port and the primary key (mocked)', async () => {
    const r = redis('sessions', { cacheName: 'sessions-cache', location: 'eastus', sku: 'Standard', capacity: 1 });
    const client = await clientOf('RedisCache', r);
    assert.equal((await client.observe(r)).exists, false);
    await client.create(r);
    assert.equal((await client.observe(r)).notReady?.reason, 'Creating');
    const ready = await observeUntil(client, r, (o) => o.exists && !o.notReady);
    const cache = fake.caches.get('sessions-cache')!;
    assert.deepEqual(
      {
        host: ready.connectionDetails?.host,
        port: ready.connectionDetails?.port,
        password: ready.connectionDetails?.password,
        ssl: ready.connectionDetails?.ssl,
      },
      { host: 'sessions-cache.redis.cache.windows.net', port: '6380', password: cache.primaryKey, ssl: 'true' },
    );
    assert.equal((cache.body.properties as Record<string, unknown>).enableNonSslPort, false);
    assert.match(JSON.stringify(ready.atProvider), /"basis":"730 h × 0.138 USD\/h \(Standard C1, eastus\)"/);
    await client.delete(r);
    await observeUntil(client, r, (o) => !o.exists);
  });

  test('throttling (429 + Retry-After), quota and invalid parameters surface with their reason (mocked)', async () => {
    const r = pg('busy', { serverName: 'busy-pg', location: 'eastus' });
    const client = await clientOf('PostgreSQLFlexibleServer', r);
    fake.failNext({
      method: 'GET',
      path: '/flexibleServers/busy-pg',
      status: 429,
      code: 'TooManyRequests',
      message: 'Too many requests.',
      headers: { 'retry-after': '17' },
    });
    await assert.rejects(client.observe(r), (err: Error) => {
      assert.ok(err instanceof ArmError);
      assert.equal(err.reason, 'Throttled');
      assert.equal(err.retryAfterSeconds, 17);
      assert.match(err.message, /throttled by Azure; retrying in 17s/);
      return true;
    });

    fake.failNext({
      method: 'PUT',
      path: '/flexibleServers/busy-pg',
      status: 409,
      code: 'QuotaExceeded',
      message: 'Operation results in exceeding quota limits of Core.',
    });
    await assert.rejects(client.create(r), (err: Error) => err instanceof ArmError && err.reason === 'QuotaExceeded' && /QuotaExceeded/.test(err.message));

    const badSku = pg('badsku', { serverName: 'badsku-pg', location: 'eastus', skuName: 'Standard_Z9' });
    await assert.rejects((await clientOf('PostgreSQLFlexibleServer', badSku)).create(badSku), (err: Error) => {
      assert.ok(err instanceof ArmError && err.reason === 'InvalidParameter');
      assert.match(err.message, /Standard_Z9/);
      return true;
    });
    const badRegion = redis('faraway', { cacheName: 'faraway-cache', location: 'brazilsouth' });
    await assert.rejects(
      (await clientOf('RedisCache', badRegion)).create(badRegion),
      (err: Error) => err instanceof ArmError && err.reason === 'InvalidParameter',
    );
  });

  // While a flexible server is being created ARM answers its GET 404, so a repeated create sends
  // the PUT again — idempotent by name: the same operation, the same server, the same derived
  // password. A Redis cache is visible while it is created, so create finds it by its tag.
  const repeated: { kind: string; name: string; make: () => KObject; stored: () => unknown; putsAgain: boolean }[] = [
    {
      kind: 'PostgreSQLFlexibleServer',
      name: 'again-pg',
      make: () => pg('again', { serverName: 'again-pg', location: 'eastus' }),
      stored: () => fake.servers.get('Microsoft.DBforPostgreSQL/again-pg'),
      putsAgain: true,
    },
    {
      kind: 'MySQLFlexibleServer',
      name: 'again-mysql',
      make: () => mysql('again', { serverName: 'again-mysql', location: 'eastus' }),
      stored: () => fake.servers.get('Microsoft.DBforMySQL/again-mysql'),
      putsAgain: true,
    },
    {
      kind: 'RedisCache',
      name: 'again-cache',
      make: () => redis('again', { cacheName: 'again-cache', location: 'eastus', sku: 'Basic', capacity: 0 }),
      stored: () => fake.caches.get('again-cache'),
      putsAgain: false,
    },
  ];
  for (const c of repeated) {
    test(`${c.kind}: a create repeated after a crash (a new client, the first create still running) makes nothing twice (mocked)`, async () => {
      const r = c.make();
      const puts = () => fake.requests.filter((q) => q.startsWith('PUT ') && q.endsWith(`/${c.name}`)).length;
      const first = await clientOf(c.kind, r);
      assert.equal((await first.create(r)).externalName, c.name);
      const made = c.stored();
      assert.ok(made, 'the first create made it');
      // The controller stopped before it recorded the outcome: a new process connects again and repeats create.
      const afterCrash = await clientOf(c.kind, c.make());
      assert.equal((await afterCrash.create(c.make())).externalName, c.name);
      assert.equal(c.stored(), made, 'still the one made first');
      assert.equal(puts(), c.putsAgain ? 2 : 1);
      if (c.putsAgain) {
        assert.equal((made as { state: string }).state, 'Creating', 'the second PUT joined the running create');
      }
      const ready = await observeUntil(afterCrash, r, (o) => o.exists && !o.notReady);
      assert.equal(ready.exists, true);
      await afterCrash.delete(r);
      await observeUntil(afterCrash, r, (o) => !o.exists);
    });
  }

  test("a create operation that ends Failed is a condition with Azure's error, and the next create tries again (mocked)", async () => {
    const r = pg('doomed', { serverName: 'doomed-pg', location: 'eastus' });
    const client = await clientOf('PostgreSQLFlexibleServer', r);
    fake.failCreate('doomed-pg', 'InternalServerError', 'An unexpected error occurred while processing the request.');
    await client.create(r);
    const outcome = await (async () => {
      for (let i = 0; i < 10; i++) {
        try {
          await client.observe(r);
        } catch (err) {
          return err as Error;
        }
      }
      return undefined;
    })();
    assert.ok(outcome instanceof ArmError, String(outcome));
    assert.match(outcome.message, /create PostgreSQL flexible server doomed-pg/);
    assert.equal((await client.observe(r)).exists, false, 'the failed operation is forgotten: the next reconcile creates again');
  });

  test('the storage kinds refuse a Secret with only a service principal, naming the keys to add (mocked)', async () => {
    const k = provider.kinds.find((x) => x.kind === 'BlobContainer')!;
    await assert.rejects(
      k.connector.connect(resource('BlobContainer', 'storage.azure.conductor.io', 'c', {}), { credentials: fake.credentials() }),
      /no storage account: add accountName and accountKey/,
    );
  });
});
