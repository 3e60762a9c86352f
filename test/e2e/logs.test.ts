/**
 * `conductor logs` against a running server with a real dedicated PostgreSQL server (the
 * local provider's LocalPostgreSQLInstance): the log the server writes, read through the
 * `log` subresource — from the resource and from a claim bound to it; `--follow` streams a
 * line logged afterwards; `--tail`; and a developer, who may read the claim but not the
 * concrete resource, is refused (403), as is a bad query.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { cliPath, kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const run = promisify(execFile);
const SYS = 'conductor-system';
const READY_LINE = /database system is ready to accept connections/;

describe('conductor logs on a real dedicated PostgreSQL server', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  let devKubeconfig: string;
  const logs = (args: string[], kubeconfig = server.kubeconfig) => run(process.execPath, [cliPath, 'logs', ...args, '--kubeconfig', kubeconfig]);
  const resourcePath = `/apis/database.local.conductor.io/v1alpha1/namespaces/${SYS}/localpostgresqlinstances/pg-logs`;

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, ['create', 'namespace', 'apps']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
---
apiVersion: database.local.conductor.io/v1alpha1
kind: LocalPostgreSQLInstance
metadata: {name: pg-logs, namespace: ${SYS}}
spec: {providerRef: {name: local}, rebindPolicy: Delete}
`,
    });
    await eventually(
      async () => {
        const r = (await api.request('GET', resourcePath)).json();
        return typeof r.status?.atProvider?.logFile === 'string' && r.status?.atProvider?.running === true ? r : undefined;
      },
      'the LocalPostgreSQLInstance running with its log file in status',
      120_000,
    );
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders, namespace: apps}
spec: {}
`,
    });
    await eventually(
      async () =>
        (await api.request('GET', '/apis/storage.conductor.io/v1alpha1/namespaces/apps/postgresqlinstances/orders')).json().status?.phase === 'Bound'
          ? true
          : undefined,
      'the claim bound to the instance',
      60_000,
    );
    devKubeconfig = join(server.dataDir, 'dev.kubeconfig');
    await run(process.execPath, [cliPath, 'user', 'add', 'dev', '--data-dir', server.dataDir, '--out', devKubeconfig]);
    await kubectlOk(server, ['create', 'rolebinding', 'developers', '--clusterrole=conductor:app-developer', '--user=dev', '-n', 'apps']);
  });
  after(async () => {
    if (server) {
      await kubectlOk(server, ['delete', 'postgresqlinstances', 'orders', '-n', 'apps', '--timeout=60s']).catch(() => undefined);
      await kubectlOk(server, ['delete', 'localpostgresqlinstances', 'pg-logs', '-n', SYS, '--timeout=120s']).catch(() => undefined);
    }
    api?.close();
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  test("a concrete resource: its server's log", async () => {
    const { stdout } = await logs(['localpostgresqlinstance/pg-logs', '-n', SYS]);
    assert.match(stdout, READY_LINE);
  });

  test('a claim: the log of the resource it is bound to; --tail keeps the last lines', async () => {
    const all = (await logs(['pg/orders', '-n', 'apps'])).stdout;
    assert.match(all, READY_LINE);
    const lines = all.split('\n').filter((l) => l !== '');
    const { stdout } = await logs(['postgresqlinstance/orders', '-n', 'apps', '--tail', '2']);
    assert.deepEqual(
      stdout.split('\n').filter((l) => l !== ''),
      lines.slice(-2),
    );
  });

  test('--follow streams a line the server logs afterwards', async () => {
    const child = spawn(process.execPath, [cliPath, 'logs', 'localpostgresqlinstance/pg-logs', '-n', SYS, '--follow', '--kubeconfig', server.kubeconfig], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await eventually(async () => (READY_LINE.test(out) ? true : undefined), 'the log so far', 20_000);
      // A login with a wrong password: the server logs it (FATAL: password authentication failed).
      const r = (await api.request('GET', resourcePath)).json();
      const user = 'conductor-logs-probe';
      const c = new pg.Client({ host: '127.0.0.1', port: r.status.atProvider.port, user, password: 'wrong', database: 'postgres' });
      await c.connect().then(
        () => c.end(),
        () => undefined,
      );
      await eventually(async () => (out.includes(user) ? true : undefined), 'the failed login in the followed log', 20_000);
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  });

  test('a developer who may read the claim but not the concrete resource is refused (403)', async () => {
    await assert.rejects(logs(['pg/orders', '-n', 'apps'], devKubeconfig), (err: { code?: number; stderr?: string }) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr ?? '', /conductor logs: .*forbidden.*localpostgresqlinstances\/log/i);
      return true;
    });
    // kubectl, with the developer's client certificate, on the subresource itself.
    const raw = await kubectl({ kubeconfig: devKubeconfig }, ['get', '--raw', `${resourcePath}/log`]);
    assert.notEqual(raw.code, 0);
    assert.match(raw.stderr, /forbidden/i);
    assert.match(raw.stderr, /localpostgresqlinstances\/log/);
  });

  test('a bad query is a 400 naming the parameter; a resource that does not exist is a 404', async () => {
    const bad = await api.request('GET', `${resourcePath}/log?tailLines=-1`);
    assert.equal(bad.status, 400);
    assert.match(bad.json().message, /tailLines/);
    const missing = await api.request('GET', `${resourcePath.replace('pg-logs', 'nope')}/log`);
    assert.equal(missing.status, 404);
  });
});
