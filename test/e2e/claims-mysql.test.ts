/**
 * MySQLInstance claims end to end on real MariaDB servers: a registered shared MySQLServer
 * (a database and user per claim) and dedicated LocalMySQLInstance servers (from a class and
 * static). Each shows binding, a connection Secret that works with mysql2 using only its keys,
 * the Delete, Retain and Recycle policies acting on the real server, and drift repaired: a
 * claim's database or user dropped by hand, a dedicated server process killed.
 */
import { resolveServerRunAs } from '../../src/providers/local/process/run-as.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { startThrowawayMariaDb, type ThrowawayMariaDb } from '../../src/providers/local/mysql/testing.js';
import { kubectlOk, serverForSuite } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const NS = 'shop';
const LOCAL = '/apis/database.local.conductor.io/v1alpha1/namespaces/conductor-system';
type Details = Record<string, string>;

describe('MySQLInstance claims on real MariaDB', () => {
  let shared: ThrowawayMariaDb;
  let instancesDir: string;
  // Before the suite's server starts (hooks run in the order they are declared).
  before(async () => {
    shared = await startThrowawayMariaDb();
    instancesDir = await mkdtemp(join(tmpdir(), 'conductor-e2e-mysql-'));
    process.env.CONDUCTOR_MARIADB_INSTANCES_DIR = instancesDir; // inherited by the Conductor server
  });
  const suite = serverForSuite({
    env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' },
    setup: async ({ server }) => {
      await kubectlOk(server, [
        'wait',
        '--for=condition=Established',
        'crd/mysqlinstances.storage.conductor.io',
        'crd/mysqlservers.database.local.conductor.io',
        '--timeout=30s',
      ]);
      await kubectlOk(server, ['create', 'namespace', NS]);
      await kubectlOk(server, [
        'create',
        'secret',
        'generic',
        'mysql-admin',
        '-n',
        SYS,
        `--from-literal=username=${shared.username}`,
        `--from-literal=password=${shared.password}`,
      ]);
      await apply(`apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
${['Delete', 'Retain', 'Recycle']
  .map(
    (policy) => `---
apiVersion: database.local.conductor.io/v1alpha1
kind: MySQLServer
metadata: {name: shared-${policy.toLowerCase()}, namespace: ${SYS}, labels: {pool: ${policy.toLowerCase()}}}
spec:
  host: ${shared.host}
  port: ${shared.port}
  adminCredentialsSecretRef: {name: mysql-admin}
  version: "${shared.binaries.version}"
  providerRef: {name: local}
  rebindPolicy: ${policy}
  sharing: {mode: Shared, maxClaims: 10}
  capabilities: {capacity: {storage: 100Gi}}
`,
  )
  .join('')}`);
    },
  });

  const apply = (yaml: string) => kubectlOk(suite.server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => (await suite.api.request('GET', path)).json();
  const claimPath = (name: string) => `/apis/storage.conductor.io/v1alpha1/namespaces/${NS}/mysqlinstances/${name}`;
  const bound = (name: string) =>
    eventually(async () => {
      const c = await get(claimPath(name));
      if (c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True')) return c;
      throw new Error(`claim status: ${JSON.stringify(c.status?.conditions ?? [])}`);
    }, `claim ${name} Bound and Ready`);
  const secret = async (ns: string, name: string): Promise<Details> => {
    const s = await get(`/api/v1/namespaces/${ns}/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  /** Runs SQL with only the Secret's keys: its uri, as an application would. */
  const sql = async (d: Details, text: string) => {
    const c = await mysql.createConnection(d.uri);
    try {
      return (await c.query(text))[0] as Record<string, unknown>[];
    } finally {
      await c.end();
    }
  };
  const admin = async (text: string, params: unknown[] = []) => {
    const c = await mysql.createConnection({ host: shared.host, port: shared.port, user: shared.username, password: shared.password });
    try {
      return (await c.query(text, params))[0] as Record<string, unknown>[];
    } finally {
      await c.end();
    }
  };
  const claim = (name: string, spec: string) => `apiVersion: storage.conductor.io/v1alpha1
kind: MySQLInstance
metadata: {name: ${name}, namespace: ${NS}}
spec: ${spec}
`;
  const deleteClaim = (name: string) => kubectlOk(suite.server, ['delete', 'mysqlinstance', name, '-n', NS, '--timeout=60s']);
  const schemaExists = async (name: string) => (await admin('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name])).length > 0;
  const userExists = async (name: string) => (await admin("SELECT 1 FROM mysql.user WHERE User = ? AND Host = '%'", [name])).length > 0;

  after(async () => {
    await shared?.stop();
    // Stop any dedicated server a failed test left behind before removing its files.
    const { MariaDbServers, resolveMariaDbBinaries } = await import('../../src/providers/local/mysql/index.js');
    const servers = new MariaDbServers({ root: instancesDir, binaries: await resolveMariaDbBinaries(), runAs: await resolveServerRunAs('mariadb') });
    for (const { dir } of await servers.list()) await servers.remove(dir).catch(() => {});
    await rm(instancesDir, { recursive: true, force: true });
  });

  test('a claim binds to the shared server; its Secret logs in; Delete drops its database and user', async () => {
    await apply(claim('orders', `{version: ">= 5.6", requirements: {capacity: {storage: 5Gi}}, resourceSelector: {matchLabels: {pool: delete}}}`));
    const c = await bound('orders');
    assert.equal(c.status.resourceRef.name, 'shared-delete');
    const d = await secret(NS, 'orders');
    assert.deepEqual(Object.keys(d).sort(), ['database', 'host', 'password', 'port', 'uri', 'username']);
    assert.match(d.uri, /^mysql:\/\//);
    assert.deepEqual(await sql(d, 'SELECT DATABASE() AS db'), [{ db: d.database }]);
    await sql(d, 'CREATE TABLE orders (id INT)');
    assert.match(await kubectlOk(suite.server, ['get', 'mysqlinstances', '-n', NS]), /^orders\s+Bound\s+shared-delete\s+/m);
    await deleteClaim('orders');
    assert.equal(await schemaExists(d.database), false, 'Delete drops the database');
    assert.equal(await userExists(d.username), false, 'Delete drops the user');
  });

  test('drift on the shared server: a dropped database, then a dropped user and database, come back and the unchanged Secret works', async () => {
    await apply(claim('drifty', `{resourceSelector: {matchLabels: {pool: delete}}}`));
    await bound('drifty');
    const d = await secret(NS, 'drifty');
    await admin(`DROP DATABASE \`${d.database}\``);
    await eventually(async () => ((await schemaExists(d.database)) ? true : undefined), 'the dropped database to be recreated', 30_000);
    await eventually(async () => (await sql(d, 'SELECT 1 AS one'))[0]?.one === 1, 'the unchanged Secret to work again', 30_000);

    // The user too: it is recreated with the password the claim's Secret holds (derived, not
    // stored), whether an observation falls between the two statements or after both.
    await admin(`DROP DATABASE \`${d.database}\``);
    await admin(`DROP USER '${d.username}'@'%'`);
    await eventually(
      async () => {
        try {
          return (await sql(d, 'SELECT DATABASE() AS db'))[0]?.db === d.database ? true : undefined;
        } catch {
          return undefined;
        }
      },
      'the unchanged Secret to reach its recreated database',
      30_000,
    );
    assert.ok(await userExists(d.username), 'the user is back');
    assert.deepEqual(await secret(NS, 'drifty'), d, 'the Secret did not change');
    await deleteClaim('drifty');
  });

  test("Retain keeps the claim's database and data; Recycle empties it and keeps the user", async () => {
    await apply(
      claim('kept', `{resourceSelector: {matchLabels: {pool: retain}}}`) + '---\n' + claim('recycled', `{resourceSelector: {matchLabels: {pool: recycle}}}`),
    );
    await Promise.all([bound('kept'), bound('recycled')]);
    const [kept, recycled] = await Promise.all([secret(NS, 'kept'), secret(NS, 'recycled')]);
    await sql(kept, 'CREATE TABLE notes (t TEXT)');
    await sql(kept, "INSERT INTO notes VALUES ('still here')");
    await sql(recycled, 'CREATE TABLE junk (x INT)');
    await Promise.all([deleteClaim('kept'), deleteClaim('recycled')]);
    assert.deepEqual(await sql(kept, 'SELECT t FROM notes'), [{ t: 'still here' }], 'Retain keeps the database, user and data');
    assert.equal(await schemaExists(recycled.database), true);
    assert.deepEqual(await admin(`SHOW TABLES FROM \`${recycled.database}\``), [], 'Recycle empties the database');
    assert.equal(await userExists(recycled.username), true, 'Recycle keeps the user');
  });

  test('a class provisions a dedicated MariaDB; a killed server is restarted; Delete removes it', async () => {
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: dedicated-mysql, namespace: ${SYS}}
supportedResources: [MySQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
providerRef: {name: local}
template:
  apiVersion: database.local.conductor.io/v1alpha1
  kind: LocalMySQLInstance
  spec: {}
`);
    await apply(claim('analytics', `{resourceClass: dedicated-mysql, version: ">= 5.6", databaseName: analytics, masterUsername: analyst}`));
    const c = await bound('analytics');
    assert.equal(c.status.resourceRef.kind, 'LocalMySQLInstance');
    const d = await secret(NS, 'analytics');
    assert.equal(d.username, 'analyst');
    assert.notEqual(Number(d.port), shared.port, 'a server of its own');
    await sql(d, 'CREATE TABLE facts (x INT)');
    await sql(d, 'INSERT INTO facts VALUES (42)');

    const resourcePath = `${LOCAL}/localmysqlinstances/${c.status.resourceRef.name}`;
    const pid = await eventually(async () => (await get(resourcePath)).status?.atProvider?.pid as number | undefined, 'the server pid in atProvider');
    process.kill(pid, 'SIGKILL');
    await eventually(
      async () => {
        const r = await get(resourcePath);
        return r.status?.atProvider?.pid !== pid && r.status?.atProvider?.running === true ? r : undefined;
      },
      'the server to be restarted',
      30_000,
    );
    assert.deepEqual(await sql(d, 'SELECT x FROM facts'), [{ x: 42 }], 'same port, password and data after the restart');

    await deleteClaim('analytics');
    await eventually(async () => ((await suite.api.request('GET', resourcePath)).status === 404 ? true : undefined), 'the provisioned resource to be deleted');
    await assert.rejects(sql(d, 'SELECT 1'), 'the dedicated server no longer answers');
  });

  test('static dedicated instances: Retain keeps the server and data; Recycle scrubs it and makes it Available', async () => {
    const instance = (name: string, policy: string) => `apiVersion: database.local.conductor.io/v1alpha1
kind: LocalMySQLInstance
metadata: {name: ${name}, namespace: ${SYS}}
spec: {rebindPolicy: ${policy}, capabilities: {capacity: {storage: 10Gi}}}
`;
    await apply(instance('keeper', 'Retain') + '---\n' + instance('recycler', 'Recycle'));
    await apply(claim('on-keeper', '{resourceName: keeper}') + '---\n' + claim('on-recycler', '{resourceName: recycler}'));
    await Promise.all([bound('on-keeper'), bound('on-recycler')]);
    const [keep, rec] = await Promise.all([secret(NS, 'on-keeper'), secret(NS, 'on-recycler')]);
    assert.equal(keep.database, 'app');
    await sql(keep, 'CREATE TABLE t (x INT)');
    await sql(rec, 'CREATE TABLE t (x INT)');
    await Promise.all([deleteClaim('on-keeper'), deleteClaim('on-recycler')]);

    const released = await eventually(async () => {
      const r = await get(`${LOCAL}/localmysqlinstances/keeper`);
      return r.status?.phase === 'Released' ? r : undefined;
    }, 'keeper to be Released');
    assert.equal(released.spec.claimRef.name, 'on-keeper');
    assert.equal((await sql(keep, 'SHOW TABLES')).length, 1, 'Retain keeps the server and its data');

    await eventually(async () => {
      const r = await get(`${LOCAL}/localmysqlinstances/recycler`);
      return r.status?.phase === 'Available' && !r.spec.claimRef ? r : undefined;
    }, 'recycler to be Available again');
    await assert.rejects(sql(rec, 'SELECT 1'), /denied/, "the released claim's password no longer works");
    const now = await eventually(async () => {
      const s = await secret(SYS, 'recycler-connection');
      return s.password !== rec.password ? s : undefined;
    }, "the resource's rotated credentials");
    assert.deepEqual(await sql(now, 'SHOW TABLES'), [], 'Recycle empties the database');
    await kubectlOk(suite.server, ['delete', 'localmysqlinstances', 'keeper', 'recycler', '-n', SYS, '--timeout=60s']);
  });
});
