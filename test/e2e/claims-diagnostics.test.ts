/**
 * What a developer sees when the resource behind their claim fails (issue 10, item 16): a
 * ResourceClass whose providerRef names no Provider provisions a resource that can never
 * connect; the developer cannot read that resource, so its failing condition (reason and
 * message) is carried up to the claim's Ready condition and a Warning Event, read here with
 * the real kubectl as the developer. Once the Provider exists the claim becomes Ready.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { cliPath, kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';

const run = promisify(execFile);
const SYS = 'conductor-system';
const CLAIMS = 'postgresqlinstances.storage.conductor.io';

describe('a failing resource shows on its claim', () => {
  let server: ServerProcess;
  let dev: { kubeconfig: string };

  before(async () => {
    server = await startServer();
    await kubectlOk(server, ['wait', '--for=condition=Established', `crd/${CLAIMS}`, '--timeout=30s']);
    await kubectlOk(server, ['create', 'namespace', 'app']);
    const out = join(server.dataDir, 'dev.kubeconfig');
    await run(process.execPath, [cliPath, 'user', 'add', 'dev', '--data-dir', server.dataDir, '--out', out]);
    dev = { kubeconfig: out };
    await kubectlOk(server, ['create', 'rolebinding', 'developers', '--clusterrole=conductor:app-developer', '--user=dev', '-n', 'app']);
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test("a class naming a Provider that does not exist: the claim's Ready condition and Events say so", async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: orphaned, namespace: ${SYS}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
providerRef: {name: no-such-provider}
template:
  apiVersion: database.memory.conductor.io/v1alpha1
  kind: MemoryDatabase
  spec: {version: "16.4"}
`,
    });
    await kubectlOk(dev, ['apply', '-f', '-'], {
      input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders, namespace: app}
spec: {resourceClass: orphaned}
`,
    });
    const jsonpath = (type: string, field: string) => `{.status.conditions[?(@.type=="${type}")].${field}}`;
    const reason = await eventually(async () => {
      const r = (await kubectlOk(dev, ['get', CLAIMS, 'orders', '-n', 'app', '-o', `jsonpath=${jsonpath('Ready', 'reason')}`])).trim();
      return r === 'CannotConnect' ? r : undefined;
    }, "the claim's Ready reason to be the resource's CannotConnect");
    assert.equal(reason, 'CannotConnect');
    assert.equal((await kubectlOk(dev, ['get', CLAIMS, 'orders', '-n', 'app', '-o', `jsonpath=${jsonpath('Ready', 'status')}`])).trim(), 'False');
    const message = await kubectlOk(dev, ['get', CLAIMS, 'orders', '-n', 'app', '-o', `jsonpath=${jsonpath('Ready', 'message')}`]);
    assert.match(message, /is not ready: CannotConnect: .*Provider conductor-system\/no-such-provider/);
    // The developer could not have learnt it from the resource itself.
    const direct = await kubectl(dev, ['get', 'memorydatabases.database.memory.conductor.io', '-n', SYS]);
    assert.notEqual(direct.code, 0);
    assert.match(direct.stderr, /forbidden/i);
    const events = await eventually(async () => {
      const out = await kubectlOk(dev, [
        'get',
        'events',
        '-n',
        'app',
        '--field-selector',
        'involvedObject.name=orders,type=Warning',
        '-o',
        'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}',
      ]);
      return /CannotConnect: .*no-such-provider/.test(out) ? out : undefined;
    }, 'a Warning Event on the claim naming the missing Provider');
    assert.match(events, /^CannotConnect: /m);

    // The Provider appears: the claim becomes Ready and the failure is gone from it.
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: no-such-provider, namespace: ${SYS}}\nspec: {type: local}\n`,
    });
    await kubectlOk(dev, ['wait', '--for=condition=Ready', `${CLAIMS}/orders`, '-n', 'app', '--timeout=90s'], { timeoutMs: 100_000 });
    assert.equal((await kubectlOk(dev, ['get', CLAIMS, 'orders', '-n', 'app', '-o', `jsonpath=${jsonpath('Ready', 'reason')}`])).trim(), 'Available');
  });
});
