/**
 * Conductor's own Client against a real server: the HTTPS client (token and client-cert
 * identities from the kubeconfig), informers, and leader election on a
 * Lease with two candidates.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinRefs, HttpClient, Informer, LeaderElector, loadKubeconfig } from '../../src/client/index.js';
import { isApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/object.js';
import { removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';


describe('Conductor HttpClient against the server', () => {
  let server: ServerProcess;
  let client: HttpClient;
  before(async () => {
    server = await startServer({ env: { CONDUCTOR_HISTORY_MIN_REVISIONS: '5', CONDUCTOR_HISTORY_MIN_AGE_MS: '0', CONDUCTOR_COMPACTION_INTERVAL_MS: '100' } });
    client = new HttpClient(await loadKubeconfig(server.kubeconfig));
    await client.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cl' } });
  });
  after(async () => {
    client?.close();
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('CRUD, patch types and errors as ApiError', async () => {
    const cm = await client.create<KObject>(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'cl' }, data: { a: '1' } });
    assert.ok(cm.metadata.uid);
    const merged = await client.patch(builtinRefs.configmaps, 'c', 'merge', { data: { b: '2' } }, { namespace: 'cl' });
    assert.deepEqual(merged.data, { a: '1', b: '2' });
    const applied = await client.patch(builtinRefs.configmaps, 'c', 'apply', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'cl' }, data: { z: '9' } }, { namespace: 'cl', fieldManager: 'tester' });
    assert.equal((applied.data as Record<string, string>).z, '9');
    await assert.rejects(client.create(builtinRefs.configmaps, cm), (err) => isApiError(err) && err.reason === 'AlreadyExists');
    await assert.rejects(client.update(builtinRefs.configmaps, { ...cm, data: { stale: 'yes' } }), (err) => isApiError(err) && err.code === 409);
    await client.delete(builtinRefs.configmaps, 'c', { namespace: 'cl' });
    await assert.rejects(client.get(builtinRefs.configmaps, 'c', 'cl'), (err) => isApiError(err) && err.code === 404);
  });

  test('informers: events while running, and a fresh list after the history they knew was compacted', async () => {
    const informer = new Informer<KObject>(client, builtinRefs.configmaps, { namespace: 'cl', backoff: { initialMs: 50, maxMs: 200 } });
    const deleted: string[] = [];
    informer.addHandler({ onDelete: (o) => deleted.push(o.metadata.name!) });
    informer.start();
    assert.equal(await informer.waitForSync(), true);
    await client.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'cl' } });
    await client.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'drop', namespace: 'cl' } });
    await eventually(() => informer.store.list().length === 2, 'both objects cached');
    informer.stop();
    // While the informer is away: history moves on and is compacted past its resourceVersion.
    await client.delete(builtinRefs.configmaps, 'drop', { namespace: 'cl' });
    for (let i = 0; i < 20; i++) await client.patch(builtinRefs.configmaps, 'keep', 'merge', { data: { i: String(i) } }, { namespace: 'cl' });
    await new Promise((r) => setTimeout(r, 300));
    const second = new Informer<KObject>(client, builtinRefs.configmaps, { namespace: 'cl' });
    second.start();
    assert.equal(await second.waitForSync(), true);
    assert.deepEqual(second.store.list().map((o) => o.metadata.name), ['keep']);
    assert.equal((second.store.get('cl', 'keep')!.data as Record<string, string>).i, '19');
    second.stop();
  });

  test('leader election: exactly one leader; the other takes over when it stops', async () => {
    const leading: string[] = [];
    const make = (id: string) =>
      new LeaderElector({
        client,
        namespace: 'cl',
        name: 'controller-lock',
        identity: id,
        leaseDurationMs: 1000,
        renewDeadlineMs: 700,
        retryPeriodMs: 100,
        onStartedLeading: () => {
          leading.push(id);
        },
      });
    const a = make('a');
    const b = make('b');
    a.start();
    await eventually(() => leading.length === 1, 'a leader');
    b.start();
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(leading, ['a']);
    assert.equal(b.isLeader(), false);
    await a.stop();
    await eventually(() => leading.length === 2, 'b takes over');
    assert.deepEqual(leading, ['a', 'b']);
    const lease = await client.get<KObject>(builtinRefs.leases, 'controller-lock', 'cl');
    assert.equal((lease.spec as { holderIdentity: string }).holderIdentity, 'b');
    await b.stop();
  });
});
