/**
 * The kubectl client matrix: one representative suite run by every kubectl on the machine
 * (the default `kubectl` and the Google Cloud CLI's `kubectl.1.27` … `kubectl.1.33`)
 * against one server, each version in its own namespace. A version that is not installed
 * is reported as skipped, not passed.
 *
 * Per version: client-side apply (create, update, strict validation) of a ConfigMap and of
 * a CRD object, server-side apply with a conflict and --force-conflicts, diff, replace,
 * patch (merge, json, strategic), apply --prune with a label selector, edit with a scripted
 * KUBE_EDITOR, wait --for=condition, delete --cascade=foreground, explain of a CRD
 * kind (from OpenAPI v3, --recursive, and v2 with --output=plaintext-openapiv2), get -w seeing one
 * change, auth can-i, api-resources. kubectl 1.27 and 1.28 read /openapi/v2 in protobuf
 * before every apply (and fail without it); the endpoint's caching headers are checked too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { matrixKubectls, runKubectl, runKubectlOk, type KubectlBinary } from '../support/kubectl-versions.js';
import { removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';
import { WATCH_OPEN } from '../support/kubectl-watching.js';

const GROUP = 'matrix.example.io';
const OPENAPI_V2_PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget of the kubectl matrix.',
            properties: {
              spec: {
                type: 'object',
                description: 'What the widget should be.',
                properties: {
                  size: { type: 'integer', minimum: 1, description: 'How big the widget is, in units.' },
                  color: { type: 'string', enum: ['red', 'blue', 'green'] },
                  tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                },
              },
              status: {
                type: 'object',
                properties: {
                  conditions: {
                    type: 'array',
                    items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } } },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

function configMap(ns: string, name: string, data: Record<string, string>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });
}

function widget(ns: string, name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, namespace: ns }, spec });
}

describe('kubectl client matrix', { concurrency: 3 }, () => {
  let server: ServerProcess;
  let api: ApiHandle;
  let scratch: string;
  /** A scripted editor for `kubectl edit`: turns `v: "1"` into `v: "2"` in the file it is given. */
  let editor: string;
  before(async () => {
    scratch = tempDir('kubectl-matrix-');
    editor = join(scratch, 'edit.sh');
    writeFileSync(editor, `#!/bin/sh\nsed -i 's/v: "1"/v: "2"/' "$1"\n`, { mode: 0o755 });
    server = await startServer();
    api = apiFromKubeconfig(server.kubeconfig);
    const r = await api.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
    assert.equal(r.status, 201, r.text);
    await eventually(async () => (await api.request('GET', `/apis/${GROUP}/v1/widgets`)).status === 200, 'the Widget kind to be served');
  });
  after(async () => {
    api?.close();
    await server?.kill();
    if (server) removeDir(server.dataDir);
    if (scratch) removeDir(scratch);
  });

  test('/openapi/v2 in protobuf, with an ETag shared with JSON, Vary: Accept and 304 on If-None-Match', async () => {
    const pb = await api.request('GET', '/openapi/v2', undefined, { Accept: OPENAPI_V2_PB });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.equal(pb.headers.vary, 'Accept');
    assert.equal(pb.headers['cache-control'], 'no-cache, private');
    const etag = String(pb.headers.etag);
    assert.match(etag, /^"[0-9A-F]{128}"$/);
    const json = await api.request('GET', '/openapi/v2', undefined, { Accept: 'application/json' });
    assert.equal(json.headers.etag, etag, 'both forms of one document share its ETag');
    const again = await api.request('GET', '/openapi/v2', undefined, { Accept: OPENAPI_V2_PB, 'If-None-Match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const yaml = await api.request('GET', '/openapi/v2', undefined, { Accept: 'application/yaml' });
    assert.equal(yaml.status, 406);
  });

  test("kubectl's default prune kinds Conductor does not run: listed empty, writes refused with 405", async () => {
    const pods = await api.request('GET', '/api/v1/namespaces/default/pods?labelSelector=a%3Db');
    assert.equal(pods.status, 200, pods.text);
    assert.equal(pods.json().kind, 'PodList');
    assert.deepEqual(pods.json().items, []);
    assert.equal((await api.request('GET', '/apis/apps/v1/deployments')).json().kind, 'DeploymentList');
    const create = await api.request('POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
    });
    assert.equal(create.status, 405, create.text);
    assert.equal(create.json().reason, 'MethodNotAllowed');
    assert.match(create.json().message, /^Conductor does not run deployments: Deployment is served read-only and always empty/);
  });

  for (const bin of matrixKubectls()) {
    const label = bin.label === 'default' ? 'default kubectl' : `kubectl ${bin.label}`;
    const path = bin.path;
    if (path === undefined) {
      test(label, (t) => t.skip(`${label} not installed`));
      continue;
    }
    describe(label, { concurrency: 1 }, () => versionSuite({ label: bin.label, path }));
  }

  function versionSuite(bin: KubectlBinary & { path: string }): void {
    const ns = `m-${bin.label.replace('.', '-')}`;
    const k = (args: string[], input?: string) => runKubectl(bin, server.kubeconfig, ['-n', ns, ...args], { input });
    const ok = (args: string[], input?: string) => runKubectlOk(bin, server.kubeconfig, ['-n', ns, ...args], { input });
    const cmData = async (name: string) => (await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`)).json().data;

    before(async () => {
      const r = await api.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      assert.equal(r.status, 201, r.text);
    });

    test('apply creates and updates a ConfigMap and a CRD object (client-side)', async () => {
      assert.match(await ok(['apply', '-f', '-'], configMap(ns, 'settings', { color: 'blue' })), /configmap\/settings created/);
      assert.match(await ok(['apply', '-f', '-'], configMap(ns, 'settings', { color: 'green' })), /configmap\/settings configured/);
      assert.deepEqual(await cmData('settings'), { color: 'green' });
      assert.match(await ok(['apply', '-f', '-'], widget(ns, 'w1', { size: 1, color: 'red' })), /widget\.matrix\.example\.io\/w1 created/);
      assert.match(await ok(['apply', '-f', '-'], widget(ns, 'w1', { size: 2, color: 'red' })), /widget\.matrix\.example\.io\/w1 configured/);
      assert.match(await ok(['apply', '-f', '-'], widget(ns, 'w1', { size: 2, color: 'red' })), /widget\.matrix\.example\.io\/w1 unchanged/);
      const w = (await api.request('GET', `/apis/${GROUP}/v1/namespaces/${ns}/widgets/w1`)).json();
      assert.equal(w.spec.size, 2);
      const strict = await k(['apply', '-f', '-'], widget(ns, 'w2', { size: 1, bogus: true }));
      assert.notEqual(strict.code, 0, 'an unknown field is refused (kubectl validates strictly by default)');
      assert.match(strict.stderr, /unknown field "spec\.bogus"/);
    });

    test('server-side apply: a second manager conflicts, --force-conflicts takes the field', async () => {
      await ok(['apply', '--server-side', '--field-manager=alice', '-f', '-'], configMap(ns, 'owned', { owner: 'alice' }));
      const conflict = await k(['apply', '--server-side', '--field-manager=bob', '-f', '-'], configMap(ns, 'owned', { owner: 'bob' }));
      assert.notEqual(conflict.code, 0);
      assert.match(conflict.stderr, /conflict/i);
      assert.match(conflict.stderr, /alice/);
      await ok(['apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', '-'], configMap(ns, 'owned', { owner: 'bob' }));
      assert.deepEqual(await cmData('owned'), { owner: 'bob' });
    });

    test('diff shows a pending change and exits 1; replace then applies it', async () => {
      const changed = configMap(ns, 'settings', { color: 'purple' });
      const diff = await k(['diff', '-f', '-'], changed);
      assert.equal(diff.code, 1, `diff exits 1 when there are differences; stderr:\n${diff.stderr}`);
      assert.match(diff.stdout, /^-\s+color: green$/m);
      assert.match(diff.stdout, /^\+\s+color: purple$/m);
      assert.match(await ok(['replace', '-f', '-'], changed), /configmap\/settings replaced/);
      assert.deepEqual(await cmData('settings'), { color: 'purple' });
      await ok(['apply', '-f', '-'], changed);
      const same = await k(['diff', '-f', '-'], changed);
      assert.equal(same.code, 0, `diff exits 0 once applied; stdout:\n${same.stdout}\nstderr:\n${same.stderr}`);
    });

    test('patch: merge on a CRD object, json and strategic on a ConfigMap', async () => {
      await ok(['patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"color":"blue"}}']);
      await ok(['patch', 'configmap', 'settings', '--type=json', '-p', '[{"op":"add","path":"/data/shape","value":"round"}]']);
      await ok(['patch', 'configmap', 'settings', '--type=strategic', '-p', '{"data":{"weight":"9"}}']);
      assert.deepEqual(await cmData('settings'), { color: 'purple', shape: 'round', weight: '9' });
      const w = (await api.request('GET', `/apis/${GROUP}/v1/namespaces/${ns}/widgets/w1`)).json();
      assert.equal(w.spec.color, 'blue');
    });

    test('apply --prune with a label selector deletes what left the manifest set (default prune kinds)', async () => {
      // No --prune-allowlist: kubectl resolves its default kinds (Pods, Deployments, ... which
      // Conductor serves read-only and empty) and lists each with the selector.
      const set = (name: string) =>
        JSON.stringify({ ...JSON.parse(configMap(ns, name, { v: '1' })), metadata: { name, namespace: ns, labels: { set: 'prune' } } });
      const prune = ['apply', '--prune', '-l', 'set=prune', '-f', '-'];
      await ok(prune, `${set('keep')}\n${set('drop')}`);
      assert.match(await ok(prune, set('keep')), /configmap\/drop pruned/);
      assert.equal((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/drop`)).status, 404);
      assert.equal((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/keep`)).status, 200);
      const allowlisted = ['apply', '--prune', '-l', 'set=prune', '--prune-allowlist=core/v1/ConfigMap', '-f', '-'];
      await ok(allowlisted, `${set('keep')}\n${set('drop2')}`);
      assert.match(await ok(allowlisted, set('keep')), /configmap\/drop2 pruned/);
    });

    test('edit with a scripted editor saves the change', async () => {
      const r = await runKubectl(bin, server.kubeconfig, ['-n', ns, 'edit', 'configmap', 'keep'], { env: { KUBE_EDITOR: editor } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /configmap\/keep edited/);
      assert.deepEqual(await cmData('keep'), { v: '2' });
    });

    test('wait --for=condition returns once the condition holds', async () => {
      const waiting = k(['wait', '--for=condition=Ready', 'widget/w1', '--timeout=90s']);
      const r = await api.request(
        'PATCH',
        `/apis/${GROUP}/v1/namespaces/${ns}/widgets/w1/status`,
        { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Built' }] } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
      assert.equal(r.status, 200, r.text);
      const done = await waiting;
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /widget\.matrix\.example\.io\/w1 condition met/);
    });

    test('explain describes a CRD kind from its schema', async () => {
      const out = await ok(['explain', `widgets.spec`, `--api-version=${GROUP}/v1`]);
      assert.match(out, /KIND:\s+Widget/);
      assert.match(out, /How big the widget is, in units\./);
      assert.match(out, /color\s+<string>/);
      // The same from the OpenAPI v2 document, which kubectl reads in protobuf.
      const v2 = await ok(['explain', 'widgets.spec.size', `--api-version=${GROUP}/v1`, '--output=plaintext-openapiv2']);
      assert.match(v2, /FIELD:\s+size <integer>/);
      assert.match(v2, /How big the widget is, in units\./);
      const recursive = await ok(['explain', 'widgets', `--api-version=${GROUP}/v1`, '--recursive']);
      assert.match(recursive, /^\s+spec\s+<Object>$/m);
      assert.match(recursive, /^\s+size\s+<integer>$/m);
      assert.match(recursive, /^\s+conditions\s+<\[\]Object>$/m);
    });

    test('get -w sees one change', async () => {
      let changed: Promise<unknown> | undefined;
      const watched = await runKubectl(
        bin,
        server.kubeconfig,
        ['-n', ns, 'get', 'configmap', 'settings', '-w', '-o', 'jsonpath={.data.color}{"\\n"}', '--request-timeout=90s', '-v=6'],
        {
          onStderr: (all) => {
            if (!changed && WATCH_OPEN.test(all)) {
              changed = api.request(
                'PATCH',
                `/api/v1/namespaces/${ns}/configmaps/settings`,
                { data: { color: 'teal' } },
                { 'Content-Type': 'application/merge-patch+json' },
              );
            }
          },
          onStdout: (all) => /^teal$/m.test(all),
          timeoutMs: 90_000,
        },
      );
      assert.ok(changed, `kubectl's watch was never open; stderr:\n${watched.stderr.slice(-2000)}`);
      assert.equal((await (changed as Promise<{ status: number }>)).status, 200);
      assert.match(watched.stdout, /^purple$/m, 'the current value first');
      assert.match(watched.stdout, /^teal$/m, 'then the change');
    });

    test('delete --cascade=foreground removes the object', async () => {
      assert.match(await ok(['delete', 'widget', 'w1', '--cascade=foreground']), /widget\.matrix\.example\.io "w1" deleted/);
      await eventually(async () => (await api.request('GET', `/apis/${GROUP}/v1/namespaces/${ns}/widgets/w1`)).status === 404, 'widget w1 to be gone');
    });

    test('auth can-i and api-resources', async () => {
      assert.equal((await ok(['auth', 'can-i', 'create', 'configmaps'])).trim(), 'yes');
      const resources = await ok(['api-resources']);
      assert.match(resources, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
      assert.match(resources, /^widgets\s+matrix\.example\.io\/v1\s+true\s+Widget$/m);
    });
  }
});
