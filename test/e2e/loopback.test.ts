/**
 * The in-process LoopbackClient goes through the same validation, admission and
 * authorization as HTTP: the same object is rejected the same way by both, and watches see
 * writes from either side.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../src/apiserver/server.js';
import { builtinRefs, HttpClient, loadKubeconfig, type WatchEvent } from '../../src/client/index.js';
import type { ApiError } from '../../src/machinery/errors.js';
import { isApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/object.js';
import { eventually } from '../support/eventually.js';
import { removeDir, tempDir } from '../support/server.js';

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (isApiError(err)) return err;
    throw err;
  }
  throw new Error('expected the call to be rejected');
}

describe('loopback client', () => {
  const dataDir = tempDir();
  let server: RunningServer;
  let http: HttpClient;
  before(async () => {
    server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
    http = new HttpClient(await loadKubeconfig(server.kubeconfigPath));
  });
  after(async () => {
    http?.close();
    await server?.close();
    removeDir(dataDir);
  });

  test('rejects invalid objects exactly as HTTP does', async () => {
    const bad = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name', namespace: 'default' }, data: { k: 1 } } as unknown as KObject;
    const viaLoopback = await rejection(server.client.create(builtinRefs.configmaps, bad));
    const viaHttp = await rejection(http.create(builtinRefs.configmaps, bad));
    assert.equal(viaLoopback.code, 422);
    assert.deepEqual(viaLoopback.status, viaHttp.status);
  });

  test('rejects creation in a missing namespace exactly as HTTP does', async () => {
    const obj: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'no-such-ns' } };
    const a = await rejection(server.client.create(builtinRefs.configmaps, obj));
    const b = await rejection(http.create(builtinRefs.configmaps, obj));
    assert.equal(a.code, 404);
    assert.deepEqual(a.status, b.status);
  });

  test('a loopback watch sees HTTP writes and an HTTP watch sees loopback writes', async () => {
    const seenLoop: WatchEvent[] = [];
    const seenHttp: WatchEvent[] = [];
    const h1 = server.client.watch(
      builtinRefs.configmaps,
      { namespace: 'default', resourceVersion: String(server.store.currentRevision()) },
      { onEvent: (e) => seenLoop.push(e), onClose: () => {} },
    );
    const h2 = http.watch(
      builtinRefs.configmaps,
      { namespace: 'default', resourceVersion: String(server.store.currentRevision()) },
      { onEvent: (e) => seenHttp.push(e), onClose: () => {} },
    );
    // Both watches start from a resourceVersion taken before the writes: they get the writes
    // however late they open, so no wait is needed before writing.
    await http.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-http', namespace: 'default' } });
    await server.client.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-loopback', namespace: 'default' } });
    await eventually(() => seenLoop.length >= 2 && seenHttp.length >= 2, 'both watches saw both writes');
    h1.stop();
    h2.stop();
    const names = (evs: WatchEvent[]) => evs.map((e) => `${e.type}:${e.object.metadata.name}`);
    assert.deepEqual(names(seenLoop), ['ADDED:from-http', 'ADDED:from-loopback']);
    assert.deepEqual(names(seenHttp), names(seenLoop));
  });

  test("read-only loopback watchers share the event's object; the others get copies of their own", async () => {
    const rv = String(server.store.currentRevision());
    const got: Record<string, KObject[]> = { ro1: [], ro2: [], own: [] };
    const watch = (k: string, readOnly: boolean) =>
      server.client.watch(
        builtinRefs.configmaps,
        { namespace: 'default', resourceVersion: rv, readOnly },
        { onEvent: (e) => got[k].push(e.object), onClose: () => {} },
      );
    const handles = [watch('ro1', true), watch('ro2', true), watch('own', false)];
    await server.client.create(builtinRefs.configmaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shared-event', namespace: 'default' },
      data: { a: '1' },
    });
    await eventually(() => Object.values(got).every((l) => l.length >= 1), 'every watcher saw the write');
    for (const h of handles) h.stop();
    assert.equal(got.ro1[0], got.ro2[0], 'read-only watchers see one shared object');
    assert.notEqual(got.own[0], got.ro1[0], 'a watcher that may change its object has its own');
    assert.deepEqual(got.own[0], got.ro1[0]);
  });
});
