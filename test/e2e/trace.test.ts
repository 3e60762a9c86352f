/**
 * `conductor trace` against a running server with a real binding: the tree from a claim to
 * its resource, Provider, external object and Secret, and from the resource back to its claim
 * (golden outputs, ages masked); `-o json`; and clear errors for what does not exist.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cliPath, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const run = promisify(execFile);

describe('conductor trace', () => {
  let server: ServerProcess;
  const trace = (...args: string[]) => run(process.execPath, [cliPath, 'trace', ...args, '--kubeconfig', server.kubeconfig]);
  const masked = (out: string) => out.replace(/\d+[smhd]$/gm, '<age>');

  before(async () => {
    server = await startServer();
    await kubectlOk(server, ['create', 'namespace', 'apps']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: mem, namespace: conductor-system}
spec: {type: memory}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-1, namespace: conductor-system}
spec: {providerRef: {name: mem}, version: "16.4"}
---
apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders, namespace: apps}
spec: {version: "16"}
`,
    });
    await eventually(
      async () => /Bound — Available/.test((await trace('postgresqlinstance/orders', '-n', 'apps')).stdout) || undefined,
      'the claim Bound and Available',
      30_000,
    );
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('from a claim: its resource, the resource’s Provider and external object, and its Secret', async () => {
    const { stdout } = await trace('pg/orders', '-n', 'apps');
    assert.equal(
      masked(stdout),
      `NAME                                   READY   SYNCED   STATUS                                                             AGE
PostgreSQLInstance/orders              True    -        Bound — Available: connection details are in Secret orders         <age>
├─ MemoryDatabase/db-1                 True    True     Bound — Available: the external resource exists and matches the…   <age>
│  ├─ Provider/mem                     True    -        CheckPassed: the memory provider is installed and needs nothing…   <age>
│  └─ External/conductor-system/db-1   -       -        externalName=conductor-system/db-1 host=memory.invalid username…   -
└─ Secret/orders                       -       -        keys: database, host, password, port, uri, username                <age>
`,
    );
  });

  test('from a concrete resource: its Provider, external object and the claim it serves (wide: whole messages and namespaces)', async () => {
    const { stdout } = await trace('memorydatabases.database.memory.conductor.io/db-1', '-n', 'conductor-system', '-o', 'wide');
    assert.equal(
      masked(stdout),
      `NAME                                NAMESPACE          READY   SYNCED   STATUS                                                                               AGE
MemoryDatabase/db-1                 conductor-system   True    True     Bound — Available: the external resource exists and matches the spec                 <age>
├─ Provider/mem                     conductor-system   True    -        CheckPassed: the memory provider is installed and needs nothing more — type memory   <age>
├─ External/conductor-system/db-1                      -       -        externalName=conductor-system/db-1 host=memory.invalid username=app database=app     -
└─ PostgreSQLInstance/orders        apps               True    -        Bound — Available: connection details are in Secret orders                           <age>
`,
    );
  });

  test('-o json is the tree', async () => {
    const tree = JSON.parse((await trace('postgresqlinstance/orders', '-n', 'apps', '-o', 'json')).stdout);
    assert.equal(tree.name, 'PostgreSQLInstance/orders');
    assert.equal(tree.ready, 'True');
    assert.deepEqual(
      tree.children.map((c: { name: string }) => c.name),
      ['MemoryDatabase/db-1', 'Secret/orders'],
    );
    assert.deepEqual(
      tree.children[0].children.map((c: { name: string }) => c.name),
      ['Provider/mem', 'External/conductor-system/db-1'],
    );
  });

  const errors: [string, string[], RegExp][] = [
    ['an object that does not exist', ['pg/nope', '-n', 'apps'], /conductor trace: PostgreSQLInstance "nope" not found in namespace apps/],
    ['a type the server does not serve', ['teapot/x'], /conductor trace: the server doesn't have a resource type "teapot"/],
    ['no name', ['postgresqlinstance'], /conductor trace: expected <type>\/<name>/],
    ['a kind that is neither a claim nor concrete', ['configmap/x', '-n', 'apps'], /ConfigMap "x" not found|neither a claim kind nor a concrete kind/],
    ['a bad output format', ['pg/orders', '-o', 'yaml'], /expected table, wide or json/],
  ];
  for (const [why, args, want] of errors) {
    test(`exits 1 with a clear message: ${why}`, async () => {
      await assert.rejects(trace(...args), (err: { code?: number; stderr?: string }) => {
        assert.ok(err.code === 1 || err.code === 2, `exit code ${err.code}`);
        assert.match(err.stderr ?? '', want);
        return true;
      });
    });
  }
});
