/**
 * Optimistic concurrency and field ownership: 409 on a stale update, server-side apply with
 * field managers, conflicts between managers and --force-conflicts, dry runs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

const cms = '/api/v1/namespaces/default/configmaps';

describe('conflicts and server-side apply', () => {
  const t = serverForSuite({});

  test('an update with a stale resourceVersion is a 409 Conflict', async () => {
    const created = (await t.api.request('POST', cms, { metadata: { name: 'cas' }, data: { n: '0' } })).json();
    const ok = await t.api.request('PUT', `${cms}/cas`, { ...created, data: { n: '1' } });
    assert.equal(ok.status, 200);
    const stale = await t.api.request('PUT', `${cms}/cas`, { ...created, data: { n: '2' } });
    assert.equal(stale.status, 409);
    const st = stale.json();
    assert.equal(st.kind, 'Status');
    assert.equal(st.reason, 'Conflict');
    assert.match(st.message, /the object has been modified/);
    assert.equal((await t.api.request('GET', `${cms}/cas`)).json().data.n, '1');
  });

  test('concurrent read-modify-write loops lose no update', async () => {
    await t.api.request('POST', cms, { metadata: { name: 'counter' }, data: { n: '0' } });
    const worker = async () => {
      for (let i = 0; i < 10; i++) {
        for (;;) {
          const cur = (await t.api.request('GET', `${cms}/counter`)).json();
          cur.data.n = String(Number(cur.data.n) + 1);
          const r = await t.api.request('PUT', `${cms}/counter`, cur);
          if (r.status === 200) break;
          assert.equal(r.status, 409);
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    assert.equal((await t.api.request('GET', `${cms}/counter`)).json().data.n, '40');
  });

  test('kubectl apply --server-side records a field manager; another manager conflicts; --force-conflicts takes over', async () => {
    const doc = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: default}\ndata: {owner: alice, shared: x}\n';
    await kubectlOk(t.server, ['apply', '--server-side', '--field-manager=alice', '-f', '-'], { input: doc });
    const obj = (await t.api.request('GET', `${cms}/ssa`)).json();
    const alice = obj.metadata.managedFields.find((m: any) => m.manager === 'alice');
    assert.equal(alice.operation, 'Apply');
    assert.ok(alice.fieldsV1['f:data']['f:owner']);

    const bob = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: default}\ndata: {owner: bob}\n';
    const conflict = await kubectl(t.server, ['apply', '--server-side', '--field-manager=bob', '-f', '-'], { input: bob });
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /conflict/i);
    assert.match(conflict.stderr, /\.data\.owner/);

    await kubectlOk(t.server, ['apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', '-'], { input: bob });
    const after = (await t.api.request('GET', `${cms}/ssa`)).json();
    assert.equal(after.data.owner, 'bob');
    assert.equal(after.data.shared, 'x', 'fields bob did not apply stay');

    // alice re-applies without "shared": she owned it alone, so it is removed.
    await kubectlOk(t.server, ['apply', '--server-side', '--field-manager=alice', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: default}\ndata: {extra: why}\n',
    });
    const final = (await t.api.request('GET', `${cms}/ssa`)).json();
    assert.deepEqual(final.data, { owner: 'bob', extra: 'why' });
  });

  test('apply without a field manager is a 400', async () => {
    const r = await t.api.request('PATCH', `${cms}/nobody`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nobody}\n', {
      'Content-Type': 'application/apply-patch+yaml',
      'User-Agent': '',
    });
    assert.equal(r.status, 400);
  });

  test('dry-run create and delete change nothing', async () => {
    const r = await t.api.request('POST', `${cms}?dryRun=All`, { metadata: { name: 'phantom' } });
    assert.equal(r.status, 200);
    assert.equal((await t.api.request('GET', `${cms}/phantom`)).status, 404);
    await t.api.request('POST', cms, { metadata: { name: 'keep' } });
    assert.equal((await t.api.request('DELETE', `${cms}/keep?dryRun=All`)).status, 200);
    assert.equal((await t.api.request('GET', `${cms}/keep`)).status, 200);
  });

  test('create of an existing name is a 409 AlreadyExists', async () => {
    await t.api.request('POST', cms, { metadata: { name: 'dup' } });
    const r = await t.api.request('POST', cms, { metadata: { name: 'dup' } });
    assert.equal(r.status, 409);
    assert.equal(r.json().reason, 'AlreadyExists');
  });

  test('list pagination with limit and continue returns every object once', async () => {
    for (let i = 0; i < 25; i++)
      await t.api.request('POST', '/api/v1/namespaces/kube-public/configmaps', { metadata: { name: `page-${String(i).padStart(2, '0')}` } });
    const seen: string[] = [];
    let cont = '';
    let pages = 0;
    do {
      const r = (await t.api.request('GET', `/api/v1/namespaces/kube-public/configmaps?limit=10${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`)).json();
      seen.push(...r.items.map((i: any) => i.metadata.name));
      cont = r.metadata.continue ?? '';
      if (pages === 0) assert.equal(r.metadata.remainingItemCount, 15);
      pages++;
    } while (cont);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, 25);
  });

  test('a long list (streamed in pieces) is complete, valid JSON', async () => {
    await t.api.request('POST', '/api/v1/namespaces', { metadata: { name: 'long-list' } });
    const pad = 'p'.repeat(600);
    const names: string[] = [];
    for (let i = 0; i < 1200; i++) names.push(`item-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < names.length; i += 24) {
      await Promise.all(
        names.slice(i, i + 24).map((name) => t.api.request('POST', '/api/v1/namespaces/long-list/configmaps', { metadata: { name }, data: { pad } })),
      );
    }
    const r = await t.api.request('GET', '/api/v1/namespaces/long-list/configmaps');
    assert.equal(r.status, 200);
    const list = r.json();
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(
      list.items.map((i: any) => i.metadata.name),
      names,
    );
    assert.ok(list.items.every((i: any) => i.data.pad === pad));
  });
});
