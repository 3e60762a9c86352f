import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinRefs } from '../../client/types.js';
import { FakeClient } from '../../client/testing/index.js';
import type { KObject } from '../../machinery/object.js';
import { OwnershipConflictError, publishConnection } from './connection-secret.js';

const claim: KObject = {
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'PostgreSQLInstance',
  metadata: { namespace: 'shop', name: 'orders-db', uid: 'claim-uid' },
};
const KEYS = ['host', 'port', 'username', 'password', 'database', 'uri'];
const details = {
  host: 'h',
  port: '5432',
  username: 'app',
  password: 's3cret',
  database: 'orders',
  uri: 'postgresql://app:s3cret@h:5432/orders',
  extra: 'not documented',
};
const decoded = (s: KObject) => Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

describe('publishConnection', () => {
  test('a fresh claim: Secret (documented keys) and ConfigMap (non-secret keys) are created without reading first', async () => {
    const client = new FakeClient();
    await publishConnection(client, claim, 'orders-db', details, KEYS, true);
    assert.deepEqual(client.actions.map((a) => a.verb).sort(), ['create', 'create']);
    const secret = await client.get(builtinRefs.secrets, 'orders-db', 'shop');
    assert.deepEqual(decoded(secret), Object.fromEntries(KEYS.map((k) => [k, details[k as keyof typeof details]])));
    assert.equal(secret.type, 'connection.conductor.io/v1alpha1');
    assert.equal(secret.metadata.ownerReferences?.[0]?.uid, 'claim-uid');
    const cm = await client.get(builtinRefs.configmaps, 'orders-db', 'shop');
    assert.deepEqual(cm.data, { host: 'h', port: '5432', username: 'app', database: 'orders' }, 'no password or uri in the ConfigMap');
  });

  test('fresh but already published (a repeated reconcile): the existing objects are updated when the details changed', async () => {
    const client = new FakeClient();
    await publishConnection(client, claim, 'orders-db', details, KEYS, true);
    await publishConnection(client, claim, 'orders-db', { ...details, password: 'rotated', uri: 'postgresql://app:rotated@h:5432/orders' }, KEYS, true);
    assert.equal(decoded(await client.get(builtinRefs.secrets, 'orders-db', 'shop')).password, 'rotated');
  });

  test('not fresh: nothing is written when the published details are the same', async () => {
    const client = new FakeClient();
    await publishConnection(client, claim, 'orders-db', details, KEYS, true);
    const before = client.actions.length;
    await publishConnection(client, claim, 'orders-db', details, KEYS);
    const verbs = client.actions.slice(before).map((a) => a.verb);
    assert.deepEqual(verbs.sort(), ['get', 'get']);
  });

  test("a Secret of that name that is not the claim's (the developer's own, another claim's) is never overwritten", async () => {
    for (const owner of [
      undefined,
      [{ apiVersion: 'cache.conductor.io/v1alpha1', kind: 'RedisCluster', name: 'orders-db', uid: 'other-claim', controller: true }],
    ]) {
      const client = new FakeClient();
      await client.create(builtinRefs.secrets, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'orders-db', namespace: 'shop', ...(owner ? { ownerReferences: owner } : {}) },
        data: { mine: 'eA==' },
      });
      await assert.rejects(publishConnection(client, claim, 'orders-db', details, KEYS, true), OwnershipConflictError);
      await assert.rejects(
        publishConnection(client, claim, 'orders-db', details, KEYS),
        /already exists and (is controlled by RedisCluster orders-db|is not controlled by Conductor)/,
      );
      assert.deepEqual((await client.get(builtinRefs.secrets, 'orders-db', 'shop')).data, { mine: 'eA==' });
    }
  });
});
