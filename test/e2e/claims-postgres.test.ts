/**
 * The claim lifecycle end to end, on real PostgreSQL: an admin registers a shared server and
 * a class that provisions dedicated servers; developers' claims are scheduled, bound and
 * given a connection Secret that works with `pg`; unschedulable claims say why and bind by
 * themselves when a fitting resource appears; rebind policies act on the real server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startThrowawayServer, type ThrowawayServer } from '../../src/providers/local/postgresql/testing.js';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';

describe('claim lifecycle on real PostgreSQL', () => {
  let pgServer: ThrowawayServer;
  let server: ServerProcess;
  let api: ApiHandle;

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const claimPath = (ns: string, name = '') => `/apis/storage.conductor.io/v1alpha1/namespaces/${ns}/postgresqlinstances${name ? `/${name}` : ''}`;
  const getClaim = async (ns: string, name: string) => (await api.request('GET', claimPath(ns, name))).json();
  const boundClaim = (ns: string, name: string) =>
    eventually(async () => {
      const c = await getClaim(ns, name);
      const ready = c.status?.conditions?.find((x: any) => x.type === 'Ready');
      return c.status?.phase === 'Bound' && ready?.status === 'True' ? c : undefined;
    }, `claim ${ns}/${name} Bound and Ready`);
  const secretOf = async (ns: string, name: string) => {
    const s = (await api.request('GET', `/api/v1/namespaces/${ns}/secrets/${name}`)).json();
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const query = async (details: Record<string, string>, sql: string) => {
    const c = new pg.Client({ host: details.host, port: Number(details.port), user: details.username, password: details.password, database: details.database });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };
  const adminQuery = async (sql: string) => {
    const c = new pg.Client({ host: pgServer.host, port: pgServer.port, user: pgServer.username, password: pgServer.password, database: 'postgres' });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };

  before(async () => {
    pgServer = await startThrowawayServer();
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/postgresqlinstances.storage.conductor.io', '--timeout=30s']);
    await kubectlOk(server, ['create', 'namespace', 'app']);
    await kubectlOk(server, [
      'create',
      'secret',
      'generic',
      'shared-pg-admin',
      '-n',
      SYS,
      `--from-literal=username=${pgServer.username}`,
      `--from-literal=password=${pgServer.password}`,
    ]);
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
---
apiVersion: database.local.conductor.io/v1alpha1
kind: PostgreSQLServer
metadata: {name: shared-pg, namespace: ${SYS}, labels: {environment: dev}}
spec:
  host: ${pgServer.host}
  port: ${pgServer.port}
  adminCredentialsSecretRef: {name: shared-pg-admin}
  providerRef: {name: local}
  rebindPolicy: Delete
  sharing: {mode: Shared, maxClaims: 20}
  capabilities: {capacity: {storage: 100Gi}, region: us-east-1, cost: free-tier}
`);
  });
  after(async () => {
    api?.close();
    await server?.stop();
    if (server) removeDir(server.dataDir);
    await pgServer?.stop();
  });

  test('a claim binds to the shared server and its Secret connects with pg', async () => {
    await apply(`apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders-db, namespace: app}
spec:
  requirements: {capacity: {storage: 5Gi}, region: north-america}
`);
    const claim = await boundClaim('app', 'orders-db');
    assert.equal(claim.status.resourceRef.name, 'shared-pg');
    const details = await secretOf('app', 'orders-db');
    for (const key of ['host', 'port', 'username', 'password', 'database', 'uri']) assert.ok(details[key], `secret key ${key}`);
    const rows = await query(details, 'SELECT current_database() AS db, current_user AS who');
    assert.equal(rows[0].db, details.database);
    assert.equal(rows[0].who, details.username);
    const cm = (await api.request('GET', '/api/v1/namespaces/app/configmaps/orders-db')).json();
    assert.equal(cm.data.host, details.host);
    assert.equal(cm.data.password, undefined, 'the ConfigMap holds no secrets');
    const shared = (await api.request('GET', `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/postgresqlservers/shared-pg`)).json();
    assert.equal(shared.status.allocatable.storage, '95Gi', "capacity minus the claim's 5Gi request");
    assert.equal(shared.status.bindings.length, 1);
    const table = await kubectlOk(server, ['get', 'postgresqlinstances', '-n', 'app']);
    assert.match(table, /^orders-db\s+Bound\s+shared-pg\s+/m);
  });

  test('an unschedulable claim stays Pending and says why, then binds when a fitting resource appears', async () => {
    await apply(`apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: late-db, namespace: app}
spec:
  requirements: {capacity: {storage: 5Gi}}
  resourceSelector: {matchLabels: {environment: late}}
`);
    const pending = await eventually(async () => {
      const c = await getClaim('app', 'late-db');
      const sched = c.status?.conditions?.find((x: any) => x.type === 'Scheduled');
      return sched?.status === 'False' ? sched : undefined;
    }, 'the Scheduled=False condition');
    assert.match(pending.message, /^0\/\d+ candidates: /);
    const describe = await kubectlOk(server, ['describe', 'postgresqlinstance', 'late-db', '-n', 'app']);
    assert.match(describe, /FailedScheduling/);
    // A claim asking more than anything offers is told the largest amount offered, in its own terms.
    await apply(`apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: huge-db, namespace: app}
spec:
  requirements: {capacity: {storage: 100Ti}}
`);
    const huge = await eventually(async () => {
      const c = await getClaim('app', 'huge-db');
      const sched = c.status?.conditions?.find((x: any) => x.type === 'Scheduled');
      return sched?.status === 'False' ? sched : undefined;
    }, 'the Scheduled=False condition of huge-db');
    assert.match(huge.message, /; to fit: storage: wants 100Ti; the largest offered is \d+[KMGTPE]i?$/);
    assert.match(await kubectlOk(server, ['describe', 'postgresqlinstance', 'huge-db', '-n', 'app']), /to fit: storage: wants 100Ti; the largest offered is/);
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'huge-db', '-n', 'app', '--wait=true']);
    await apply(`apiVersion: database.local.conductor.io/v1alpha1
kind: PostgreSQLServer
metadata: {name: late-pg, namespace: ${SYS}, labels: {environment: late}}
spec:
  host: ${pgServer.host}
  port: ${pgServer.port}
  adminCredentialsSecretRef: {name: shared-pg-admin}
  rebindPolicy: Delete
  sharing: {mode: Shared}
  capabilities: {capacity: {storage: 50Gi}}
`);
    const claim = await boundClaim('app', 'late-db');
    assert.equal(claim.status.resourceRef.name, 'late-pg');
  });

  test('resize: a bound claim asking for more gets it while the shared server has room, else is told why', async () => {
    const patch = (storage: string) =>
      api.request(
        'PATCH',
        claimPath('app', 'late-db'),
        { spec: { requirements: { capacity: { storage } } } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
    assert.equal((await patch('20Gi')).status, 200);
    await eventually(async () => {
      const r = (await api.request('GET', `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/postgresqlservers/late-pg`)).json();
      return r.status?.allocatable?.storage === '30Gi' ? r : undefined;
    }, 'the binding to take 20Gi of 50Gi');
    assert.equal((await patch('500Gi')).status, 200);
    const cond = await eventually(async () => {
      const c = await getClaim('app', 'late-db');
      const r = c.status?.conditions?.find((x: any) => x.type === 'Resized');
      return r?.status === 'False' ? r : undefined;
    }, 'the Resized=False condition');
    assert.match(cond.message, /has only .*30Gi.* left|left/);
    assert.equal(cond.reason, 'ResizeNotPossible');
  });

  test("drift on the shared server: the claim's dropped database, then its dropped role, come back and its unchanged Secret works", async () => {
    const details = await secretOf('app', 'orders-db');
    const works = async () => {
      try {
        return (await query(details, 'SELECT current_database() AS db'))[0]?.db === details.database ? true : undefined;
      } catch {
        return undefined;
      }
    };
    await adminQuery(`DROP DATABASE "${details.database}" WITH (FORCE)`);
    await eventually(works, 'the unchanged Secret to reach its recreated database', 30_000);
    // The role owns the database: hand it to the admin first, all in one transaction.
    await adminQuery(`REASSIGN OWNED BY "${details.username}" TO CURRENT_USER; DROP OWNED BY "${details.username}"; DROP ROLE "${details.username}"`);
    await eventually(works, 'the unchanged Secret to log in with its recreated role', 30_000);
    assert.deepEqual(await secretOf('app', 'orders-db'), details, 'the Secret did not change');

    // The server reported the broken share and stayed Ready; the claim controller repaired it.
    // (The database may also have been repaired without a report: the claim was still being
    // reconciled after the resize test when it was dropped.)
    const events = await kubectlOk(server, [
      'get',
      'events',
      '-n',
      SYS,
      '--field-selector',
      'involvedObject.name=shared-pg',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    assert.ok(events.includes(`claim app/orders-db: role ${details.username} missing; the claim controller recreates what is missing`), events);
    const claimEvents = await kubectlOk(server, [
      'get',
      'events',
      '-n',
      'app',
      '--field-selector',
      'involvedObject.name=orders-db,reason=ShareRepaired',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    assert.match(claimEvents, /PostgreSQLServer conductor-system\/shared-pg reported role \S+ missing; recreated with the claim's credentials/);
    const shared = (await api.request('GET', `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/postgresqlservers/shared-pg`)).json();
    assert.equal(shared.status.conditions.find((c: any) => c.type === 'Ready').status, 'True');
  });

  test('deleting a claim on a Delete-policy shared server drops its database', async () => {
    const details = await secretOf('app', 'orders-db');
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'orders-db', '-n', 'app', '--timeout=60s']);
    const dbs = await adminQuery(`SELECT datname FROM pg_database WHERE datname = '${details.database}'`);
    assert.equal(dbs.length, 0, 'the database is dropped');
    const res = await api.request('GET', '/api/v1/namespaces/app/secrets/orders-db');
    await eventually(
      async () => ((await api.request('GET', '/api/v1/namespaces/app/secrets/orders-db')).status === 404 ? true : undefined),
      'the connection Secret to go with its claim',
    );
    assert.ok(res.status === 200 || res.status === 404);
  });

  test('dynamic provisioning: a class makes a dedicated PostgreSQL server for the claim', async () => {
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: dedicated, namespace: ${SYS}}
resourceClass: dedicated
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
providerRef: {name: local}
capabilities: {capacity: {storage: 20Gi}, region: us-east-1, cost: standard}
template:
  apiVersion: database.local.conductor.io/v1alpha1
  kind: LocalPostgreSQLInstance
  spec: {}
`);
    await apply(`apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: analytics, namespace: app}
spec:
  resourceClass: dedicated
  databaseName: analytics
  requirements: {capacity: {storage: 10Gi}}
`);
    const claim = await boundClaim('app', 'analytics');
    assert.equal(claim.status.resourceRef.kind, 'LocalPostgreSQLInstance');
    assert.deepEqual(claim.status.classRef, { namespace: SYS, name: 'dedicated' });
    const details = await secretOf('app', 'analytics');
    assert.notEqual(Number(details.port), pgServer.port, 'a dedicated server of its own');
    await query(details, 'CREATE TABLE t (x int); INSERT INTO t VALUES (42)');
    const rows = await query(details, 'SELECT x FROM t');
    assert.equal(rows[0].x, 42);
    const managed = await kubectlOk(server, ['get', 'managed', '-A']);
    assert.match(managed, new RegExp(claim.status.resourceRef.name));
    // Release with the class's Delete policy: the resource and its server go away.
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'analytics', '-n', 'app', '--timeout=60s']);
    await eventually(async () => {
      const r = await api.request(
        'GET',
        `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localpostgresqlinstances/${claim.status.resourceRef.name}`,
      );
      return r.status === 404 ? true : undefined;
    }, 'the provisioned resource to be deleted');
    await assert.rejects(query(details, 'SELECT 1'), 'the dedicated server no longer answers');
  });

  test('two claims racing for one exclusive resource: exactly one wins', async () => {
    await apply(`apiVersion: database.local.conductor.io/v1alpha1
kind: PostgreSQLServer
metadata: {name: solo-pg, namespace: ${SYS}}
spec:
  host: ${pgServer.host}
  port: ${pgServer.port}
  adminCredentialsSecretRef: {name: shared-pg-admin}
  rebindPolicy: Retain
  sharing: {mode: Exclusive}
  capabilities: {capacity: {storage: 10Gi}}
`);
    // Both creates in flight at once (one process, two requests on the wire before either
    // answers), so both claims reach the controller together and race for the one resource.
    const racers = ['racer-a', 'racer-b'];
    const created = await Promise.all(
      racers.map((name) =>
        api.request('POST', claimPath('app'), {
          apiVersion: 'storage.conductor.io/v1alpha1',
          kind: 'PostgreSQLInstance',
          metadata: { name, namespace: 'app' },
          spec: { resourceName: 'solo-pg' },
        }),
      ),
    );
    assert.deepEqual(
      created.map((r) => r.status),
      [201, 201],
      'both claims are created',
    );
    const scheduled = (c: any) => c.status?.conditions?.find((x: any) => x.type === 'Scheduled');
    // Judged: one Bound, the other Pending and told (as for a name nothing has: a tenant learns
    // nothing of another's binding) that no resource of that name is there for it.
    const notThere = /^0\/0 candidates: no resource named "solo-pg"$/;
    const [winner, loser] = await eventually(async () => {
      const both = await Promise.all(racers.map((n) => getClaim('app', n)));
      const won = both.filter((c) => c.status?.phase === 'Bound');
      const lost = both.filter((c) => c.status?.phase === 'Pending' && scheduled(c)?.status === 'False' && notThere.test(scheduled(c)?.message ?? ''));
      return won.length === 1 && lost.length === 1 ? [won[0], lost[0]] : undefined;
    }, 'one racer Bound and the other Pending');
    assert.equal(scheduled(loser).reason, 'Unschedulable');
    const resource = (await api.request('GET', `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/postgresqlservers/solo-pg`)).json();
    assert.equal(resource.spec.claimRef.name, winner.metadata.name);
    assert.equal(resource.spec.claimRef.uid, winner.metadata.uid);
    // The winner has the registered server to itself, with its own database and login.
    await boundClaim('app', winner.metadata.name);
    const details = await secretOf('app', winner.metadata.name);
    const who = await query(details, 'SELECT current_user AS u');
    assert.equal(who[0].u, details.username);
    // Retain: deleting the winner leaves the resource Released, not rebound to the loser.
    await kubectlOk(server, ['delete', 'postgresqlinstance', winner.metadata.name, '-n', 'app', '--timeout=60s']);
    const released = await eventually(async () => {
      const r = (await api.request('GET', `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/postgresqlservers/solo-pg`)).json();
      return r.status?.phase === 'Released' ? r : undefined;
    }, 'the resource to be Released');
    assert.equal(released.spec.claimRef.name, winner.metadata.name);
    // The loser, judged again once the resource is Released (a spec change makes the controller
    // write the generation it judged), stays Pending: a Released resource waits for an admin.
    const touched = await api.request(
      'PATCH',
      claimPath('app', loser.metadata.name),
      { spec: { requirements: { capacity: { storage: '1Gi' } } } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal(touched.status, 200, touched.text);
    const generation = touched.json().metadata.generation;
    const judged = await eventually(async () => {
      const c = await getClaim('app', loser.metadata.name);
      return c.status?.observedGeneration === generation && scheduled(c)?.observedGeneration === generation ? c : undefined;
    }, 'the losing claim judged again after the release');
    assert.equal(judged.status.phase, 'Pending');
    assert.match(scheduled(judged).message, notThere);
    assert.equal(judged.status.resourceRef, undefined);
  });

  test('kubectl get claim -A lists claims of every kind with their phase', async () => {
    const r = await kubectl(server, ['get', 'claim', '-A']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /late-db\s+Bound/);
  });
});
