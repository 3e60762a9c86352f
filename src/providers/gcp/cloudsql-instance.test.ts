import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeCloudSql, type FakeCloudSql } from '../../../test/support/fake-gcp-sql.js';
import { EXTERNAL_NAME_ANNOTATION } from '../../apis/well-known.js';
import { CloudSqlInstanceClient, OWNER_LABEL } from './cloudsql-instance.js';
import { cloudSqlSettings } from './kind-settings.js';
import { gcpCredentialsFrom } from './credentials.js';
import type { GcpError } from './errors.js';
import { cloudSqlInstanceKind, type CloudSQLInstance } from './kinds.js';

const PASSWORD_KEY = 'a-test-password-key-0123456789';
const provider = {
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'gcp', namespace: 'conductor-system' },
  spec: { region: 'us-central1' },
};

function resource(name: string, forProvider: Record<string, unknown> = {}, annotations?: Record<string, string>): CloudSQLInstance {
  return cloudSqlInstanceKind.make({
    metadata: { name, namespace: 'conductor-system', ...(annotations ? { annotations } : {}) },
    spec: { providerRef: { name: 'gcp' }, rebindPolicy: 'Delete', managementPolicy: 'Full', forProvider: { engine: 'POSTGRES', ...forProvider } as never },
  });
}

