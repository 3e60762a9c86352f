/**
 * Bad input for the cloud kinds that have no emulator here (issue 14: ElastiCache, Cloud SQL,
 * Memorystore, Cloud Storage, Azure PostgreSQL and MySQL flexible servers, Azure Cache for
 * Redis), through kubectl against a Conductor server, table-driven, with no cloud and no fake
 * reached (mocked: nothing answers for the clouds; every case is refused before a call):
 * - a region the cloud does not have and a size the service does not offer are refused at
 *   admission with a 422 naming the field;
 * - a credentials Secret missing a key or malformed (a service-account key JSON that does not
 *   parse) leaves the Provider Ready=False (InvalidCredentials) and each kind's resource
 *   Synced=False (CannotConnect) naming the key — no crash, and no value of the Secret in any
 *   condition or Event; deleting those resources under rebindPolicy Delete is not blocked by
 *   the broken credentials (nothing was ever created: Event ReleasedWithoutProvider).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';
import { credentialsSecretYaml, providerReady, providerYaml, type ProviderSpec } from '../support/cloud-provider.js';

const NS = 'conductor-system';
const ns = ['-n', NS];

/** A resource of `kind` with `forProvider`, as YAML. */
const resource = (apiVersion: string, kind: string, name: string, provider: string, forProvider: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion,
    kind,
    metadata: { name, namespace: NS },
    spec: { providerRef: { name: provider }, rebindPolicy: 'Delete', forProvider },
  });

const ELASTICACHE = ['cache.aws.conductor.io/v1alpha1', 'ElastiCacheReplicationGroup', 'elasticachereplicationgroup'] as const;
const CLOUDSQL = ['database.gcp.conductor.io/v1alpha1', 'CloudSQLInstance', 'cloudsqlinstance'] as const;
const MEMORYSTORE = ['cache.gcp.conductor.io/v1alpha1', 'MemorystoreInstance', 'memorystoreinstance'] as const;
const GCS = ['storage.gcp.conductor.io/v1alpha1', 'GCSBucket', 'gcsbucket'] as const;
const AZURE_PG = ['database.azure.conductor.io/v1alpha1', 'PostgreSQLFlexibleServer', 'postgresqlflexibleserver'] as const;
const AZURE_MYSQL = ['database.azure.conductor.io/v1alpha1', 'MySQLFlexibleServer', 'mysqlflexibleserver'] as const;
const AZURE_REDIS = ['cache.azure.conductor.io/v1alpha1', 'RedisCache', 'rediscache'] as const;

/** Valid settings of each kind (apart from the one a case breaks). */
const valid = {
  ElastiCacheReplicationGroup: { region: 'us-east-1', nodeType: 'cache.t4g.small' },
  CloudSQLInstance: { region: 'us-central1', engine: 'POSTGRES', tier: 'db-custom-1-3840' },
  MemorystoreInstance: { region: 'us-central1', tier: 'BASIC', memorySizeGb: 1 },
  GCSBucket: { region: 'us-east1', storageClass: 'STANDARD' },
  PostgreSQLFlexibleServer: { location: 'eastus', skuName: 'Standard_B1ms' },
  MySQLFlexibleServer: { location: 'eastus', skuName: 'Standard_B1ms' },
  RedisCache: { location: 'eastus', sku: 'Basic', capacity: 0 },
} as const;

const providers = { ElastiCacheReplicationGroup: 'aws', CloudSQLInstance: 'gcp', MemorystoreInstance: 'gcp', GCSBucket: 'gcp' } as Record<string, string>;
const providerOf = (kind: string) => providers[kind] ?? 'azure';

