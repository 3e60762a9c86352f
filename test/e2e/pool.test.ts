/**
 * Warm pools end to end, on real PostgreSQL: a ResourceClass whose template is a dedicated
 * LocalPostgreSQLInstance keeps one unbound server running (minFree 1); a claim of the
 * class's profile binds to that server, already Available, instead of waiting for a new one;
 * the pool refills; releasing the claim (Delete) removes its server and the pool stays at
 * one free member.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const CLASS = 'warm-pg';

describe('warm pool of dedicated PostgreSQL servers', () => {
  let server: ServerProcess;
  let api: ApiHandle;

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const memberPath = (name = '') => `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localpostgresqlinstances${name ? `/${name}` : ''}`;
  const getClaim = async (name: string) => (await api.request('GET', `/apis/storage.conductor.io/v1alpha1/namespaces/app/postgresqlinstances/${name}`)).json();
  const members = async (): Promise<any[]> =>
    (await api.request('GET', `${memberPath()}?labelSelector=${encodeURIComponent(`conductor.io/resource-class=${SYS}.${CLASS}`)}`)).json().items;
  const isReady = (o: any) => o.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
  /** The free (unbound, Available, Ready, not deleting) members, by name. */
  const freeMembers = async () =>
    (await members())
      .filter((m) => !m.spec.claimRef && !m.metadata.deletionTimestamp && m.status?.phase === 'Available' && isReady(m))
      .map((m) => m.metadata.name as string)
      .sort();

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/localpostgresqlinstances.database.local.conductor.io', '--timeout=30s']);
    await kubectlOk(server, ['create', 'namespace', 'app']);
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
---
apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${CLASS}, namespace: ${SYS}}
resourceClass: warm
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
providerRef: {name: local}
capabilities: {capacity: {storage: 20Gi}, region: us-east-1}
pool: {minFree: 1, maxFree: 1}
template:
  apiVersion: database.local.conductor.io/v1alpha1
  kind: LocalPostgreSQLInstance
  spec: {}
`);
  });

  after(async () => {
    api?.close();
    // SIGTERM: the server stops the dedicated servers it runs before exiting.
    await server?.stop();
    if (server) {
      removeDir(server.dataDir);
      // As root, dedicated servers keep their data outside the data dir, in a directory named
      // after it (src/controllers/conductor.ts, instancesDirFor).
      if (process.getuid?.() === 0 && !process.env.CONDUCTOR_POSTGRES_INSTANCES_DIR) {
        removeDir(join('/var/tmp', `conductor-postgres-${createHash('sha256').update(resolve(server.dataDir)).digest('hex').slice(0, 12)}`));
      }
    }
  });

  test('the pool fills to minFree with one Available, unbound dedicated server', async () => {
    const free = await eventually(async () => {
      const f = await freeMembers();
      return f.length === 1 ? f : undefined;
    }, 'one free pool member');
    assert.deepEqual(free, [`${CLASS}-pool-0`]);
    const table = await kubectlOk(server, ['get', 'localpostgresqlinstances', '-n', SYS, '-l', 'conductor.io/pool=true']);
    assert.match(table, new RegExp(`^${CLASS}-pool-0\\s`, 'm'));
    const describe = await kubectlOk(server, ['describe', 'resourceclass', CLASS, '-n', SYS]);
    assert.match(describe, /PoolScaledUp/);
  });

  test('a claim of the profile binds to the waiting server (no new server), and its Secret connects', async () => {
    const [member] = await freeMembers();
    assert.ok(member, 'a free member before the claim exists');
    await apply(`apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: fast-db, namespace: app}
spec:
  resourceClass: warm
  requirements: {capacity: {storage: 5Gi}}
`);
    const claim = await eventually(async () => {
      const c = await getClaim('fast-db');
      const ready = c.status?.conditions?.find((x: any) => x.type === 'Ready');
      return c.status?.phase === 'Bound' && ready?.status === 'True' ? c : undefined;
    }, 'the claim Bound and Ready');
    // Bound to the member that was already running: nothing was provisioned for it. (How fast
    // binding is belongs to `npm run bench` — its `claims` figures — not to this test.)
    assert.equal(claim.status.resourceRef.name, member, 'bound to the pool member, not a new server');
    assert.deepEqual(claim.status.classRef, { namespace: SYS, name: CLASS });
    const secret = (await api.request('GET', '/api/v1/namespaces/app/secrets/fast-db')).json();
    const d = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    const c = new pg.Client({ host: d.host, port: Number(d.port), user: d.username, password: d.password, database: d.database });
    await c.connect();
    try {
      assert.equal((await c.query('SELECT 41 + 1 AS x')).rows[0].x, 42);
    } finally {
      await c.end();
    }
  });

  test('the pool refills to one free server', async () => {
    const free = await eventually(async () => {
      const f = await freeMembers();
      return f.length === 1 && f[0] !== `${CLASS}-pool-0` ? f : undefined;
    }, 'a new free pool member');
    assert.deepEqual(free, [`${CLASS}-pool-1`]);
  });

  test('releasing the claim deletes its server (Delete), and the pool stays at one free', async () => {
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'fast-db', '-n', 'app', '--timeout=60s']);
    await eventually(
      async () => ((await api.request('GET', memberPath(`${CLASS}-pool-0`))).status === 404 ? true : undefined),
      'the released server to be deleted',
    );
    // Something that must NOT happen (the pool making another member although one is free)
    // takes a wait after the deletion the pool reacts to: one second of its reconciles.
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(
      (await members()).map((m) => m.metadata.name),
      [`${CLASS}-pool-1`],
    );
    assert.deepEqual(await freeMembers(), [`${CLASS}-pool-1`]);
  });
});