describe('CloudSQLInstance against a fake of the Cloud SQL Admin REST API (mocked)', () => {
  let fake: FakeCloudSql;
  let client: CloudSqlInstanceClient;
  before(async () => {
    fake = await startFakeCloudSql();
    const credentials = gcpCredentialsFrom({
      projectId: 'conductor-test',
      pubsubEndpoint: 'http://127.0.0.1:1',
      spannerEndpoint: 'http://127.0.0.1:1',
      sqlEndpoint: fake.endpoint,
      masterPasswordKey: PASSWORD_KEY,
    });
    client = new CloudSqlInstanceClient(credentials, provider);
  });
  after(async () => {
    await client?.close();
    await fake?.stop();
  });

  test('mocked: create → PENDING_CREATE → RUNNABLE, then the database and the user; the details carry the generated password', async () => {
    const r = resource('orders', { tier: 'db-custom-2-7680', storageGb: 20, databaseName: 'orders', username: 'shop' });
    assert.deepEqual(await client.observe(r), { exists: false, upToDate: false });
    fake.creatingLooks = 3;
    const created = await client.create(r);
    assert.equal(created.externalName, 'orders');
    const stored = fake.instances.get('orders');
    assert.equal(stored?.state, 'RUNNABLE');
    assert.equal(stored?.body.settings.userLabels[OWNER_LABEL], cloudSqlSettings(r, provider).owner);
    assert.equal(stored?.body.region, 'us-central1');
    assert.ok(stored?.databases.has('orders') && stored.users.has('shop'), 'database and user made once RUNNABLE');
    const password = stored.users.get('shop')?.password as string;
    assert.match(password, /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(stored.body.rootPassword, password, 'root and the user have different passwords');
    assert.ok(
      fake.requests.every((q) => q.authorization === undefined),
      'no token is sent to a loopback fake',
    );
    const seen = await client.observe(r);
    assert.equal(seen.exists, true);
    assert.equal(seen.upToDate, true, seen.drift);
    assert.equal(seen.notReady, undefined);
    assert.deepEqual(seen.connectionDetails, {
      host: '127.0.0.1',
      port: '5432',
      username: 'shop',
      password,
      database: 'orders',
      uri: `postgresql://shop:${password}@127.0.0.1:5432/orders`,
      projectId: 'conductor-test',
      instanceId: 'orders',
      connectionName: 'conductor-test:us-central1:orders',
      engine: 'POSTGRES',
    });
    assert.match(JSON.stringify(seen.atProvider?.monthlyPrice), /2 vCPU/);
  });

  test('mocked: an instance still creating is Ready=False, reason Creating; a missing user is drift that update repairs', async () => {
    fake.creatingLooks = 100;
    const r = resource('slow', { engine: 'MYSQL' });
    fake.instances.set('slow', {
      body: { name: 'slow', region: 'us-central1', settings: { tier: 'db-custom-1-3840', userLabels: { [OWNER_LABEL]: cloudSqlSettings(r, provider).owner } } },
      state: 'PENDING_CREATE',
      looks: 0,
      databases: new Map(),
      users: new Map(),
    });
    const creating = await client.observe(r);
    assert.equal(creating.notReady?.reason, 'Creating');
    fake.instances.get('slow')!.state = 'RUNNABLE';
    const missing = await client.observe(r);
    assert.equal(missing.upToDate, false);
    assert.match(missing.drift ?? '', /database app is missing; user app is missing/);
    await client.update(r);
    assert.equal(fake.instances.get('slow')?.users.get('app')?.host, '%', 'a MySQL user may connect from any host');
    assert.equal((await client.observe(r)).upToDate, true);
  });

  test('mocked: 409 for an instance made for this resource is done; for another one it is refused with what to do', async () => {
    fake.creatingLooks = 1;
    const r = resource('twice');
    await client.create(r);
    await client.create(r);
    const other = resource('twice', {}, undefined);
    other.metadata.namespace = 'elsewhere';
    await assert.rejects(client.create(other), (err: GcpError) => err.reason === 'AlreadyExists' && /conductor\.io\/external-name/.test(err.message));
  });

  test('mocked: an imported instance (external-name) publishes no password; its drift is not Conductor’s to fix', async () => {
    fake.instances.set('legacy', {
      body: { name: 'legacy', region: 'us-central1', settings: { tier: 'db-g1-small' } },
      state: 'RUNNABLE',
      looks: 0,
      databases: new Map(),
      users: new Map(),
    });
    const seen = await client.observe(resource('legacy-import', {}, { [EXTERNAL_NAME_ANNOTATION]: 'legacy' }));
    assert.equal(seen.upToDate, true);
    assert.equal(seen.connectionDetails?.password, '');
  });

  test('mocked: quota (429 RESOURCE_EXHAUSTED) and invalid parameters (400) become GcpErrors naming no password', async () => {
    fake.fail({ method: 'POST', path: /\/instances$/, status: 429, grpcStatus: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for quota metric instances.' });
    await assert.rejects(client.create(resource('quota')), (err: GcpError) => err.reason === 'Throttled' && /Quota exceeded/.test(err.message));
    await assert.rejects(client.create(resource('nowhere', { region: 'asia-east2' })), (err: GcpError) => {
      assert.equal(err.reason, 'InvalidArgument');
      assert.match(err.message, /region/);
      const user = fake.requests.filter((q) => q.body.includes('rootPassword')).map((q) => JSON.parse(q.body).rootPassword as string);
      assert.ok(user.every((p) => !err.message.includes(p)));
      return true;
    });
    assert.throws(() => cloudSqlSettings(resource('odd', { tier: 'db-custom-3-3840' }), provider), /even number/);
    assert.throws(() => cloudSqlSettings(resource('odd', { databaseVersion: 'MYSQL_8_0' }), provider), /not a version of engine POSTGRES/);
  });

  test('mocked: a throttling answer with Google’s RetryInfo (and Retry-After) says when to retry; kept for the reconciler, at most 5 minutes', async () => {
    const r = resource('busy');
    for (const [asked, want] of [
      [30, 30],
      [3600, 300],
    ] as const) {
      fake.fail({
        method: 'GET',
        path: /\/instances\/busy$/,
        status: 429,
        grpcStatus: 'RESOURCE_EXHAUSTED',
        message: 'Rate exceeded.',
        retryAfterSeconds: asked,
      });
      await assert.rejects(client.observe(r), (err: GcpError) => {
        assert.equal(err.reason, 'Throttled');
        assert.equal(err.retryAfterSeconds, want);
        assert.match(err.message, want === 30 ? /throttled by Google Cloud; retrying in 30s$/ : /retrying in 5m$/);
        return true;
      });
    }
    fake.fail({ method: 'GET', path: /\/instances\/busy$/, status: 429, grpcStatus: 'RESOURCE_EXHAUSTED', message: 'Rate exceeded.' });
    await assert.rejects(client.observe(r), (err: GcpError) => err.retryAfterSeconds === undefined && /retried with backoff$/.test(err.message));
  });

  test('mocked: a tier change is drift; update patches it (MAINTENANCE, then RUNNABLE); delete goes through PENDING_DELETE', async () => {
    fake.creatingLooks = 1;
    const r = resource('grow');
    await client.create(r);
    const bigger = resource('grow', { tier: 'db-custom-4-15360', storageGb: 50 });
    const drift = await client.observe(bigger);
    assert.match(drift.drift ?? '', /tier is db-custom-1-3840, spec wants db-custom-4-15360; storage is 10 GB, spec wants 50/);
    await client.update(bigger);
    assert.equal((await client.observe(bigger)).notReady?.reason, 'Maintenance');
    assert.equal((await client.observe(bigger)).upToDate, true);
    await client.delete(bigger);
    assert.equal((await client.observe(bigger)).notReady?.reason, 'Deleting');
    assert.equal((await client.observe(bigger)).exists, false);
    await client.delete(bigger);
  });
});
