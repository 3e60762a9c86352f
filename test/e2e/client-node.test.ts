/**
 * @kubernetes/client-node 1.4 against Conductor: typed CRUD, patch, list with selectors,
 * the generic KubernetesObjectApi, and its informer (list, watch, add/update/delete).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { removeDir, startServer, type ServerProcess } from '../support/server.js';

describe('@kubernetes/client-node', () => {
  let server: ServerProcess;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  before(async () => {
    server = await startServer();
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'cn' } } });
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('typed CRUD on ConfigMaps and Secrets', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'typed', labels: { a: 'b' } }, data: { k: 'v' } } });
    assert.equal(created.metadata?.name, 'typed');
    assert.ok(created.metadata?.resourceVersion);
    const read = await core.readNamespacedConfigMap({ name: 'typed', namespace: 'cn' });
    assert.equal(read.data?.k, 'v');
    read.data = { k: 'w' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'typed', namespace: 'cn', body: read });
    assert.equal(replaced.data?.k, 'w');
    const patched = await core.patchNamespacedConfigMap(
      { name: 'typed', namespace: 'cn', body: { data: { extra: '1' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.equal(patched.data?.extra, '1');
    const listed = await core.listNamespacedConfigMap({ namespace: 'cn', labelSelector: 'a=b' });
    assert.deepEqual(
      listed.items.map((i) => i.metadata?.name),
      ['typed'],
    );
    const secret = await core.createNamespacedSecret({ namespace: 'cn', body: { metadata: { name: 's' }, stringData: { password: 'pw' } } });
    assert.equal(Buffer.from(secret.data!.password, 'base64').toString(), 'pw');
    assert.equal(secret.stringData, undefined);
    await core.deleteNamespacedConfigMap({ name: 'typed', namespace: 'cn' });
    await assert.rejects(core.readNamespacedConfigMap({ name: 'typed', namespace: 'cn' }), (err: any) => err.code === 404);
  });

  test('the generic object API reads any kind', async () => {
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    const lease = await objects.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l1', namespace: 'cn' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 10 },
    } as k8s.KubernetesObject);
    assert.equal((lease as any).spec.holderIdentity, 'me');
    const got = await objects.read({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1', namespace: 'cn' } });
    assert.equal((got as any).spec.leaseDurationSeconds, 10);
  });

  test('the informer lists, then sees adds, updates and deletes', async () => {
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/cn/configmaps', () => core.listNamespacedConfigMap({ namespace: 'cn' }));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'inf' } } });
      await core.patchNamespacedConfigMap(
        { name: 'inf', namespace: 'cn', body: { data: { x: 'y' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await core.deleteNamespacedConfigMap({ name: 'inf', namespace: 'cn' });
      const deadline = Date.now() + 10_000;
      while (!seen.includes('delete:inf') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const mine = seen.filter((s) => s.endsWith(':inf'));
      assert.deepEqual(mine, ['add:inf', 'update:inf', 'delete:inf']);
      assert.equal(informer.get('inf', 'cn'), undefined);
    } finally {
      await informer.stop();
    }
  });
});
