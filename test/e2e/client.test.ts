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
import type { Client, ListOptions, ResourceRef, WatchEvent, WatchHandlers, WatchOptions } from '../../src/client/index.js';
import { removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

describe('Conductor HttpClient against the server', () => {
  let server: ServerProcess;
  let client: HttpClient;

  /** True when a watch of the test namespace's ConfigMaps from `rv` is answered with 410 Expired. */
  const watchFromExpires = (rv: string): Promise<boolean> =>
    new Promise((resolve) => {
      let settled = false;
      const settle = (v: boolean): void => {
        if (settled) return;
        settled = true;
        handle.stop();
        resolve(v);
      };
      const handle = client.watch(
        builtinRefs.configmaps,
        { namespace: 'cl', resourceVersion: rv },
        {
          onEvent: (e: WatchEvent) => settle(e.type === 'ERROR' && (e.object as unknown as { code?: number }).code === 410),
          onClose: (err) => settle(isApiError(err) && err.code === 410),
        },
      );
    });
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
    const cm = await client.create<KObject>(builtinRefs.configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'cl' },
      data: { a: '1' },
    });
    assert.ok(cm.metadata.uid);
    const merged = await client.patch(builtinRefs.configmaps, 'c', 'merge', { data: { b: '2' } }, { namespace: 'cl' });
    assert.deepEqual(merged.data, { a: '1', b: '2' });
    const applied = await client.patch(
      builtinRefs.configmaps,
      'c',
      'apply',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'cl' }, data: { z: '9' } },
      { namespace: 'cl', fieldManager: 'tester' },
    );
    assert.equal((applied.data as Record<string, string>).z, '9');
    await assert.rejects(client.create(builtinRefs.configmaps, cm), (err) => isApiError(err) && err.reason === 'AlreadyExists');
    await assert.rejects(client.update(builtinRefs.configmaps, { ...cm, data: { stale: 'yes' } }), (err) => isApiError(err) && err.code === 409);
    await client.delete(builtinRefs.configmaps, 'c', { namespace: 'cl' });
    await assert.rejects(client.get(builtinRefs.configmaps, 'c', 'cl'), (err) => isApiError(err) && err.code === 404);
  });

  test('informers: events while running; when the history they knew was compacted, the same informer gets 410 Expired, relists and converges', async () => {
    // The informer's client: the real one, with the list calls counted and a switch that
    // silences the current watch (its events are lost, as on a stalled connection) and then
    // drops it, so the informer re-watches from the resourceVersion it last saw.
    let lists = 0;
    let silenced = false;
    let dropCurrent: (() => void) | undefined;
    const watched: Client = Object.create(client) as Client;
    watched.list = <T extends KObject>(ref: ResourceRef, options?: ListOptions) => {
      lists++;
      return client.list<T>(ref, options);
    };
    watched.watch = <T extends KObject>(ref: ResourceRef, options: WatchOptions, handlers: WatchHandlers<T>) => {
      let dropped = false;
      const handle = client.watch<T>(ref, options, {
        onEvent: (e) => {
          if (!dropped && !silenced) handlers.onEvent(e);
        },
        onClose: (err) => {
          if (!dropped) handlers.onClose(err);
        },
      });
      dropCurrent = () => {
        dropped = true;
        handle.stop();
        handlers.onClose(new Error('the watch connection was dropped'));
      };
      return handle;
    };
    const informer = new Informer<KObject>(watched, builtinRefs.configmaps, { namespace: 'cl', backoff: { initialMs: 50, maxMs: 200 } });
    const seen: string[] = [];
    informer.addHandler({ onAdd: (o) => seen.push(`add ${o.metadata.name}`), onDelete: (o) => seen.push(`delete ${o.metadata.name}`) });
    informer.start();
    try {
      assert.equal(await informer.waitForSync(), true);
      await client.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'cl' } });
      await client.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'drop', namespace: 'cl' } });
      await eventually(() => informer.store.list().length === 2, 'both objects cached');
      assert.equal(lists, 1);
      const knownRv = informer.lastSyncResourceVersion;

      // The gap: the informer hears nothing while an object is deleted, one is added and one
      // changes twenty times, and the history is compacted past what it knew.
      silenced = true;
      await client.delete(builtinRefs.configmaps, 'drop', { namespace: 'cl' });
      await client.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'added', namespace: 'cl' } });
      for (let i = 0; i < 20; i++) await client.patch(builtinRefs.configmaps, 'keep', 'merge', { data: { i: String(i) } }, { namespace: 'cl' });
      await eventually(() => watchFromExpires(knownRv), `the history compacted past resourceVersion ${knownRv}`);
      assert.equal(informer.lastSyncResourceVersion, knownRv, 'the informer heard nothing of the gap');
      assert.deepEqual(
        informer.store
          .list()
          .map((o) => o.metadata.name)
          .sort(),
        ['drop', 'keep'],
      );

      // The same informer re-watches from knownRv, gets 410 Expired and relists.
      silenced = false;
      dropCurrent!();
      await eventually(() => lists === 2 && informer.store.list().length === 2 && informer.store.get('cl', 'added'), 'the informer relisted');
      assert.deepEqual(
        informer.store
          .list()
          .map((o) => o.metadata.name)
          .sort(),
        ['added', 'keep'],
      );
      assert.equal((informer.store.get('cl', 'keep')!.data as Record<string, string>).i, '19');
      assert.deepEqual(seen.slice(-2).sort(), ['add added', 'delete drop'], 'the relist delivered the difference to the handlers');

      // And it watches again from the relist: a later change arrives without another list.
      await client.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', namespace: 'cl' } });
      await eventually(() => informer.store.get('cl', 'after'), 'a change after the relist');
      assert.equal(lists, 2);
    } finally {
      informer.stop();
    }
  });

  test('leader election: exactly one leader; the other takes over when it stops', async (t) => {
    const leading: string[] = [];
    const make = (id: string) =>
      new LeaderElector({
        client,
        namespace: 'cl',
        name: 'controller-lock',
        identity: id,
        // Long enough that a loaded machine (two test files at once on two cores) does not make
        // the leader miss its renew deadline, which would rightly end its leadership.
        leaseDurationMs: 3000,
        renewDeadlineMs: 2000,
        retryPeriodMs: 200,
        onStartedLeading: () => {
          leading.push(id);
        },
      });
    const a = make('a');
    const b = make('b');
    // Stopped whatever happens: a running elector keeps the test process alive.
    t.after(async () => {
      await a.stop();
      await b.stop();
    });
    a.start();
    await eventually(() => leading.length === 1, 'a leader');
    b.start();
    // Something that must NOT happen (b leading while a renews) takes a wait: longer than the
    // lease (3000 ms), so b would have taken over had a stopped renewing.
    await new Promise((r) => setTimeout(r, 3500));
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