describe('cloud kinds without an emulator: bad input is a 422 or a clear condition, never a crash or a secret (mocked: no cloud reached)', () => {
  const suite = serverForSuite();

  test('setup: the kinds are served', async () => {
    await kubectlOk(suite.server, [
      'wait',
      '--for=condition=Established',
      'crd/elasticachereplicationgroups.cache.aws.conductor.io',
      'crd/cloudsqlinstances.database.gcp.conductor.io',
      'crd/memorystoreinstances.cache.gcp.conductor.io',
      'crd/gcsbuckets.storage.gcp.conductor.io',
      'crd/postgresqlflexibleservers.database.azure.conductor.io',
      'crd/mysqlflexibleservers.database.azure.conductor.io',
      'crd/rediscaches.cache.azure.conductor.io',
      '--timeout=60s',
    ]);
  });

  const refused: { kind: readonly [string, keyof typeof valid, string]; what: string; change: Record<string, unknown>; field: RegExp }[] = [
    {
      kind: ELASTICACHE,
      what: 'a region AWS does not have',
      change: { region: 'moon-east-1' },
      field: /spec\.forProvider\.region: Unsupported value: "moon-east-1"/,
    },
    {
      kind: ELASTICACHE,
      what: 'a node type ElastiCache does not offer',
      change: { nodeType: 'cache.z9.huge' },
      field: /spec\.forProvider\.nodeType: Unsupported value/,
    },
    { kind: CLOUDSQL, what: 'a region Google does not have', change: { region: 'moon-central1' }, field: /spec\.forProvider\.region: Unsupported value/ },
    { kind: CLOUDSQL, what: 'a tier Cloud SQL does not offer', change: { tier: 'db-enormous-1' }, field: /spec\.forProvider\.tier/ },
    { kind: MEMORYSTORE, what: 'a region Google does not have', change: { region: 'moon-central1' }, field: /spec\.forProvider\.region: Unsupported value/ },
    { kind: MEMORYSTORE, what: 'more memory than Memorystore offers', change: { memorySizeGb: 301 }, field: /spec\.forProvider\.memorySizeGb/ },
    { kind: MEMORYSTORE, what: 'a tier Memorystore does not offer', change: { tier: 'PREMIUM' }, field: /spec\.forProvider\.tier: Unsupported value/ },
    { kind: GCS, what: 'a region Google does not have', change: { region: 'moon-central1' }, field: /spec\.forProvider\.region: Unsupported value/ },
    {
      kind: GCS,
      what: 'a storage class Cloud Storage does not offer',
      change: { storageClass: 'GLACIER' },
      field: /spec\.forProvider\.storageClass: Unsupported value/,
    },
    { kind: AZURE_PG, what: 'a location Azure does not have', change: { location: 'moon' }, field: /spec\.forProvider\.location: Unsupported value: "moon"/ },
    { kind: AZURE_PG, what: 'a SKU the service does not offer', change: { skuName: 'Standard_Z9' }, field: /spec\.forProvider\.skuName: Unsupported value/ },
    { kind: AZURE_MYSQL, what: 'a location Azure does not have', change: { location: 'moon' }, field: /spec\.forProvider\.location: Unsupported value/ },
    { kind: AZURE_MYSQL, what: 'a SKU the service does not offer', change: { skuName: 'Standard_Z9' }, field: /spec\.forProvider\.skuName: Unsupported value/ },
    { kind: AZURE_REDIS, what: 'a location Azure does not have', change: { location: 'moon' }, field: /spec\.forProvider\.location: Unsupported value/ },
    { kind: AZURE_REDIS, what: 'a SKU the service does not offer', change: { sku: 'Platinum' }, field: /spec\.forProvider\.sku: Unsupported value/ },
  ];
  for (const c of refused) {
    test(`${c.kind[1]}: ${c.what} is refused at admission, naming the field`, async () => {
      const [apiVersion, kind] = c.kind;
      const r = await kubectl(suite.server, ['apply', '-f', '-'], {
        input: resource(apiVersion, kind, 'refused', providerOf(kind), { ...valid[kind], ...c.change }),
      });
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stderr, /is invalid/);
      assert.match(r.stderr, c.field);
    });
  }

  // Values that must never show: an access key id, a private key's body, a client id.
  const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
  const PRIVATE_KEY_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7secretbody';
  const AZURE_CLIENT = '0b9e5c2e-4b8f-4bd6-9c36-3f0c7a1d2e11';
  const broken: {
    provider: string;
    spec: ProviderSpec;
    secret: Record<string, string>;
    key: RegExp;
    kinds: (readonly [string, keyof typeof valid, string])[];
  }[] = [
    {
      provider: 'aws',
      spec: { region: 'us-east-1' },
      secret: { accessKeyId: AWS_KEY_ID },
      key: /has accessKeyId but no secretAccessKey: add secretAccessKey/,
      kinds: [ELASTICACHE],
    },
    {
      provider: 'gcp',
      spec: { project: 'conductor-test', region: 'us-central1' },
      secret: { 'credentials.json': `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n${PRIVATE_KEY_BODY}` },
      key: /credentials\.json does not parse as JSON/,
      kinds: [CLOUDSQL, MEMORYSTORE, GCS],
    },
    {
      provider: 'azure',
      spec: { region: 'eastus' },
      secret: {
        tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
        clientId: AZURE_CLIENT,
        subscriptionId: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
        resourceGroup: 'shop',
      },
      key: /add clientSecret/,
      kinds: [AZURE_PG, AZURE_MYSQL, AZURE_REDIS],
    },
  ];

  test('credentials missing a key or malformed: the Provider and every kind’s resource say which key, quoting no value (table)', async () => {
    const s = suite.server;
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: broken
        .flatMap((b) => [
          credentialsSecretYaml(`${b.provider}-broken`, b.secret),
          providerYaml(b.provider, b.provider, `${b.provider}-broken`, b.spec),
          ...b.kinds.map(([apiVersion, kind]) => resource(apiVersion, kind, `broken-${kind.toLowerCase()}`, b.provider, valid[kind])),
        ])
        .join('\n---\n'),
    });
    for (const b of broken) {
      const ready = await providerReady(s, b.provider, 'False');
      assert.equal(ready.reason, 'InvalidCredentials', ready.message);
      assert.match(ready.message ?? '', b.key);
      for (const [, kind, singular] of b.kinds) {
        const name = `broken-${kind.toLowerCase()}`;
        const synced = await eventually(
          async () => {
            const r = JSON.parse(await kubectlOk(s, ['get', singular, name, ...ns, '-o', 'json']));
            const c = (r.status?.conditions ?? []).find((x: any) => x.type === 'Synced');
            return c?.status === 'False' ? c : undefined;
          },
          `${kind} ${name} Synced=False`,
          60_000,
        );
        assert.equal(synced.reason, 'CannotConnect', `${kind}: ${synced.message}`);
        assert.match(synced.message, b.key, kind);
        const said = (await kubectlOk(s, ['get', singular, name, ...ns, '-o', 'json'])) + (await kubectlOk(s, ['describe', singular, name, ...ns]));
        for (const value of [AWS_KEY_ID, PRIVATE_KEY_BODY, AZURE_CLIENT]) assert.ok(!said.includes(value), `${kind} quotes a value of its Secret`);
      }
    }
    // Nothing crashed: the server still answers. Deleting them under rebindPolicy Delete is not
    // blocked by the broken credentials: none ever connected, so none recorded a create, and
    // each goes with a Normal ReleasedWithoutProvider Event (quoting no value of its Secret).
    const objects = broken.flatMap((b) => b.kinds.map(([, kind, singular]) => `${singular}/broken-${kind.toLowerCase()}`));
    await kubectlOk(s, ['delete', ...objects, ...ns, '--wait=true', '--timeout=60s']);
    const events = JSON.parse(await kubectlOk(s, ['get', 'events', ...ns, '-o', 'json'])).items as {
      reason?: string;
      type?: string;
      message?: string;
      involvedObject?: { kind?: string; name?: string };
    }[];
    for (const b of broken) {
      for (const [, kind] of b.kinds) {
        const released = events.find(
          (e) => e.reason === 'ReleasedWithoutProvider' && e.involvedObject?.kind === kind && e.involvedObject.name === `broken-${kind.toLowerCase()}`,
        );
        assert.ok(released, `${kind}: a ReleasedWithoutProvider Event`);
        assert.equal(released.type, 'Normal');
        assert.match(released.message ?? '', /no create was ever recorded for this resource, so nothing external was made: deleted the object/);
        assert.match(released.message ?? '', b.key, `${kind}: the Event says why the provider cannot be reached`);
        for (const value of [AWS_KEY_ID, PRIVATE_KEY_BODY, AZURE_CLIENT])
          assert.ok(!(released.message ?? '').includes(value), `${kind}'s Event quotes a value of its Secret`);
      }
    }
    await kubectlOk(s, ['delete', 'provider', ...broken.map((b) => b.provider), ...ns, '--wait=true', '--timeout=60s']);
  });
});
