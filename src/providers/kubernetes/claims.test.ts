import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KObject } from '../../machinery/object.js';
import type { ResourceTemplate } from '../spi.js';
import { configureKubernetesObject, formatBucket, formatPostgreSQL, matchKubernetesObject, nameFor } from './claims.js';

function claim(spec: JsonObject, name = 'orders'): KObject {
  return { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', metadata: { namespace: 'shop', name }, spec };
}
const template = (manifest: JsonObject, extra: JsonObject = {}): ResourceTemplate => ({
  apiVersion: 'kubernetes.conductor.io/v1alpha1',
  kind: 'KubernetesObject',
  spec: { forProvider: { manifest, ...extra } },
});

describe('configureKubernetesObject', () => {
  const cases: { reason: string; claim: KObject; template: ResourceTemplate; want: JsonObject }[] = [
    {
      reason: 'a manifest without a name is named after the claim',
      claim: claim({}),
      template: template({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'db' } }),
      want: { forProvider: { manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'db', name: 'shop-orders-72e2865c2c72' } } } },
    },
    {
      reason: "placeholders take the claim's fields, with their type when a string is only a placeholder",
      claim: claim({ version: '16', databaseName: 'orders', requirements: { capacity: { storage: '5Gi' } } }),
      template: template({
        apiVersion: 'postgresql.example/v1',
        kind: 'Cluster',
        metadata: { name: 'pg-$(claim.namespace)-$(claim.name)' },
        spec: {
          imageName: 'postgres:$(claim.spec.version)',
          bootstrap: { database: '$(claim.spec.databaseName)' },
          size: '$(claim.spec.requirements.capacity.storage)',
        },
      }),
      want: {
        forProvider: {
          manifest: {
            apiVersion: 'postgresql.example/v1',
            kind: 'Cluster',
            metadata: { name: 'pg-shop-orders' },
            spec: { imageName: 'postgres:16', bootstrap: { database: 'orders' }, size: '5Gi' },
          },
        },
      },
    },
    {
      reason: 'a field that is only a placeholder the claim does not set is removed (the target defaults it)',
      claim: claim({}),
      template: template({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'x' },
        data: { version: '$(claim.spec.version)', tag: 'v$(claim.spec.version)' },
      }),
      want: { forProvider: { manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { tag: 'v' } } } },
    },
    {
      reason: 'the rest of the template spec stays as it is',
      claim: claim({}),
      template: template({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, { connectionDetails: [{ fromField: '.data.host', toKey: 'host' }] }),
      want: {
        forProvider: {
          manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
          connectionDetails: [{ fromField: '.data.host', toKey: 'host' }],
        },
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = structuredClone(c.template);
      assert.deepEqual(configureKubernetesObject(c.claim, c.template), c.want);
      assert.deepEqual(c.template, before, 'the template is not modified');
    });
  }

  test("claims whose namespace and name join alike get different names (one tenant cannot take another's)", () => {
    const a = nameFor({ apiVersion: 'v1', kind: 'Bucket', metadata: { namespace: 'a', name: 'b-c' } });
    const b = nameFor({ apiVersion: 'v1', kind: 'Bucket', metadata: { namespace: 'a-b', name: 'c' } });
    assert.match(a, /^a-b-c-[0-9a-f]{12}$/);
    assert.notEqual(a, b);
  });

  test('a long claim name gives a name of at most 63 characters, distinct per claim', () => {
    const a = nameFor(claim({}, 'a'.repeat(70)));
    const b = nameFor(claim({}, `${'a'.repeat(69)}b`));
    assert.ok(a.length <= 63 && b.length <= 63);
    assert.notEqual(a, b);
  });
});

describe('matchKubernetesObject', () => {
  const asClass = (t: ResourceTemplate) => ({
    type: 'class' as const,
    resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'c' } },
    template: t,
  });
  const named = template({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '$(claim.spec.databaseName)' } });
  test("a class fits when the claim's values make valid fields", () => {
    assert.deepEqual(matchKubernetesObject(claim({ databaseName: 'orders' }), asClass(named)), { fits: true });
  });
  test('a class does not fit when they would not, and the reason names the field', () => {
    const got = matchKubernetesObject(claim({ databaseName: 'Orders!' }), asClass(named));
    assert.equal(got.fits, false);
    assert.match(got.fits ? '' : got.reason, /manifest\.metadata\.name would be "Orders!"/);
  });
});

describe('connection formatters', () => {
  test('Bucket: exactly the claim kind keys, region defaulting to us-east-1', () => {
    assert.deepEqual(formatBucket({ endpoint: 'https://s3', bucket: 'b', accessKeyId: 'a', secretAccessKey: 's', extra: 'x' }), {
      endpoint: 'https://s3',
      bucket: 'b',
      region: 'us-east-1',
      accessKeyId: 'a',
      secretAccessKey: 's',
    });
  });
  test('Bucket: the endpoint from an object bucket provisioner’s host and port', () => {
    const keys = { bucket: 'b', accessKeyId: 'a', secretAccessKey: 's' };
    assert.equal(formatBucket({ ...keys, bucketHost: '127.0.0.1', bucketPort: '9000' }).endpoint, 'http://127.0.0.1:9000');
    assert.equal(formatBucket({ ...keys, bucketHost: 's3.example', bucketPort: '443' }).endpoint, 'https://s3.example:443');
    assert.equal(formatBucket({ ...keys, bucketHost: '::1', bucketPort: '80' }).endpoint, 'http://[::1]:80');
    assert.throws(() => formatBucket({ ...keys, bucketHost: 'h', bucketPort: 'x' }), /bucketPort is "x"/);
  });
  test('Bucket: a missing key is named', () => {
    assert.throws(() => formatBucket({ endpoint: 'https://s3', bucket: 'b' }), /lack accessKeyId, secretAccessKey for a Bucket claim/);
  });
  test('PostgreSQLInstance: port defaults to 5432 and the uri is built', () => {
    assert.deepEqual(formatPostgreSQL({ host: 'pg.db.svc', username: 'app', password: 'p@ss', database: 'orders' }), {
      host: 'pg.db.svc',
      port: '5432',
      username: 'app',
      password: 'p@ss',
      database: 'orders',
      uri: 'postgresql://app:p%40ss@pg.db.svc:5432/orders',
    });
  });
  test('PostgreSQLInstance: an operator-given uri is kept; a bad port is refused', () => {
    assert.equal(formatPostgreSQL({ host: 'h', username: 'u', password: 'p', database: 'd', uri: 'postgresql://x' }).uri, 'postgresql://x');
    assert.throws(() => formatPostgreSQL({ host: 'h', username: 'u', password: 'p', database: 'd', port: 'x' }), /port is "x"/);
  });
});
