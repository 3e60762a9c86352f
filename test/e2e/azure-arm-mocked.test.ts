/**
 * The azure provider's database and cache kinds through a Conductor server and kubectl,
 * against the HTTP-level fake of Azure Resource Manager and Entra ID (mocked: there is no
 * emulator of these services; test/support/fake-azure-arm.ts, on https with a test CA the
 * server trusts through NODE_EXTRA_CA_CERTS). A Provider with a service principal is Ready
 * after a token exchange and a list, and Ready=False with the reason — AuthenticationFailed
 * for a wrong secret, InvalidCredentials naming a missing key — never quoting the secret.
 * PostgreSQLInstance, MySQLInstance and RedisCluster claims served by classes whose templates
 * are a PostgreSQLFlexibleServer, a MySQLFlexibleServer and a RedisCache become Bound and
 * Ready once ARM's long-running creates have succeeded; their Secrets hold the server's host,
 * the administrator password Conductor generated (the one Azure got), the database made for
 * the claim, the cache's TLS port and access key. Deleting the claims deletes what Delete
 * says and keeps what Retain says. A SKU or region the kinds do not offer is refused at
 * admission (422 naming the field); quota errors are a condition; the server's log never
 * holds a password.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, repoRoot, serverForSuite } from '../support/server.js';
import { credentialsSecretYaml, providerYaml } from '../support/cloud-provider.js';
import { startFakeAzureArm, type FakeAzureArm } from '../support/fake-azure-arm.js';

const NS = 'conductor-system';
const ns = ['-n', NS];

describe('the azure database and cache kinds against the ARM fake (mocked ARM and Entra ID)', () => {
  let fake: FakeAzureArm;
  const env: Record<string, string> = { CONDUCTOR_POLL_INTERVAL_MS: '500' };
  before(async () => {
    fake = await startFakeAzureArm({ steps: 2, quota: 20 });
    env.NODE_EXTRA_CA_CERTS = fake.caFile;
  });
  after(async () => fake?.stop());
  const suite = serverForSuite({ env });

  const apply = (yaml: string) => kubectlOk(suite.server, ['apply', '-f', '-'], { input: yaml });
  const jsonpath = (args: string[], path: string) => kubectlOk(suite.server, ['get', ...args, '-o', `jsonpath=${path}`]);
  const condition = (kind: string, name: string, type: string, field: 'status' | 'reason' | 'message', namespace = NS) =>
    jsonpath([kind, name, '-n', namespace], `{.status.conditions[?(@.type=="${type}")].${field}}`);
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
      90_000,
    );
  const provider = (name: string, secret: string) => providerYaml('azure', name, secret, { region: 'eastus' });
  const wrongSecret = 'Wr0ng~client-secret-that-must-not-leak';

  test('Providers with a service principal: Ready after a token exchange and a list, else Ready=False with the reason and no secret (mocked)', async () => {
    const s = suite.server;
    await kubectlOk(s, [
      'wait',
      '--for=condition=Established',
      'crd/postgresqlflexibleservers.database.azure.conductor.io',
      'crd/mysqlflexibleservers.database.azure.conductor.io',
      'crd/rediscaches.cache.azure.conductor.io',
      '--timeout=60s',
    ]);
    const noGroup = fake.credentials();
    delete noGroup.resourceGroup;
    await apply(
      [
        credentialsSecretYaml('azure-sp', fake.credentials()),
        credentialsSecretYaml('azure-sp-wrong', fake.credentials({ clientSecret: wrongSecret })),
        credentialsSecretYaml('azure-sp-no-group', noGroup),
        provider('azure', 'azure-sp'),
        provider('wrong-secret', 'azure-sp-wrong'),
        provider('no-group', 'azure-sp-no-group'),
      ].join('---\n'),
    );
    await eventually(async () => (await condition('provider', 'azure', 'Ready', 'status')) === 'True', 'Provider azure Ready');
    assert.match(await condition('provider', 'azure', 'Ready', 'message'), /service principal gets a token/);
    const expected: Record<string, { reason: string; message: RegExp }> = {
      'wrong-secret': { reason: 'AuthenticationFailed', message: /AADSTS7000215.*check tenantId, clientId and clientSecret/ },
      'no-group': { reason: 'InvalidCredentials', message: /service principal but no resourceGroup: add it/ },
    };
    for (const [name, want] of Object.entries(expected)) {
      await eventually(async () => (await condition('provider', name, 'Ready', 'status')) === 'False', `Provider ${name} not Ready`);
      assert.equal(await condition('provider', name, 'Ready', 'reason'), want.reason, name);
      const message = await condition('provider', name, 'Ready', 'message');
      assert.match(message, want.message, name);
      assert.ok(!message.includes(fake.clientSecret) && !message.includes(wrongSecret), `${name}'s message quotes no secret: ${message}`);
    }
  });

  const resourceClass = (name: string, claim: string, template: string, policy: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${name}, namespace: ${NS}}
supportedResources: [${claim}]
rebindPolicy: ${policy}
providerRef: {name: azure}
template: ${template}
`;

  test("PostgreSQLInstance, MySQLInstance and RedisCluster claims: Bound and Ready, Secrets in the claim kinds' format, Delete and Retain honoured (mocked)", async () => {
    const s = suite.server;
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    await apply(
      [
        resourceClass(
          'azure-pg',
          'PostgreSQLInstance.v1alpha1.storage.conductor.io',
          '{apiVersion: database.azure.conductor.io/v1alpha1, kind: PostgreSQLFlexibleServer, spec: {forProvider: {skuName: Standard_B1ms}}}',
          'Delete',
        ),
        resourceClass(
          'azure-mysql',
          'MySQLInstance.v1alpha1.storage.conductor.io',
          '{apiVersion: database.azure.conductor.io/v1alpha1, kind: MySQLFlexibleServer, spec: {forProvider: {location: westeurope}}}',
          'Retain',
        ),
        resourceClass(
          'azure-redis',
          'RedisCluster.v1alpha1.cache.conductor.io',
          '{apiVersion: cache.azure.conductor.io/v1alpha1, kind: RedisCache, spec: {forProvider: {sku: Standard, capacity: 1}}}',
          'Delete',
        ),
        `apiVersion: storage.conductor.io/v1alpha1\nkind: PostgreSQLInstance\nmetadata: {name: orders, namespace: shop}\nspec: {resourceClass: azure-pg, version: "16", databaseName: orders, requirements: {capacity: {storage: 50Gi}}}\n`,
        `apiVersion: storage.conductor.io/v1alpha1\nkind: MySQLInstance\nmetadata: {name: catalog, namespace: shop}\nspec: {resourceClass: azure-mysql, version: "8.0"}\n`,
        `apiVersion: cache.conductor.io/v1alpha1\nkind: RedisCluster\nmetadata: {name: sessions, namespace: shop}\nspec: {resourceClass: azure-redis}\n`,
      ].join('---\n'),
    );
    const orders = await boundAndReady('postgresqlinstance', 'shop', 'orders');
    await boundAndReady('mysqlinstance', 'shop', 'catalog');
    await boundAndReady('redisclusters', 'shop', 'sessions');

    const pg = await secretOf('shop', 'orders');
    assert.deepEqual(Object.keys(pg).sort(), ['database', 'host', 'password', 'port', 'serverName', 'sslmode', 'uri', 'username']);
    assert.match(pg.serverName, /^shop-orders-[0-9a-f]{16}$/);
    const server = fake.servers.get(`Microsoft.DBforPostgreSQL/${pg.serverName}`);
    assert.ok(server, 'the server exists in Azure');
    assert.equal(pg.host, `${pg.serverName}.postgres.database.azure.com`);
    assert.equal(pg.port, '5432');
    assert.equal(pg.username, 'conductor');
    assert.equal(pg.database, 'orders');
    assert.equal(pg.password, server.adminPassword, 'the Secret holds the password the server was made with');
    assert.equal(pg.sslmode, 'require');
    assert.ok(server.databases.has('orders'), 'the database was made for the claim');
    assert.equal(server.location, 'eastus', "the Provider's region");
    // 50Gi asked → 54 GB → the next PostgreSQL storage size, 64 GB.
    assert.equal((server.body.properties as { storage: { storageSizeGB: number } }).storage.storageSizeGB, 64);
    const pgResource = orders.status.resourceRef.name as string;
    assert.equal(
      await jsonpath(['postgresqlflexibleserver', pgResource, ...ns], '{.status.atProvider.monthlyPrice.basis}'),
      '730 h × 0.017 USD/h (Standard_B1ms, eastus) + 64 GB × 0.115 USD/GB-month',
    );
    assert.match(await jsonpath(['postgresqlflexibleserver', pgResource, ...ns], '{.status.atProvider.monthlyPrice.table}'), /unverified/);

    const mysql = await secretOf('shop', 'catalog');
    const mysqlServer = fake.servers.get(`Microsoft.DBforMySQL/${mysql.serverName}`);
    assert.ok(mysqlServer);
    assert.equal(mysqlServer.location, 'westeurope');
    const catalogClaim = JSON.parse(await kubectlOk(s, ['get', 'mysqlinstance', 'catalog', '-n', 'shop', '-o', 'json']));
    assert.equal(await jsonpath(['mysqlflexibleserver', catalogClaim.status.resourceRef.name, ...ns], '{.spec.capabilities.region}'), 'westeurope');
    assert.equal((mysqlServer.body.properties as { version: string }).version, '8.0.21');
    assert.equal(mysql.port, '3306');
    assert.equal(mysql.password, mysqlServer.adminPassword);
    assert.match(mysql.uri, /^mysql:\/\/conductor:[^@]+@[a-z0-9-]+\.mysql\.database\.azure\.com:3306\/app\?ssl-mode=REQUIRED$/);

    const redis = await secretOf('shop', 'sessions');
    assert.deepEqual(Object.keys(redis).sort(), ['cacheName', 'host', 'password', 'port', 'ssl', 'uri']);
    const cache = fake.caches.get(redis.cacheName);
    assert.ok(cache);
    assert.equal(redis.port, '6380');
    assert.equal(redis.password, cache.primaryKey);
    assert.equal(redis.uri, `rediss://:${encodeURIComponent(cache.primaryKey)}@${redis.cacheName}.redis.cache.windows.net:6380`);

    // The server's log holds no password.
    const log = suite.server.stderr();
    for (const secret of [server.adminPassword, mysqlServer.adminPassword, cache.primaryKey, fake.clientSecret])
      assert.ok(!log.includes(secret), 'no secret in the log');

    // Release: Delete removes the PostgreSQL server and the cache, Retain keeps the MySQL server.
    await kubectlOk(s, ['delete', 'postgresqlinstance', 'orders', '-n', 'shop', '--wait=true', '--timeout=90s']);
    await kubectlOk(s, ['delete', 'mysqlinstance', 'catalog', '-n', 'shop', '--wait=true', '--timeout=90s']);
    await kubectlOk(s, ['delete', 'redisclusters', 'sessions', '-n', 'shop', '--wait=true', '--timeout=90s']);
    await eventually(() => !fake.servers.has(`Microsoft.DBforPostgreSQL/${pg.serverName}`), 'the Delete server gone from Azure', 90_000);
    await eventually(() => !fake.caches.has(redis.cacheName), 'the Delete cache gone from Azure', 90_000);
    assert.ok(fake.servers.has(`Microsoft.DBforMySQL/${mysql.serverName}`), 'Retain keeps the server');
  });

  test('bad input: a SKU or region not offered is refused at admission, quota is a condition naming it, no secret in it (mocked)', async () => {
    const s = suite.server;
    const badSku = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: database.azure.conductor.io/v1alpha1\nkind: PostgreSQLFlexibleServer\nmetadata: {name: bad-sku, namespace: ${NS}}\nspec: {providerRef: {name: azure}, forProvider: {skuName: Standard_Z99}}\n`,
    });
    assert.notEqual(badSku.code, 0);
    assert.match(badSku.stderr, /spec\.forProvider\.skuName/);
    const badRegion = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: cache.azure.conductor.io/v1alpha1\nkind: RedisCache\nmetadata: {name: bad-region, namespace: ${NS}}\nspec: {providerRef: {name: azure}, forProvider: {location: moon}}\n`,
    });
    assert.notEqual(badRegion.code, 0);
    assert.match(badRegion.stderr, /spec\.forProvider\.location/);
    const badPremium = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: cache.azure.conductor.io/v1alpha1\nkind: RedisCache\nmetadata: {name: bad-premium, namespace: ${NS}}\nspec: {providerRef: {name: azure}, forProvider: {sku: Premium, capacity: 0}}\n`,
    });
    assert.notEqual(badPremium.code, 0);
    assert.match(badPremium.stderr, /Premium cache has capacity 1 to 5/);

    fake.failNext({
      method: 'PUT',
      path: '/flexibleServers/quota-pg',
      status: 409,
      code: 'QuotaExceeded',
      message: 'Operation results in exceeding quota limits of Core.',
      times: 1000,
    });
    await apply(`apiVersion: database.azure.conductor.io/v1alpha1
kind: PostgreSQLFlexibleServer
metadata: {name: quota, namespace: ${NS}}
spec: {providerRef: {name: azure}, rebindPolicy: Delete, forProvider: {serverName: quota-pg}}
`);
    await eventually(async () => /QuotaExceeded/.test(await condition('postgresqlflexibleserver', 'quota', 'Synced', 'message')), 'the quota error in Synced');
    const message = await condition('postgresqlflexibleserver', 'quota', 'Synced', 'message');
    assert.match(message, /a subscription quota is reached/);
    assert.ok(!message.includes(fake.clientSecret));
    await kubectlOk(s, ['delete', 'postgresqlflexibleserver', 'quota', ...ns, '--wait=true', '--timeout=60s']);
  });

  test('an existing server imported by external name with ObserveOnly publishes its host (no password) and is left alone (mocked)', async () => {
    // Made by someone else: through the fake's API, as the Azure portal would.
    await apply(`apiVersion: database.azure.conductor.io/v1alpha1
kind: PostgreSQLFlexibleServer
metadata: {name: theirs, namespace: ${NS}}
spec: {providerRef: {name: azure}, rebindPolicy: Retain, forProvider: {serverName: their-pg}}
`);
    await eventually(async () => (await condition('postgresqlflexibleserver', 'theirs', 'Ready', 'status')) === 'True', 'their server Ready', 60_000);
    await kubectlOk(suite.server, ['delete', 'postgresqlflexibleserver', 'theirs', ...ns, '--wait=true', '--timeout=60s']);
    await apply(`apiVersion: database.azure.conductor.io/v1alpha1
kind: PostgreSQLFlexibleServer
metadata: {name: imported, namespace: ${NS}, annotations: {conductor.io/external-name: their-pg}}
spec: {providerRef: {name: azure}, managementPolicy: ObserveOnly, rebindPolicy: Delete, writeConnectionSecretToRef: {name: imported-conn}}
`);
    await eventually(async () => (await condition('postgresqlflexibleserver', 'imported', 'Ready', 'status')) === 'True', 'the imported server Ready');
    await eventually(async () => (await secretOf(NS, 'imported-conn')).host === 'their-pg.postgres.database.azure.com', 'the imported server published');
    assert.equal((await secretOf(NS, 'imported-conn')).password, '', "an imported server's password is its owner's");
    await kubectlOk(suite.server, ['delete', 'postgresqlflexibleserver', 'imported', ...ns, '--wait=true', '--timeout=60s']);
    assert.ok(fake.servers.has('Microsoft.DBforPostgreSQL/their-pg'), 'ObserveOnly never deletes');
  });

  test('examples/clouds/azure 04 and 05 as written: a PostgreSQL and a MySQL database and a Redis cache for namespace orders (mocked)', async () => {
    const s = suite.server;
    const example = (file: string) => readFileSync(join(repoRoot, 'examples', 'clouds', 'azure', file), 'utf8');
    const c = fake.credentials();
    const providerYaml = example('04-databases.yaml')
      .replace('TENANT_ID', c.tenantId)
      .replace('CLIENT_ID', c.clientId)
      .replace('CLIENT_SECRET', c.clientSecret)
      .replace('SUBSCRIPTION_ID', c.subscriptionId)
      .replace('RESOURCE_GROUP', c.resourceGroup)
      .replace(/# armEndpoint: \S+/, `armEndpoint: ${fake.url}`)
      .replace(/# authorityHost: \S+/, `authorityHost: ${fake.url}`);
    await apply(providerYaml);
    await apply(example('05-app-databases.yaml'));
    await boundAndReady('postgresqlinstance', 'orders', 'orders-db');
    await boundAndReady('mysqlinstance', 'orders', 'catalog-db');
    await boundAndReady('redisclusters', 'orders', 'sessions');
    const pg = await secretOf('orders', 'orders-db');
    assert.equal(pg.database, 'orders');
    assert.equal(pg.password, fake.servers.get(`Microsoft.DBforPostgreSQL/${pg.serverName}`)?.adminPassword);
    const mysql = await secretOf('orders', 'catalog-db');
    const redis = await secretOf('orders', 'sessions');
    assert.equal(redis.password, fake.caches.get(redis.cacheName)?.primaryKey);
    await kubectlOk(s, ['delete', 'namespace', 'orders', '--wait=true', '--timeout=120s']);
    await eventually(
      () => !fake.servers.has(`Microsoft.DBforPostgreSQL/${pg.serverName}`) && !fake.caches.has(redis.cacheName),
      'the Delete server and cache gone',
      90_000,
    );
    assert.ok(fake.servers.has(`Microsoft.DBforMySQL/${mysql.serverName}`), 'the Retain class keeps the MySQL server');
  });
});
