/**
 * Deletion across crashes: removing the last finalizer of an object being deleted removes
 * the object in the same store write, so a SIGKILL at that moment leaves it either gone or
 * still held by its finalizer — never stored with a deletionTimestamp and no finalizers. An
 * object found in that state at start-up (written by an older version) is removed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, removeDir, startServer, tempDir } from '../support/server.js';

const noControllers = { CONDUCTOR_CONTROLLERS: 'false' };

/** Stuck: being deleted with nothing left to remove it. */
function stuck(obj: { metadata: { deletionTimestamp?: string; finalizers?: string[] } }): boolean {
  return !!obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).length === 0;
}

describe('deletion across crashes', () => {
  test('a SIGKILL while the last finalizer is removed never leaves the object stuck being deleted', async () => {
    const dataDir = tempDir();
    let server = await startServer({ dataDir, env: { ...noControllers, CONDUCTOR_CRASH_AT: 'apiserver.finalize-delete' } });
    try {
      const manifest = JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/hold'] },
        data: { a: 'b' },
      });
      await kubectlOk(server, ['apply', '-f', '-'], { input: manifest });
      await kubectlOk(server, ['delete', 'configmap', 'held', '-n', 'default', '--wait=false']);
      const terminating = JSON.parse(await kubectlOk(server, ['get', 'configmap', 'held', '-n', 'default', '-o', 'json']));
      assert.ok(terminating.metadata.deletionTimestamp, 'the delete marked the object');

      // Removing the last finalizer reaches the crash point: the server dies without answering.
      const exited = new Promise<string | null>((r) => server.child.once('exit', (_code, signal) => r(signal)));
      const patch = await kubectl(server, ['patch', 'configmap', 'held', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      assert.notEqual(patch.code, 0, 'the patch cannot have been answered: the server was killed');
      assert.equal(await exited, 'SIGKILL');
      assert.match(server.stderr(), /crash point apiserver\.finalize-delete reached/);

      server = await startServer({ dataDir, env: noControllers });
      const after = await kubectl(server, ['get', 'configmap', 'held', '-n', 'default', '-o', 'json']);
      if (after.code === 0) {
        const obj = JSON.parse(after.stdout);
        assert.ok(!stuck(obj), `stuck being deleted with no finalizers: ${after.stdout}`);
        assert.deepEqual(obj.metadata.finalizers, ['example.com/hold']);
        // Still held by its finalizer: removing it now (no crash point armed) finishes the delete.
        await kubectlOk(server, ['patch', 'configmap', 'held', '-n', 'default', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
        const gone = await kubectl(server, ['get', 'configmap', 'held', '-n', 'default']);
        assert.notEqual(gone.code, 0);
        assert.match(gone.stderr, /NotFound|not found/);
      } else {
        assert.match(after.stderr, /NotFound|not found/);
      }
    } finally {
      await server.kill();
      removeDir(dataDir);
    }
  });

  test('removing the last finalizer: the caller gets the object without finalizers, a watcher gets one DELETED', async () => {
    const dataDir = tempDir();
    const server = await startServer({ dataDir, env: noControllers });
    const { apiFromKubeconfig } = await import('../support/api.js');
    const api = apiFromKubeconfig(server.kubeconfig);
    try {
      const path = '/api/v1/namespaces/default/configmaps';
      const created = (await api.request('POST', path, { metadata: { name: 'w', finalizers: ['example.com/hold'] } })).json();
      const marked = (await api.request('DELETE', `${path}/w`)).json();
      assert.ok(marked.metadata.deletionTimestamp);
      const w = api.watch(`${path}?watch=1&resourceVersion=${marked.metadata.resourceVersion}`);
      await w.status;
      const r = await api.request('PATCH', `${path}/w`, { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
      assert.equal(r.status, 200);
      const answered = r.json();
      assert.equal(answered.metadata.finalizers, undefined);
      assert.equal(answered.metadata.uid, created.metadata.uid);
      await w.until((ev) => ev.some((e) => e.type === 'DELETED'));
      w.stop();
      assert.deepEqual(
        w.events.map((e) => e.type),
        ['DELETED'],
      );
      assert.equal(w.events[0].object.metadata.resourceVersion, answered.metadata.resourceVersion, 'the answer carries the revision of the delete');
      assert.equal((await api.request('GET', `${path}/w`)).status, 404);
    } finally {
      api.close();
      await server.kill();
      removeDir(dataDir);
    }
  });

  test('an object stored being deleted with no finalizers is removed at start-up; one still held is kept', async () => {
    const dataDir = tempDir();
    let server = await startServer({ dataDir, env: noControllers });
    await server.stop();
    // Written straight into the store file, as a crash between two writes of an older version left it.
    const store = openSqliteStore({ path: join(dataDir, 'state.db'), compactionIntervalMs: 0 });
    const object = (name: string, finalizers: string[]) => () =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          namespace: 'default',
          uid: randomUUID(),
          creationTimestamp: '2026-01-01T00:00:00Z',
          deletionTimestamp: '2026-01-01T00:01:00Z',
          deletionGracePeriodSeconds: 0,
          finalizers,
        },
        data: { k: 'v' },
      });
    await store.create('/registry/core/configmaps/default/left-behind', object('left-behind', []));
    await store.create('/registry/core/configmaps/default/no-list', object('no-list', undefined as unknown as string[]));
    await store.create('/registry/core/configmaps/default/still-held', object('still-held', ['example.com/hold']));
    await store.create('/registry/core/namespaces/ending', () =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: 'ending',
          uid: randomUUID(),
          creationTimestamp: '2026-01-01T00:00:00Z',
          deletionTimestamp: '2026-01-01T00:01:00Z',
          labels: { 'kubernetes.io/metadata.name': 'ending' },
        },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Terminating' },
      }),
    );
    await store.close();

    server = await startServer({ dataDir, env: noControllers });
    try {
      for (const name of ['left-behind', 'no-list']) {
        const r = await kubectl(server, ['get', 'configmap', name, '-n', 'default']);
        assert.notEqual(r.code, 0, `${name} is still there`);
        assert.match(r.stderr, /NotFound|not found/);
      }
      const held = JSON.parse(await kubectlOk(server, ['get', 'configmap', 'still-held', '-n', 'default', '-o', 'json']));
      assert.deepEqual(held.metadata.finalizers, ['example.com/hold']);
      const swept = server
        .stderr()
        .split('\n')
        .filter((l) => l.includes('removed an object left being deleted with no finalizers'));
      assert.ok(
        swept.some((l) => l.includes('/registry/core/configmaps/default/left-behind')),
        `the sweep logs what it removed: ${swept.join('\n')}`,
      );
      // A terminating namespace is held by spec.finalizers: the sweep leaves it to the namespace controller.
      assert.ok(!swept.some((l) => l.includes('/registry/core/namespaces/ending')), `the sweep removed a terminating namespace: ${swept.join('\n')}`);
      await eventually(async () => (await kubectl(server, ['get', 'namespace', 'ending'])).code !== 0, 'the namespace controller to finish namespace ending');
    } finally {
      await server.kill();
      removeDir(dataDir);
    }
  });
});
