/**
 * Deletion semantics: finalizers hold an object with a deletionTimestamp, ownerReferences
 * cascade with background, foreground and orphan propagation (kubectl --cascade), and
 * deleting a namespace removes everything in it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const ns = 'cascade';
const cms = `/api/v1/namespaces/${ns}/configmaps`;

describe('deletion', () => {
  const t = serverForSuite({
    setup: async (s) => {
      await kubectlOk(s.server, ['create', 'namespace', ns]);
    },
  });
  const exists = async (name: string) => (await t.api.request('GET', `${cms}/${name}`)).status === 200;

  async function ownerWithChildren(owner: string, children: string[], block = false): Promise<void> {
    const o = (await t.api.request('POST', cms, { metadata: { name: owner } })).json();
    for (const c of children) {
      const res = await t.api.request('POST', cms, {
        metadata: { name: c, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: o.metadata.uid, blockOwnerDeletion: block }] },
      });
      assert.equal(res.status, 201, res.text);
    }
  }

  test('a finalizer holds the object with a deletionTimestamp until it is removed', async () => {
    await t.api.request('POST', cms, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const del = await t.api.request('DELETE', `${cms}/held`);
    assert.equal(del.status, 200);
    const held = (await t.api.request('GET', `${cms}/held`)).json();
    assert.ok(held.metadata.deletionTimestamp, 'deletionTimestamp is set');
    // New finalizers cannot be added once deleting; removing the last one deletes the object.
    const added = await t.api.request(
      'PATCH',
      `${cms}/held`,
      { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal(added.status, 422);
    assert.match(added.json().message, /no new finalizers/);
    const patched = await t.api.request('PATCH', `${cms}/held`, { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(await exists('held'), false);
  });

  test('background cascade: dependents go after the owner', async () => {
    await ownerWithChildren('bg-owner', ['bg-1', 'bg-2']);
    await kubectlOk(t.server, ['delete', 'configmap', 'bg-owner', '-n', ns, '--cascade=background']);
    assert.equal(await exists('bg-owner'), false);
    await eventually(async () => !(await exists('bg-1')) && !(await exists('bg-2')), 'dependents deleted');
  });

  test('foreground cascade: the owner waits for blocking dependents, then goes', async () => {
    await ownerWithChildren('fg-owner', ['fg-1'], true);
    // A second blocking dependent held by a finalizer of its own: the owner must wait for it.
    const owner = (await t.api.request('GET', `${cms}/fg-owner`)).json();
    const held = await t.api.request('POST', cms, {
      metadata: {
        name: 'fg-held',
        finalizers: ['example.com/hold'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'fg-owner', uid: owner.metadata.uid, blockOwnerDeletion: true }],
      },
    });
    assert.equal(held.status, 201, held.text);
    await kubectlOk(t.server, ['delete', 'configmap', 'fg-owner', '-n', ns, '--cascade=foreground', '--wait=false']);
    const marked = (await t.api.request('GET', `${cms}/fg-owner`)).json();
    assert.ok(marked.metadata?.deletionTimestamp, 'a foreground delete marks the owner instead of removing it');
    assert.deepEqual(marked.metadata.finalizers, ['foregroundDeletion']);
    await eventually(async () => !(await exists('fg-1')), 'the free dependent deleted');
    await eventually(async () => (await t.api.request('GET', `${cms}/fg-held`)).json().metadata?.deletionTimestamp, 'the held dependent being deleted');
    // The owner must NOT go while fg-held exists. Something not happening takes a wait: longer
    // than the collector's 1 s re-check of a waiting owner. (Treated as Background, it goes at once.)
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await exists('fg-owner'), true, 'the owner waits for its blocking dependent');
    const released = await t.api.request('PATCH', `${cms}/fg-held`, { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(released.status, 200, released.text);
    await eventually(async () => !(await exists('fg-owner')), 'owner deleted after its dependents');
  });

  test('orphan cascade: dependents stay and lose their ownerReference', async () => {
    await ownerWithChildren('or-owner', ['or-1']);
    await kubectlOk(t.server, ['delete', 'configmap', 'or-owner', '-n', ns, '--cascade=orphan']);
    await eventually(async () => !(await exists('or-owner')), 'owner deleted');
    const child = (await t.api.request('GET', `${cms}/or-1`)).json();
    assert.equal(child.metadata.ownerReferences, undefined);
    // Something not happening (or-1 is not collected) needs a point at which the collector has
    // caught up: a dangling dependent created now is collected after or-1's change was seen.
    const probe = await t.api.request('POST', cms, {
      metadata: { name: 'or-probe', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'or-owner', uid: child.metadata.uid }] },
    });
    assert.equal(probe.status, 201, probe.text);
    await eventually(async () => !(await exists('or-probe')), 'the collector caught up');
    assert.equal(await exists('or-1'), true, 'orphaned dependent is kept');
  });

  test('a dependent created for an owner that no longer exists is collected', async () => {
    const res = await t.api.request('POST', cms, {
      metadata: {
        name: 'dangling',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: '00000000-0000-0000-0000-000000000000' }],
      },
    });
    assert.equal(res.status, 201);
    await eventually(async () => !(await exists('dangling')), 'dangling dependent deleted');
  });

  test('deletecollection deletes exactly the selected objects', async () => {
    for (const [name, tier] of [
      ['dc-1', 'temp'],
      ['dc-2', 'temp'],
      ['dc-3', 'keep'],
    ] as const) {
      await t.api.request('POST', cms, { metadata: { name, labels: { tier } } });
    }
    const r = await t.api.request('DELETE', `${cms}?labelSelector=tier%3Dtemp`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r
        .json()
        .items.map((i: any) => i.metadata.name)
        .sort(),
      ['dc-1', 'dc-2'],
    );
    assert.equal(await exists('dc-1'), false);
    assert.equal(await exists('dc-2'), false);
    assert.equal(await exists('dc-3'), true);
  });

  test('deleting a namespace deletes its contents, then the namespace', async () => {
    await kubectlOk(t.server, ['create', 'namespace', 'doomed']);
    await kubectlOk(t.server, ['create', 'configmap', 'c1', '-n', 'doomed']);
    await kubectlOk(t.server, ['create', 'secret', 'generic', 's1', '-n', 'doomed', '--from-literal=a=b']);
    await kubectlOk(t.server, ['delete', 'namespace', 'doomed', '--timeout=30s']);
    const r = await kubectl(t.server, ['get', 'namespace', 'doomed']);
    assert.notEqual(r.code, 0);
    const again = await kubectl(t.server, ['get', 'configmaps', '-n', 'doomed', '-o', 'name']);
    assert.equal(again.stdout.trim(), '');
  });

  test('creating in a terminating namespace is forbidden; protected namespaces cannot be deleted', async () => {
    await kubectlOk(t.server, ['create', 'namespace', 'closing']);
    await kubectlOk(t.server, ['create', 'configmap', 'pin', '-n', 'closing']);
    await t.api.request(
      'PATCH',
      '/api/v1/namespaces/closing/configmaps/pin',
      { metadata: { finalizers: ['example.com/hold'] } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    await kubectlOk(t.server, ['delete', 'namespace', 'closing', '--wait=false']);
    const created = await t.api.request('POST', '/api/v1/namespaces/closing/configmaps', { metadata: { name: 'late' } });
    assert.equal(created.status, 403);
    assert.match(created.json().message, /being terminated/);
    const ns = (await t.api.request('GET', '/api/v1/namespaces/closing')).json();
    assert.equal(ns.status.phase, 'Terminating');
    await t.api.request(
      'PATCH',
      '/api/v1/namespaces/closing/configmaps/pin',
      { metadata: { finalizers: null } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    await eventually(async () => (await t.api.request('GET', '/api/v1/namespaces/closing')).status === 404, 'namespace gone');
    const del = await t.api.request('DELETE', '/api/v1/namespaces/default');
    assert.equal(del.status, 403);
  });
});
