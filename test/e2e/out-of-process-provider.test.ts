/**
 * A provider in another process, through the HTTPS API only (test/out-of-process-provider/:
 * client-node and a kubeconfig, no code of Conductor's), registers a new abstract kind
 * (KeyValueStore, labelled conductor.io/abstract) and a concrete kind implementing it
 * (TinyKVServer, annotated conductor.io/implements), after Conductor started. Conductor must
 * schedule, bind, provision, publish and release claims of that kind with no code for either:
 * a claim binds to a fitting static server, its connection Secret works against the real
 * server, a claim nothing fits stays Pending and says why, a class provisions a server
 * configured from the claim, and deleting claims applies Retain and Delete.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { cliPath, kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const SYS = 'conductor-system';
const providerScript = join(import.meta.dirname, '..', 'out-of-process-provider', 'tinykv-provider.js');
const claimPath = (ns: string, name: string) => `/apis/kv.conductor.example/v1alpha1/namespaces/${ns}/keyvaluestores/${name}`;
const serverPath = (name: string) => `/apis/tinykv.provider.example/v1alpha1/namespaces/${SYS}/tinykvservers/${name}`;

describe('an out-of-process provider of a CRD-defined abstract kind', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  let provider: ChildProcess;
  let providerOutput = '';

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => {
    const res = await api.request('GET', path);
    return res.status === 404 ? undefined : res.json();
  };
  const readyCondition = (o: any) => o?.status?.conditions?.find((c: any) => c.type === 'Ready');
  const boundAndReady = (ns: string, name: string) =>
    eventually(
      async () => {
        const c = await get(claimPath(ns, name));
        return c?.status?.phase === 'Bound' && readyCondition(c)?.status === 'True' ? c : undefined;
      },
      `KeyValueStore ${ns}/${name} Bound and Ready`,
      30_000,
    );
  const secretOf = async (ns: string, name: string): Promise<Record<string, string>> => {
    const s = await get(`/api/v1/namespaces/${ns}/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const put = (details: Record<string, string>, key: string, value: string) =>
    fetch(`${details.endpoint}/kv/${key}`, { method: 'PUT', body: value, headers: { authorization: `Bearer ${details.token}` } });
  const claim = (name: string, maxKeys: number, extra = '') => `apiVersion: kv.conductor.example/v1alpha1
kind: KeyValueStore
metadata: {name: ${name}, namespace: apps}
spec:
  maxKeys: ${maxKeys}
${extra}`;

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '1000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await apply('apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n');
    provider = spawn(process.execPath, [providerScript], { env: { ...process.env, KUBECONFIG: server.kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
    provider.stdout!.on('data', (d: Buffer) => (providerOutput += d.toString()));
    provider.stderr!.on('data', (d: Buffer) => (providerOutput += d.toString()));
    await eventually(() => providerOutput.includes('tinykv provider running'), `the provider registered its CRDs (output: ${providerOutput})`, 30_000);
  });

  after(async () => {
    provider?.kill('SIGTERM');
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('the kinds were registered by the provider, not by Conductor', async () => {
    const claimCrd = await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/keyvaluestores.kv.conductor.example');
    assert.equal(claimCrd.metadata.labels['conductor.io/abstract'], 'true');
    const concreteCrd = await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/tinykvservers.tinykv.provider.example');
    assert.equal(concreteCrd.metadata.annotations['conductor.io/implements'], 'keyvaluestores.kv.conductor.example');
  });

  test('a claim binds to a fitting static resource, and its connection Secret reaches the real server', async () => {
    await apply(`apiVersion: tinykv.provider.example/v1alpha1
kind: TinyKVServer
metadata: {name: small, namespace: ${SYS}}
spec: {maxKeys: 2}
---
apiVersion: tinykv.provider.example/v1alpha1
kind: TinyKVServer
metadata: {name: big, namespace: ${SYS}}
spec: {maxKeys: 50}
`);
    await eventually(async () => (await get(serverPath('small')))?.status?.phase === 'Available', 'TinyKVServer small Available', 30_000);
    await apply(claim('sessions', 2));
    const bound = await boundAndReady('apps', 'sessions');
    assert.equal(bound.status.resourceRef.kind, 'TinyKVServer');
    assert.equal(bound.status.resourceRef.name, 'small', 'maxKeys 2 is honoured by small only');
    const resource = await get(serverPath('small'));
    assert.equal(resource.spec.claimRef.name, 'sessions');
    assert.equal(resource.spec.claimRef.uid, bound.metadata.uid);
    assert.equal(resource.status.phase, 'Bound', 'Conductor writes the phase a binding means');
    assert.equal(resource.status.claim, 'apps/sessions');

    const details = await secretOf('apps', 'sessions');
    assert.deepEqual(Object.keys(details).sort(), ['endpoint', 'server', 'token'], "the claim kind's keys and the one the concrete kind adds");
    assert.equal(details.server, `${SYS}/small`);
    assert.equal((await put(details, 'a', '1')).status, 204);
    assert.equal((await put(details, 'b', '2')).status, 204);
    assert.equal((await put(details, 'c', '3')).status, 507, 'the store bound holds at most 2 keys');
    const read = await fetch(`${details.endpoint}/kv/a`, { headers: { authorization: `Bearer ${details.token}` } });
    assert.equal(await read.text(), '1');
    const configMap = await get('/api/v1/namespaces/apps/configmaps/sessions');
    assert.equal(configMap.data.endpoint, details.endpoint);
    assert.equal(configMap.data.token, undefined, 'the token is not in the ConfigMap');
  });

  test('a claim nothing fits stays Pending and says why; a class then provisions a resource configured from it', async () => {
    await apply(claim('catalog', 7));
    const pending = await eventually(
      async () => {
        const c = await get(claimPath('apps', 'catalog'));
        const scheduled = c?.status?.conditions?.find((x: any) => x.type === 'Scheduled');
        return scheduled?.status === 'False' ? scheduled : undefined;
      },
      'KeyValueStore apps/catalog Scheduled=False',
      30_000,
    );
    assert.match(pending.message, /maxKeys is not 7/);
    assert.equal((await get(claimPath('apps', 'catalog'))).status.phase, 'Pending');

    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata:
  name: tinykv
  namespace: ${SYS}
  annotations: {conductor.io/is-default-class: "true"}
supportedResources: [KeyValueStore.v1alpha1.kv.conductor.example]
rebindPolicy: Delete
template:
  apiVersion: tinykv.provider.example/v1alpha1
  kind: TinyKVServer
  spec: {}
`);
    const bound = await boundAndReady('apps', 'catalog');
    assert.deepEqual(bound.status.classRef, { namespace: SYS, name: 'tinykv' });
    const made = await get(serverPath(bound.status.resourceRef.name));
    assert.equal(made.spec.maxKeys, 7, "the claim's portable field was written into the new resource");
    assert.equal(made.spec.rebindPolicy, 'Delete');
    const details = await secretOf('apps', 'catalog');
    for (let i = 0; i < 7; i++) assert.equal((await put(details, `k${i}`, 'v')).status, 204);
    assert.equal((await put(details, 'k7', 'v')).status, 507);
  });

  test("a developer bound to conductor:app-developer claims the new kind, and cannot touch the provider's kind", async () => {
    const dev = { kubeconfig: join(server.dataDir, 'dev.kubeconfig') };
    await promisify(execFile)(process.execPath, [cliPath, 'user', 'add', 'dev', '--data-dir', server.dataDir, '--out', dev.kubeconfig]);
    await kubectlOk(server, ['create', 'rolebinding', 'devs', '--clusterrole=conductor:app-developer', '--user=dev', '-n', 'apps']);
    // The built-in roles follow claim kinds added at run time.
    await eventually(
      async () => (await kubectl(dev, ['apply', '-f', '-'], { input: claim('from-dev', 50) })).code === 0,
      'the developer may create a KeyValueStore',
      30_000,
    );
    const bound = await boundAndReady('apps', 'from-dev');
    assert.equal(bound.status.resourceRef.name, 'big');
    const denied = await kubectl(dev, ['get', 'tinykvservers', '-n', SYS]);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /forbidden/i);
    await kubectlOk(server, ['delete', 'keyvaluestore', 'from-dev', '-n', 'apps', '--wait=true', '--timeout=60s']);
  });

  test('deleting claims applies the rebind policy: Retain keeps the resource Released, Delete deletes it and its server', async () => {
    const provisioned = (await get(claimPath('apps', 'catalog'))).status.resourceRef.name as string;
    const details = await secretOf('apps', 'catalog');
    await kubectlOk(server, ['delete', 'keyvaluestore', 'sessions', 'catalog', '-n', 'apps', '--wait=true', '--timeout=60s']);
    assert.equal(await get(claimPath('apps', 'sessions')), undefined);
    await eventually(async () => (await get(serverPath('small')))?.status?.phase === 'Released', 'TinyKVServer small Released', 30_000);
    await eventually(async () => (await get(serverPath(provisioned))) === undefined, `TinyKVServer ${provisioned} deleted`, 30_000);
    await eventually(
      async () => {
        try {
          await put(details, 'x', 'y');
          return false;
        } catch {
          return true; // connection refused: the provider stopped the server
        }
      },
      'the provisioned server stopped',
      30_000,
    );
  });

  test('a claim of the new kind that never bound is deleted at once (it does not hang Terminating)', async () => {
    await apply(claim('nothing-fits', 3, '  resourceName: no-such-server\n'));
    await eventually(async () => (await get(claimPath('apps', 'nothing-fits')))?.status?.phase === 'Pending', 'nothing-fits Pending', 30_000);
    await kubectlOk(server, ['delete', 'keyvaluestore', 'nothing-fits', '-n', 'apps', '--wait=true', '--timeout=60s']);
    assert.equal(await get(claimPath('apps', 'nothing-fits')), undefined);
  });
});
