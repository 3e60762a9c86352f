/**
 * The everyday kubectl verbs against a real server: apply, get (table, yaml, json),
 * describe, patch (merge, json, strategic), label, annotate, delete, create secret,
 * api-resources, explain, wait, generateName.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { kubectlWatching } from '../support/kubectl-watching.js';

describe('kubectl basics', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServer();
    await kubectlOk(server, ['create', 'namespace', 'basics']);
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  const cm = `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: basics
  labels: {app: web}
data:
  color: blue
  size: large
`;

  test('apply creates, then re-apply with a change updates', async () => {
    const out1 = await kubectlOk(server, ['apply', '-f', '-'], { input: cm });
    assert.match(out1, /configmap\/app-config created/);
    const out2 = await kubectlOk(server, ['apply', '-f', '-'], { input: cm.replace('blue', 'green') });
    assert.match(out2, /configmap\/app-config configured/);
    const out3 = await kubectlOk(server, ['apply', '-f', '-'], { input: cm.replace('blue', 'green') });
    assert.match(out3, /configmap\/app-config unchanged/);
    assert.equal(await kubectlOk(server, ['get', 'cm', 'app-config', '-n', 'basics', '-o', 'jsonpath={.data.color}']), 'green');
  });

  test("get prints a table with the kind's columns", async () => {
    const out = await kubectlOk(server, ['get', 'configmaps', '-n', 'basics']);
    assert.match(out, /^NAME\s+DATA\s+AGE/m);
    assert.match(out, /^app-config\s+2\s+\d+s/m);
  });

  test('get -o yaml and -o json return the stored object', async () => {
    const y = await kubectlOk(server, ['get', 'cm', 'app-config', '-n', 'basics', '-o', 'yaml']);
    assert.match(y, /kind: ConfigMap/);
    assert.match(y, /resourceVersion: "\d+"/);
    const j = JSON.parse(await kubectlOk(server, ['get', 'cm', 'app-config', '-n', 'basics', '-o', 'json']));
    assert.equal(j.metadata.labels.app, 'web');
    assert.match(j.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.ok(j.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  });

  test('describe shows the object', async () => {
    const out = await kubectlOk(server, ['describe', 'configmap', 'app-config', '-n', 'basics']);
    assert.match(out, /Name:\s+app-config/);
    assert.match(out, /Namespace:\s+basics/);
    assert.match(out, /color/);
  });

  test('patch with merge, json and strategic patches', async () => {
    await kubectlOk(server, ['patch', 'cm', 'app-config', '-n', 'basics', '--type=merge', '-p', '{"data":{"shape":"round"}}']);
    await kubectlOk(server, ['patch', 'cm', 'app-config', '-n', 'basics', '--type=json', '-p', '[{"op":"remove","path":"/data/size"}]']);
    await kubectlOk(server, ['patch', 'cm', 'app-config', '-n', 'basics', '--type=strategic', '-p', '{"data":{"weight":"9"}}']);
    const data = JSON.parse(await kubectlOk(server, ['get', 'cm', 'app-config', '-n', 'basics', '-o', 'jsonpath={.data}']));
    assert.deepEqual(data, { color: 'green', shape: 'round', weight: '9' });
    const bad = await kubectl(server, ['patch', 'cm', 'app-config', '-n', 'basics', '--type=json', '-p', '[{"op":"test","path":"/data/color","value":"red"}]']);
    assert.notEqual(bad.code, 0);
  });

  test('label and annotate, then select by label', async () => {
    await kubectlOk(server, ['label', 'cm', 'app-config', '-n', 'basics', 'tier=frontend']);
    await kubectlOk(server, ['annotate', 'cm', 'app-config', '-n', 'basics', 'owner=team-a']);
    const out = await kubectlOk(server, ['get', 'cm', '-n', 'basics', '-l', 'tier=frontend', '-o', 'name']);
    assert.equal(out.trim(), 'configmap/app-config');
    const none = await kubectlOk(server, ['get', 'cm', '-n', 'basics', '-l', 'tier!=frontend,app=web', '-o', 'name']);
    assert.equal(none.trim(), '');
    const ann = await kubectlOk(server, ['get', 'cm', 'app-config', '-n', 'basics', '-o', 'jsonpath={.metadata.annotations.owner}']);
    assert.equal(ann, 'team-a');
    await kubectlOk(server, ['label', 'cm', 'app-config', '-n', 'basics', 'tier-']);
    const gone = await kubectlOk(server, ['get', 'cm', '-n', 'basics', '-l', 'tier', '-o', 'name']);
    assert.equal(gone.trim(), '');
  });

  test('field selectors filter lists', async () => {
    const out = await kubectlOk(server, ['get', 'cm', '-n', 'basics', '--field-selector', 'metadata.name=app-config', '-o', 'name']);
    assert.equal(out.trim(), 'configmap/app-config');
    const bad = await kubectl(server, ['get', 'cm', '-n', 'basics', '--field-selector', 'spec.nothing=1']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /field label not supported: spec\.nothing/);
  });

  test('create secret and read it back', async () => {
    await kubectlOk(server, ['create', 'secret', 'generic', 'db-pass', '-n', 'basics', '--from-literal=password=s3cr3t!']);
    const b64 = await kubectlOk(server, ['get', 'secret', 'db-pass', '-n', 'basics', '-o', 'jsonpath={.data.password}']);
    assert.equal(Buffer.from(b64, 'base64').toString(), 's3cr3t!');
    const table = await kubectlOk(server, ['get', 'secrets', '-n', 'basics']);
    assert.match(table, /^db-pass\s+Opaque\s+1\s+/m);
  });

  test('generateName gives a unique name', async () => {
    const out = await kubectlOk(server, ['create', '-f', '-', '-o', 'name'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-', namespace: 'basics' } }),
    });
    assert.match(out.trim(), /^configmap\/gen-[a-z0-9]{5}$/);
  });

  test('api-resources lists the built-in kinds', async () => {
    const out = await kubectlOk(server, ['api-resources']);
    for (const kind of ['Namespace', 'Secret', 'ConfigMap', 'Event', 'ServiceAccount', 'Lease', 'CustomResourceDefinition']) {
      assert.match(out, new RegExp(`\\s${kind}\\s*$`, 'm'), kind);
    }
    assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap/m);
  });

  test('explain describes fields', async () => {
    const out = await kubectlOk(server, ['explain', 'configmap.data']);
    assert.match(out, /KIND:\s+ConfigMap/);
    assert.match(out, /FIELD:\s+data/);
    const meta = await kubectlOk(server, ['explain', 'secret.metadata.labels']);
    assert.match(meta, /labels/);
  });

  test('delete and wait --for=delete', async () => {
    await kubectlOk(server, ['create', 'configmap', 'short-lived', '-n', 'basics']);
    const waiter = kubectlWatching(server, ['wait', '--for=delete', 'configmap/short-lived', '-n', 'basics', '--timeout=60s']);
    // Deleted once kubectl is watching, so the wait sees the deletion happen.
    await waiter.watching;
    await kubectlOk(server, ['delete', 'configmap', 'short-lived', '-n', 'basics']);
    const res = await waiter.done;
    assert.equal(res.code, 0, res.stderr);
    const get = await kubectl(server, ['get', 'configmap', 'short-lived', '-n', 'basics']);
    assert.notEqual(get.code, 0);
    assert.match(get.stderr, /NotFound|not found/);
  });

  test('an unknown kind is reported clearly', async () => {
    const res = await kubectl(server, ['get', 'widgets']);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /the server doesn't have a resource type "widgets"/);
  });
});
