import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeMemorystore, type FakeMemorystore } from '../../../test/support/fake-gcp-redis.js';
import { gcpCredentialsFrom } from './credentials.js';
import type { GcpError } from './errors.js';
import { memorystoreInstanceKind, type MemorystoreInstance } from './kinds.js';
import { MemorystoreInstanceClient, OWNER_LABEL } from './memorystore-instance.js';
import { memorystoreSettings } from './kind-settings.js';

const provider = {
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'Provider',
  metadata: { name: 'gcp', namespace: 'conductor-system' },
  spec: { region: 'europe-west1' },
};
const PARENT = 'projects/conductor-test/locations/europe-west1/instances';

function resource(name: string, forProvider: Record<string, unknown> = {}, namespace = 'conductor-system'): MemorystoreInstance {
  return memorystoreInstanceKind.make({
    metadata: { name, namespace },
    spec: { providerRef: { name: 'gcp' }, rebindPolicy: 'Delete', managementPolicy: 'Full', forProvider: forProvider as never },
  });
}

describe('MemorystoreInstance against a fake of the Memorystore for Redis REST API (mocked)', () => {
  let fake: FakeMemorystore;
  let client: MemorystoreInstanceClient;
  before(async () => {
    fake = await startFakeMemorystore();
    const credentials = gcpCredentialsFrom({
      projectId: 'conductor-test',
      pubsubEndpoint: 'http://127.0.0.1:1',
      spannerEndpoint: 'http://127.0.0.1:1',
      redisEndpoint: fake.endpoint,
    });
    client = new MemorystoreInstanceClient(credentials, provider);
  });
  after(async () => {
    await client?.close();
    await fake?.stop();
  });

  test('mocked: create → CREATING → READY; host, port and the AUTH string as the claim keys', async () => {
    fake.creatingLooks = 2;
    fake.redisPort = 16379;
    const r = resource('cache', { tier: 'STANDARD_HA', memorySizeGb: 5, evictionPolicy: 'allkeys-lru' });
    assert.deepEqual(await client.observe(r), { exists: false, upToDate: false });
    assert.equal((await client.create(r)).externalName, 'cache');
    const stored = fake.instances.get(`${PARENT}/cache`);
    assert.equal(stored?.body.tier, 'STANDARD_HA');
    assert.equal(stored?.body.labels[OWNER_LABEL], memorystoreSettings(r, provider, 'conductor-test').owner);
    assert.equal(stored?.body.redisConfigs['maxmemory-policy'], 'allkeys-lru');
    const seen = await client.observe(r);
    assert.equal(seen.upToDate, true, seen.drift);
    assert.deepEqual(seen.connectionDetails, {
      host: '127.0.0.1',
      port: '16379',
      password: 'fake-auth-string-0001',
      uri: 'redis://:fake-auth-string-0001@127.0.0.1:16379',
      projectId: 'conductor-test',
      instanceId: 'cache',
      tls: 'false',
    });
    assert.match(JSON.stringify(seen.atProvider?.monthlyPrice), /STANDARD_HA, M2/);
  });

  test('mocked: without AUTH the password is empty; with transit encryption the uri is rediss', async () => {
    fake.creatingLooks = 1;
    const r = resource('open', { authEnabled: false, transitEncryption: true });
    await client.create(r);
    const seen = await client.observe(r);
    assert.equal(seen.connectionDetails?.password, '');
    assert.equal(seen.connectionDetails?.tls, 'true');
    assert.match(seen.connectionDetails?.uri ?? '', /^rediss:\/\/127\.0\.0\.1:/);
  });

  test('mocked: still CREATING is Ready=False, reason Creating; a size change is drift, update patches it (UPDATING → READY); delete (DELETING → gone)', async () => {
    fake.creatingLooks = 100;
    const r = resource('grow');
    fake.instances.set(`${PARENT}/grow`, {
      body: { tier: 'BASIC', memorySizeGb: 1, authEnabled: true, labels: { [OWNER_LABEL]: memorystoreSettings(r, provider, 'conductor-test').owner } },
      state: 'CREATING',
      looks: 0,
      authString: 'x',
    });
    assert.equal((await client.observe(r)).notReady?.reason, 'Creating');
    fake.instances.get(`${PARENT}/grow`)!.state = 'READY';
    const bigger = resource('grow', { memorySizeGb: 4 });
    assert.match((await client.observe(bigger)).drift ?? '', /memory is 1 GB, spec wants 4/);
    await client.update(bigger);
    assert.equal((await client.observe(bigger)).notReady?.reason, 'Updating');
    assert.equal((await client.observe(bigger)).upToDate, true);
    await client.delete(bigger);
    assert.equal((await client.observe(bigger)).notReady?.reason, 'Deleting');
    assert.equal((await client.observe(bigger)).exists, false);
    await client.delete(bigger);
  });

  test('mocked: 409 of our own instance is done, of another refused; quota 429 and a size not offered are clear errors', async () => {
    fake.creatingLooks = 1;
    await client.create(resource('twice'));
    await client.create(resource('twice'));
    await assert.rejects(client.create(resource('twice', {}, 'elsewhere')), (err: GcpError) => err.reason === 'AlreadyExists');
    fake.fail({ method: 'POST', path: /\/instances$/, status: 429, grpcStatus: 'RESOURCE_EXHAUSTED', message: 'Quota limit redis-instances exceeded.' });
    await assert.rejects(client.create(resource('quota')), (err: GcpError) => err.reason === 'Throttled' && /Quota limit/.test(err.message));
    assert.throws(() => memorystoreSettings(resource('huge', { memorySizeGb: 500 }), provider, 'p'), /not offered: Memorystore for Redis has 1 to 300 GB/);
    await assert.rejects(
      client.create(resource('far', { region: 'asia-south1' })),
      (err: GcpError) => err.reason === 'InvalidArgument' && /asia-south1/.test(err.message),
    );
  });
});
