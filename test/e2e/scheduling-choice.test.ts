/**
 * Multi-implementation scheduling, visibly: two ResourceClasses serve the same profile
 * (`standard`) for PostgreSQLInstance claims with different implementations, regions and
 * cost tiers — dedicated local PostgreSQL servers in north-america at `standard` cost, and
 * in-memory databases in europe on the `free-tier`. The scheduler's choice follows each
 * claim's requirements, and `kubectl describe` of the claim shows why: what fit, what was
 * chosen with its scores, and what was rejected for which reason.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const NS = 'shop';

describe("the scheduler chooses between implementations by the claim's requirements", () => {
  let server: ServerProcess;
  let api: ApiHandle;
  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const claimPath = (name: string) => `/apis/storage.conductor.io/v1alpha1/namespaces/${NS}/postgresqlinstances/${name}`;
  const readyClaim = (name: string) =>
    eventually(
      async () => {
        const c = (await api.request('GET', claimPath(name))).json();
        const ready = c.status?.conditions?.find((x: { type: string }) => x.type === 'Ready');
        return c.status?.phase === 'Bound' && ready?.status === 'True' ? c : undefined;
      },
      `claim ${NS}/${name} Bound and Ready`,
      120_000,
    );
  const claim = (name: string, requirements: string) =>
    apply(`apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: ${name}, namespace: ${NS}}
spec:
  version: ">= 14"
  resourceClass: standard
  requirements: ${requirements}
`);

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, [
      'wait',
      '--for=condition=Established',
      'crd/resourceclasses.core.conductor.io',
      'crd/postgresqlinstances.storage.conductor.io',
      '--timeout=30s',
    ]);
    await kubectlOk(server, ['create', 'namespace', NS]);
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: pg-north-america, namespace: ${SYS}}
resourceClass: standard
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
capabilities: {capacity: {storage: 50Gi}, region: us-east-1, cost: standard}
template:
  apiVersion: database.local.conductor.io/v1alpha1
  kind: LocalPostgreSQLInstance
  spec: {}
---
apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: memory-europe, namespace: ${SYS}}
resourceClass: standard
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
capabilities: {capacity: {storage: 50Gi}, region: eu-west-1, cost: free-tier}
template:
  apiVersion: database.memory.conductor.io/v1alpha1
  kind: MemoryDatabase
  spec: {version: "16.4"}
`);
  });

  after(async () => {
    // Deleting the claims removes what was provisioned for them (Delete), local servers included.
    if (server) {
      await kubectlOk(server, ['delete', 'postgresqlinstances', '--all', '-n', NS, '--wait=true', '--timeout=90s']).catch(() => undefined);
      await server.stop();
      removeDir(server.dataDir);
    }
  });

  test('a claim in north-america gets a dedicated PostgreSQL server there, and describe says why', async () => {
    await claim('orders', '{region: north-america}');
    const c = await readyClaim('orders');
    assert.equal(c.status.resourceRef.kind, 'LocalPostgreSQLInstance');
    assert.deepEqual(c.status.classRef, { namespace: SYS, name: 'pg-north-america' });

    const describe = await kubectlOk(server, ['describe', 'postgresqlinstance', 'orders', '-n', NS]);
    assert.match(describe, /1\/2 candidates fit; chose class conductor-system\/pg-north-america \(creates LocalPostgreSQLInstance\)/);
    assert.match(describe, /rejected: 1 region/, 'the European class is named as rejected for its region');

    // The choice is real: the Secret reaches a PostgreSQL server.
    const secret = (await api.request('GET', `/api/v1/namespaces/${NS}/secrets/orders`)).json();
    const d = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    const client = new pg.Client({ connectionString: d.uri });
    await client.connect();
    try {
      const rows = (await client.query('select 1 as one')).rows;
      assert.equal(rows[0].one, 1);
    } finally {
      await client.end();
    }
  });

  test('a claim asking for the free tier gets the in-memory database in europe', async () => {
    await claim('carts', '{cost: free-tier}');
    const c = await readyClaim('carts');
    assert.equal(c.status.resourceRef.kind, 'MemoryDatabase');
    assert.deepEqual(c.status.classRef, { namespace: SYS, name: 'memory-europe' });
    const describe = await kubectlOk(server, ['describe', 'postgresqlinstance', 'carts', '-n', NS]);
    assert.match(describe, /chose class conductor-system\/memory-europe/);
    assert.match(describe, /rejected: .*1 cost above free-tier/, 'the standard-cost class is named as rejected for its cost');
    // (the server provisioned for the first claim is a candidate too, already bound)
  });

  test('a claim with no preference gets the cheaper of the two that fit, and the scores say so', async () => {
    await claim('sessions', '{}');
    const c = await readyClaim('sessions');
    assert.deepEqual(c.status.classRef, { namespace: SYS, name: 'memory-europe' });
    const describe = await kubectlOk(server, ['describe', 'postgresqlinstance', 'sessions', '-n', NS]);
    assert.match(
      describe,
      /2\/\d+ candidates fit; chose class conductor-system\/memory-europe/,
      'both classes fit; the resources made for the first claims are taken',
    );
    assert.match(describe, /LowestCost/);
  });
  test('a class asking for WaitForFirstConsumer is accepted, and kubectl warns that it behaves as Immediate', async () => {
    const yaml = (mode: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: late, namespace: conductor-system}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
bindingMode: ${mode}
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
`;
    const late = await kubectl(server, ['apply', '-f', '-'], { input: yaml('WaitForFirstConsumer') });
    assert.equal(late.code, 0, late.stderr);
    assert.match(
      late.stderr,
      /Warning: bindingMode WaitForFirstConsumer is not implemented yet: claims of this class are provisioned as soon as they are scheduled, as with Immediate/,
    );
    const immediate = await kubectl(server, ['apply', '-f', '-'], { input: yaml('Immediate') });
    assert.equal(immediate.code, 0, immediate.stderr);
    assert.doesNotMatch(immediate.stderr, /Warning/);
    await kubectlOk(server, ['delete', 'resourceclass', 'late', '-n', 'conductor-system']);
  });
});
