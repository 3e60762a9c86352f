/**
 * Deleting concrete resources, end to end with the real kubectl and real PostgreSQL servers
 * (issue 10, items 16–18):
 * - a class whose providerRef names no Provider: deleting the claim deletes its resource
 *   (the missing Provider does not hold the finalizer);
 * - rebindPolicy Retain: deleting a Released dedicated instance removes only the object —
 *   the server's data is still there (logged in with pg), and the admin recovers it by
 *   creating the resource again, then removes it for good with rebindPolicy Delete;
 * - in-use protection: `kubectl delete` of a Bound instance returns, the object stays
 *   Terminating with a condition naming the claim, the claim still works, and deleting the
 *   claim lets the deletion finish; a shared server waits for every claim, and with Retain
 *   the claims' databases stay on the server after the claims and the resource are gone.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { startThrowawayServer, type ThrowawayServer } from '../../src/providers/local/postgresql/testing.js';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const NS = 'team';
const LOCAL = `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localpostgresqlinstances`;
const CLAIMS = `/apis/storage.conductor.io/v1alpha1/namespaces/${NS}/postgresqlinstances`;

describe('deleting concrete resources', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  let pgServer: ThrowawayServer | undefined;

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => {
    const r = await api.request('GET', path);
    return r.status === 404 ? undefined : r.json();
  };
  const gone = (path: string, what: string) => eventually(async () => ((await get(path)) === undefined ? true : undefined), what, 60_000);
  const secretOf = async (ns: string, name: string) => {
    const s = await get(`/api/v1/namespaces/${ns}/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const sql = async (d: Record<string, string>, text: string) => {
    const c = new pg.Client({ host: d.host, port: Number(d.port), user: d.username, password: d.password, database: d.database });
    await c.connect();
    try {
      return (await c.query(text)).rows;
    } finally {
      await c.end();
    }
  };
  const claim = (name: string, spec: string) => `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: ${name}, namespace: ${NS}}
spec: ${spec}
`;
  const instance = (name: string, policy: string) => `apiVersion: database.local.conductor.io/v1alpha1
kind: LocalPostgreSQLInstance
metadata: {name: ${name}, namespace: ${SYS}}
spec: {rebindPolicy: ${policy}, providerRef: {name: local}}
`;
  const boundAndReady = (name: string) =>
    eventually(
      async () => {
        const c = await get(`${CLAIMS}/${name}`);
        return c?.status?.phase === 'Bound' && c.status.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `claim ${name} Bound and Ready`,
      90_000,
    );
  const condition = (o: any, type: string) => o?.status?.conditions?.find((c: any) => c.type === type);

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, [
      'wait',
      '--for=condition=Established',
      'crd/postgresqlinstances.storage.conductor.io',
      'crd/localpostgresqlinstances.database.local.conductor.io',
      '--timeout=30s',
    ]);
    await kubectlOk(server, ['create', 'namespace', NS]);
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
`);
  });
  after(async () => {
    api?.close();
    await server?.stop();
    if (server) removeDir(server.dataDir);
    await pgServer?.stop();
  });

  test('a class naming no Provider: deleting the claim deletes its resource (item 16)', async () => {
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: typo, namespace: ${SYS}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
providerRef: {name: no-such-provider}
template:
  apiVersion: database.local.conductor.io/v1alpha1
  kind: LocalPostgreSQLInstance
  spec: {}
`);
    await apply(claim('stuck', '{resourceClass: typo}'));
    const resource = await eventually(
      async () => {
        const list = (await get(`${LOCAL}?labelSelector=conductor.io%2Fclaim-name%3Dstuck`)).items as any[];
        const r = list[0];
        return r && condition(r, 'Synced')?.reason === 'CannotConnect' ? r : undefined;
      },
      'the provisioned resource failing to connect',
      60_000,
    );
    assert.equal(resource.spec.providerRef.name, 'no-such-provider');
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'stuck', '-n', NS, '--timeout=60s'], { timeoutMs: 90_000 });
    await gone(`${LOCAL}/${resource.metadata.name}`, 'the managed resource to be deleted');
    const events = await kubectlOk(server, [
      'get',
      'events',
      '-n',
      SYS,
      '--field-selector',
      `involvedObject.name=${resource.metadata.name}`,
      '-o',
      'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}',
    ]);
    assert.match(events, /DependencyNotFound: Provider conductor-system\/no-such-provider does not exist; no create was ever recorded/);
  });

  test("rebindPolicy Retain: deleting the Released resource keeps the server's data; the admin recovers it, then removes it (item 17)", async () => {
    await apply(instance('kept', 'Retain'));
    await apply(claim('keeper', '{resourceName: kept}'));
    await boundAndReady('keeper');
    const details = await secretOf(NS, 'keeper');
    await sql(details, "CREATE TABLE notes (t text); INSERT INTO notes VALUES ('outlives the object')");
    const before = await get(`${LOCAL}/kept`);
    const directory = before.status.atProvider.directory as string;
    assert.ok(existsSync(directory), `instance directory ${directory}`);

    await kubectlOk(server, ['delete', 'postgresqlinstance', 'keeper', '-n', NS, '--timeout=60s'], { timeoutMs: 90_000 });
    await eventually(async () => ((await get(`${LOCAL}/kept`))?.status?.phase === 'Released' ? true : undefined), 'kept to be Released');
    await kubectlOk(server, ['delete', 'localpostgresqlinstance', 'kept', '-n', SYS, '--timeout=60s'], { timeoutMs: 90_000 });
    assert.equal(await get(`${LOCAL}/kept`), undefined, 'the object is gone');

    // Only the object: the server still answers with the claim's credentials, the data is there.
    assert.deepEqual(await sql(details, 'SELECT t FROM notes'), [{ t: 'outlives the object' }]);
    assert.ok(existsSync(directory), 'the data directory stays');
    const events = await kubectlOk(server, [
      'get',
      'events',
      '-n',
      SYS,
      '--field-selector',
      'involvedObject.name=kept',
      '-o',
      'jsonpath={range .items[*]}{.reason}{"\\n"}{end}',
    ]);
    assert.match(events, /RetainedExternalResource/);
    assert.doesNotMatch(events, /DeletedExternalResource/);

    // Recovery (README of controllers/managed): the same namespace and name find the directory again.
    await apply(instance('kept', 'Delete'));
    const recovered = await eventually(
      async () => {
        const r = await get(`${LOCAL}/kept`);
        return condition(r, 'Ready')?.status === 'True' ? r : undefined;
      },
      'the recreated resource to adopt the kept server',
      90_000,
    );
    assert.equal(recovered.status.atProvider.directory, directory);
    const raw = await secretOf(SYS, 'kept-connection');
    assert.deepEqual(await sql(raw, 'SELECT t FROM notes'), [{ t: 'outlives the object' }], 'recovered with its data');
    // Removal for good: with rebindPolicy Delete, deleting it stops the server and removes the directory.
    await kubectlOk(server, ['delete', 'localpostgresqlinstance', 'kept', '-n', SYS, '--timeout=60s'], { timeoutMs: 90_000 });
    assert.equal(existsSync(directory), false, 'Delete removes the directory');
    await assert.rejects(sql(details, 'SELECT 1'), 'the server no longer answers');
  });

  test('a Bound resource is not deleted under its claim: kubectl delete returns, it stays Terminating saying why, the claim works; deleting the claim lets it go (item 18)', async () => {
    await apply(instance('guarded', 'Delete'));
    await apply(claim('user', '{resourceName: guarded}'));
    await boundAndReady('user');
    const details = await secretOf(NS, 'user');
    const directory = (await get(`${LOCAL}/guarded`)).status.atProvider.directory as string;

    const r = await kubectl(server, ['delete', 'localpostgresqlinstance', 'guarded', '-n', SYS, '--wait=false']);
    assert.equal(r.code, 0, r.stderr);
    const waiting = await eventually(async () => {
      const o = await get(`${LOCAL}/guarded`);
      return condition(o, 'InUse')?.status === 'True' ? o : undefined;
    }, 'the InUse condition on the Terminating resource');
    assert.ok(waiting.metadata.deletionTimestamp, 'it shows its deletion');
    assert.match(condition(waiting, 'InUse').message, /waiting for claim team\/user to release this resource/);
    const shown = await kubectlOk(server, [
      'get',
      'localpostgresqlinstance',
      'guarded',
      '-n',
      SYS,
      '-o',
      'jsonpath={.status.conditions[?(@.type=="InUse")].message}',
    ]);
    assert.match(shown, /waiting for claim team\/user/);
    // The claim still works, and keeps working while the deletion waits.
    assert.deepEqual(await sql(details, 'SELECT 1 AS one'), [{ one: 1 }]);
    assert.equal((await get(`${CLAIMS}/user`)).status.phase, 'Bound');
    assert.ok(existsSync(directory));
    assert.ok(await get(`${LOCAL}/guarded`), 'still there');

    await kubectlOk(server, ['delete', 'postgresqlinstance', 'user', '-n', NS, '--timeout=60s'], { timeoutMs: 90_000 });
    await gone(`${LOCAL}/guarded`, 'the resource to go once its claim released it');
    assert.equal(existsSync(directory), false, 'and its policy (Delete) applied');
  });

  test('a shared server waits for every bound claim; with Retain their databases outlive the claims and the resource (items 17, 18)', async () => {
    pgServer = await startThrowawayServer();
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
    await apply(`apiVersion: database.local.conductor.io/v1alpha1
kind: PostgreSQLServer
metadata: {name: shared, namespace: ${SYS}}
spec:
  host: ${pgServer.host}
  port: ${pgServer.port}
  adminCredentialsSecretRef: {name: pg-admin}
  providerRef: {name: local}
  rebindPolicy: Retain
  sharing: {mode: Shared, maxClaims: 5}
`);
    await apply(claim('one', '{resourceName: shared}') + '---\n' + claim('two', '{resourceName: shared}'));
    await Promise.all([boundAndReady('one'), boundAndReady('two')]);
    const [one, two] = await Promise.all([secretOf(NS, 'one'), secretOf(NS, 'two')]);
    await sql(one, "CREATE TABLE t (v text); INSERT INTO t VALUES ('one')");
    await sql(two, "CREATE TABLE t (v text); INSERT INTO t VALUES ('two')");
    const path = `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/postgresqlservers/shared`;

    await kubectlOk(server, ['delete', 'postgresqlserver', 'shared', '-n', SYS, '--wait=false']);
    const inUse = async () => condition(await get(path), 'InUse')?.message as string | undefined;
    await eventually(async () => (/waiting for 2 claims \(team\/one, team\/two\)/.test((await inUse()) ?? '') ? true : undefined), 'waiting for both claims');
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'one', '-n', NS, '--timeout=60s'], { timeoutMs: 90_000 });
    await eventually(
      async () => (/waiting for claim team\/two to release/.test((await inUse()) ?? '') ? true : undefined),
      'waiting for the second claim only',
    );
    assert.deepEqual(await sql(two, 'SELECT v FROM t'), [{ v: 'two' }], 'the remaining claim still works');
    await kubectlOk(server, ['delete', 'postgresqlinstance', 'two', '-n', NS, '--timeout=60s'], { timeoutMs: 90_000 });
    await gone(path, 'the shared server resource to go once both claims released it');

    // Retain: each claim's database and data are still on the server (admin login).
    const admin = (database: string) => ({
      host: pgServer!.host,
      port: String(pgServer!.port),
      username: pgServer!.username,
      password: pgServer!.password,
      database,
    });
    assert.deepEqual(await sql(admin(one.database), 'SELECT v FROM t'), [{ v: 'one' }]);
    assert.deepEqual(await sql(admin(two.database), 'SELECT v FROM t'), [{ v: 'two' }]);
  });
});
