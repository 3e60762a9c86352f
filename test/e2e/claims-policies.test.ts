/**
 * More of the claim lifecycle on real PostgreSQL: a shared server with 20 claims and its
 * capacity accounting, the Retain and Recycle rebind policies on the real server, and a crash
 * (SIGKILL of Conductor) in the middle of provisioning: after a restart there is exactly one
 * resource, one server process and one database, and the claim converges.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { startThrowawayServer, type ThrowawayServer } from '../../src/providers/local/postgresql/testing.js';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const claimsPath = (ns: string, name = '') => `/apis/storage.conductor.io/v1alpha1/namespaces/${ns}/postgresqlinstances${name ? `/${name}` : ''}`;

describe('rebind policies, capacity and crashes', () => {
  let pgServer: ThrowawayServer;
  let server: ServerProcess;
  let api: ApiHandle;
  const dataDir = tempDir();

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => (await api.request('GET', path)).json();
  const boundAndReady = (ns: string, name: string) =>
    eventually(async () => {
      const c = await get(claimsPath(ns, name));
      return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
    }, `${ns}/${name} Bound and Ready`);
  const secretOf = async (ns: string, name: string) => {
    const s = await get(`/api/v1/namespaces/${ns}/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const sql = async (conn: Record<string, string | number | undefined>, text: string) => {
    const c = new pg.Client({
      host: String(conn.host),
      port: Number(conn.port),
      user: String(conn.username),
      password: String(conn.password),
      database: String(conn.database),
    });
    await c.connect();
    try {
      return (await c.query(text)).rows;
    } finally {
      await c.end();
    }
  };
  const admin = (text: string) =>
    sql({ host: pgServer.host, port: pgServer.port, username: pgServer.username, password: pgServer.password, database: 'postgres' }, text);
  const sharedServer = (name: string, policy: string, extra = '') => `apiVersion: database.local.conductor.io/v1alpha1
kind: PostgreSQLServer
metadata: {name: ${name}, namespace: ${SYS}, labels: {pool: ${name}}}
spec:
  host: ${pgServer.host}
  port: ${pgServer.port}
  adminCredentialsSecretRef: {name: pg-admin}
  rebindPolicy: ${policy}
  sharing: {mode: Shared, maxClaims: 20}
  capabilities: {capacity: {storage: 100Gi}}
${extra}`;
  const claim = (name: string, pool: string, storage = '1Gi') => `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: ${name}, namespace: team}
spec:
  requirements: {capacity: {storage: ${storage}}}
  resourceSelector: {matchLabels: {pool: ${pool}}}
`;

  before(async () => {
    pgServer = await startThrowawayServer();
    server = await startServer({ dataDir, env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/postgresqlinstances.storage.conductor.io', '--timeout=30s']);
    await kubectlOk(server, ['create', 'namespace', 'team']);
    await kubectlOk(server, [
      'create',
      'secret',
      'generic',
      'pg-admin',
      '-n',
      SYS,
      `--from-literal=username=${pgServer.username}`,
      `--from-literal=password=${pgServer.password}`,
    ]);
  });
  after(async () => {
    api?.close();
    await server?.stop();
    removeDir(dataDir);
    await pgServer?.stop();
  });

  test('a shared server takes 20 claims, each with its own database, and accounts for their capacity', async () => {
    await apply(sharedServer('big-shared', 'Delete'));
    const names = Array.from({ length: 20 }, (_, i) => `svc-${i}`);
    await apply(names.map((n) => claim(n, 'big-shared', '4Gi')).join('---\n'));
    const claims = await Promise.all(names.map((n) => boundAndReady('team', n)));
    assert.ok(claims.every((c) => c.status.resourceRef.name === 'big-shared'));
    const secrets = await Promise.all(names.map((n) => secretOf('team', n)));
    assert.equal(new Set(secrets.map((s) => s.database)).size, 20, 'twenty distinct databases');
    assert.equal(new Set(secrets.map((s) => s.username)).size, 20, 'twenty distinct roles');
    await Promise.all(secrets.slice(0, 5).map((s) => sql(s, 'SELECT 1')));
    const resource = await get(`/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/postgresqlservers/big-shared`);
    assert.equal(resource.status.bindings.length, 20);
    assert.equal(resource.status.allocatable.storage, '20Gi', '100Gi minus 20 × 4Gi');
    // The 21st claim does not fit (maxClaims 20) and says so.
    await apply(claim('svc-20', 'big-shared', '1Gi'));
    const why = await eventually(async () => {
      const c = await get(claimsPath('team', 'svc-20'));
      return c.status?.conditions?.find((x: any) => x.type === 'Scheduled' && x.status === 'False');
    }, 'the 21st claim to be unschedulable');
    assert.match(why.message, /^0\/\d+ candidates/);
    await kubectlOk(server, ['delete', 'postgresqlinstances', '--all', '-n', 'team', '--timeout=120s']);
    const left = await admin(`SELECT count(*)::int AS n FROM pg_database WHERE datname = ANY(ARRAY[${secrets.map((s) => `'${s.database}'`).join(',')}])`);
    assert.equal(left[0].n, 0, 'Delete drops every claim database');
  });

  test('Retain keeps the database and its data; Recycle empties it', async () => {
    await apply(sharedServer('keeper', 'Retain'));
    await apply(claim('kept', 'keeper'));
    await boundAndReady('team', 'kept');
    const kept = await secretOf('team', 'kept');
    await sql(kept, "CREATE TABLE notes (t text); INSERT INTO notes VALUES ('still here')");
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'kept', '-n', 'team', '--timeout=60s']);
    const rows = await sql({ ...kept, username: pgServer.username, password: pgServer.password }, 'SELECT t FROM notes');
    assert.equal(rows[0].t, 'still here', 'Retain keeps the data');

    await apply(sharedServer('recycler', 'Recycle'));
    await apply(claim('recycled', 'recycler'));
    await boundAndReady('team', 'recycled');
    const rec = await secretOf('team', 'recycled');
    await sql(rec, 'CREATE TABLE junk (x int); INSERT INTO junk VALUES (1)');
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'recycled', '-n', 'team', '--timeout=60s']);
    const tables = await sql(
      { ...rec, username: pgServer.username, password: pgServer.password },
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'",
    );
    assert.equal(tables[0].n, 0, 'Recycle empties the database');
  });

  test('SIGKILL during provisioning, then restart: one resource, one server process, one claim, all converged', async () => {
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: dedicated, namespace: ${SYS}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template:
  apiVersion: database.local.conductor.io/v1alpha1
  kind: LocalPostgreSQLInstance
  spec: {}
`);
    await apply(`apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: crashy, namespace: team}
spec: {resourceClass: dedicated}
`);
    // Kill Conductor as soon as the resource exists: provisioning is under way.
    const listResources = async () =>
      (await get(`/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localpostgresqlinstances?labelSelector=conductor.io%2Fclaim-name%3Dcrashy`))
        .items as any[];
    await eventually(async () => ((await listResources()).length > 0 ? true : undefined), 'the provisioned resource to appear', 30_000);
    await server.kill();
    api.close();
    server = await startServer({ dataDir, env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    const c = await boundAndReady('team', 'crashy');
    const resources = await listResources();
    assert.equal(resources.length, 1, 'exactly one resource for the claim');
    assert.equal(c.status.resourceRef.name, resources[0].metadata.name);
    const details = await secretOf('team', 'crashy');
    await sql(details, 'SELECT 1');
    const instanceDir = resources[0].status?.atProvider?.dataDirectory as string | undefined;
    const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => /postgres(\s|$)/.test(l) && l.includes(' -D ') && (instanceDir ? l.includes(instanceDir) : l.includes(resources[0].metadata.name)));
    assert.equal(processes.length, 1, `exactly one postmaster for the instance:\n${processes.join('\n')}`);
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'crashy', '-n', 'team', '--timeout=60s']);
  });
});
