/**
 * Watch semantics: resourceVersion resume with no gap, label-selector transitions, bookmarks,
 * 410 Expired as an ERROR event once history is compacted, and `kubectl get -w`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlOk, serverForSuite } from '../support/server.js';
import { kubectlWatching } from '../support/kubectl-watching.js';
import { eventually } from '../support/eventually.js';

const cmPath = '/api/v1/namespaces/watching/configmaps';

describe('watch', () => {
  // A short history (20 revisions, no age floor) so the test can provoke 410 Expired.
  const t = serverForSuite({
    env: {
      CONDUCTOR_HISTORY_MIN_REVISIONS: '20',
      CONDUCTOR_HISTORY_MIN_AGE_MS: '0',
      CONDUCTOR_COMPACTION_INTERVAL_MS: '200',
      CONDUCTOR_BOOKMARK_INTERVAL_MS: '300',
    },
    setup: async (s) => {
      assert.equal((await s.api.request('POST', '/api/v1/namespaces', { metadata: { name: 'watching' } })).status, 201);
    },
  });

  test('a watch from a resourceVersion replays exactly what happened after it, then live events', async () => {
    const first = (await t.api.request('POST', cmPath, { metadata: { name: 'a' }, data: { v: '1' } })).json();
    const rv = first.metadata.resourceVersion;
    await t.api.request('PUT', `${cmPath}/a`, { metadata: { name: 'a' }, data: { v: '2' } });
    await t.api.request('POST', cmPath, { metadata: { name: 'b' } });
    const w = t.api.watch(`${cmPath}?watch=1&resourceVersion=${rv}`);
    await w.until((ev) => ev.length >= 2);
    await t.api.request('DELETE', `${cmPath}/b`);
    await w.until((ev) => ev.length >= 3);
    w.stop();
    assert.deepEqual(
      w.events.map((e) => [e.type, e.object.metadata.name]),
      [
        ['MODIFIED', 'a'],
        ['ADDED', 'b'],
        ['DELETED', 'b'],
      ],
    );
    const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.ok(
      rvs.every((r, i) => i === 0 || r > rvs[i - 1]),
      'resourceVersions increase',
    );
  });

  test('a watch without resourceVersion starts with ADDED for existing objects', async () => {
    const w = t.api.watch(`${cmPath}?watch=true`);
    await w.until((ev) => ev.some((e) => e.object.metadata.name === 'a'));
    w.stop();
    assert.equal(w.events[0].type, 'ADDED');
  });

  test('label-selector watches see objects enter (ADDED) and leave (DELETED) the selection', async () => {
    const list = (await t.api.request('GET', cmPath)).json();
    const w = t.api.watch(`${cmPath}?watch=1&labelSelector=tier%3Dgold&resourceVersion=${list.metadata.resourceVersion}`);
    await w.status;
    await t.api.request('POST', cmPath, { metadata: { name: 'c', labels: { tier: 'silver' } } });
    await t.api.request('PATCH', `${cmPath}/c`, { metadata: { labels: { tier: 'gold' } } }, { 'Content-Type': 'application/merge-patch+json' });
    await t.api.request('PATCH', `${cmPath}/c`, { data: { x: 'y' } }, { 'Content-Type': 'application/merge-patch+json' });
    await t.api.request('PATCH', `${cmPath}/c`, { metadata: { labels: { tier: 'bronze' } } }, { 'Content-Type': 'application/merge-patch+json' });
    await w.until((ev) => ev.length >= 3);
    w.stop();
    assert.deepEqual(
      w.events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
  });

  test('bookmarks arrive when allowed', async () => {
    const list = (await t.api.request('GET', cmPath)).json();
    const w = t.api.watch(`${cmPath}?watch=1&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}`);
    await w.until((ev) => ev.some((e) => e.type === 'BOOKMARK'), 5000);
    w.stop();
    const bm = w.events.find((e) => e.type === 'BOOKMARK')!;
    assert.equal(bm.object.kind, 'ConfigMap');
    assert.ok(Number(bm.object.metadata.resourceVersion) >= Number(list.metadata.resourceVersion));
  });

  test('watching from a compacted resourceVersion gives an ERROR event with 410 Expired', async () => {
    const old = (await t.api.request('POST', cmPath, { metadata: { name: 'old' } })).json().metadata.resourceVersion;
    for (let i = 0; i < 40; i++) await t.api.request('PUT', `${cmPath}/old`, { metadata: { name: 'old' }, data: { i: String(i) } });
    // Wait for the compactor (every 200 ms) to pass that revision: a list at it becomes 410.
    await eventually(
      async () => ((await t.api.request('GET', `${cmPath}?resourceVersion=${old}&resourceVersionMatch=Exact`)).status === 410 ? true : undefined),
      'compaction past the old revision',
    );
    const w = t.api.watch(`${cmPath}?watch=1&resourceVersion=${old}`);
    assert.equal(await w.status, 200);
    await w.until((ev) => ev.length >= 1);
    await w.ended;
    assert.equal(w.events[0].type, 'ERROR');
    assert.equal(w.events[0].object.kind, 'Status');
    assert.equal(w.events[0].object.code, 410);
    assert.equal(w.events[0].object.reason, 'Expired');
  });

  test('kubectl get -w prints changes as they happen', async () => {
    const watcher = kubectlWatching(t.server, ['get', 'configmaps', '-n', 'watching', '-w', '--request-timeout=4s'], { timeoutMs: 15_000 });
    // Created once kubectl is watching: the line comes from the watch, not the first list.
    await watcher.watching;
    await kubectlOk(t.server, ['create', 'configmap', 'live-one', '-n', 'watching']);
    const r = await watcher.done;
    assert.match(r.stdout, /^NAME\s+DATA\s+AGE/m);
    assert.match(r.stdout, /^live-one\s+0\s+\d+s/m);
  });
});
