/**
 * The garbage collector over the fake client: ownerReferences with the three propagation
 * policies, blockOwnerDeletion, and owners that never existed or were replaced.
 *
 * The fake client ignores propagationPolicy (it has no garbage collector), so `propagating`
 * below adds what the API server's delete does first: the `foregroundDeletion` or `orphan`
 * finalizer for a Foreground or Orphan delete (src/apiserver/rest/handlers.ts).
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { FakeClient } from '../../client/testing/index.js';
import { builtinRefs, type WatchHandle } from '../../client/types.js';
import type { KObject, OwnerReference } from '../../machinery/object.js';
import type { CatalogEntry, ResourceCatalog } from '../catalog.js';
import { eventually } from '../../../test/support/eventually.js';
import { ProcessCaches } from '../process-caches.js';
import { createdWithoutOwners, GarbageCollector } from './garbage-collector.js';

const NS = 'app';
const cms = builtinRefs.configmaps;
const secrets = builtinRefs.secrets;
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const catalog: ResourceCatalog = {
  all: (): CatalogEntry[] => [
    { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: VERBS },
    { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, verbs: VERBS },
  ],
  onChange: () => () => undefined,
};

/** A fake client whose delete adds the finalizer a Foreground or Orphan delete implies, as the API server does. */
function propagating(fake: FakeClient): FakeClient {
  const deleteWithoutPropagation = fake.delete;
  fake.delete = async (ref, name, options = {}) => {
    const finalizer = options.propagationPolicy === 'Foreground' ? 'foregroundDeletion' : options.propagationPolicy === 'Orphan' ? 'orphan' : undefined;
    if (finalizer && !options.dryRun) {
      const current = await fake.get(ref, name, options.namespace);
      const uidMatches = !options.preconditions?.uid || options.preconditions.uid === current.metadata.uid;
      const finalizers = current.metadata.finalizers ?? [];
      if (uidMatches && !current.metadata.deletionTimestamp && !finalizers.includes(finalizer)) {
        await fake.update(ref, { ...current, metadata: { ...current.metadata, finalizers: [...finalizers, finalizer] } });
      }
    }
    return deleteWithoutPropagation(ref, name, options);
  };
  return fake;
}

/** Waits for what the collector does (in memory: 30 s is ample, and a broken collector fails soon). */
const until = <T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string): Promise<T> => eventually(probe, what, 30_000, 10);

/** Records the order in which configmaps and secrets are deleted. */
function deletionOrder(fake: FakeClient): { order: string[]; stop(): void } {
  const order: string[] = [];
  const handles: WatchHandle[] = [cms, secrets].map((ref) =>
    fake.watch(
      ref,
      { resourceVersion: String(fake.revision) },
      {
        onEvent: (e) => {
          if (e.type === 'DELETED') order.push(`${e.object.kind ?? ref.kind}/${e.object.metadata.name}`);
        },
        onClose: () => undefined,
      },
    ),
  );
  return { order, stop: () => handles.forEach((h) => h.stop()) };
}

function ownerRef(owner: KObject, blockOwnerDeletion?: boolean): OwnerReference {
  return {
    apiVersion: 'v1',
    kind: owner.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }),
  };
}

describe('GarbageCollector', () => {
  let gc: GarbageCollector | undefined;
  let fake: FakeClient;
  afterEach(() => gc?.stop());

  function start(caches?: ProcessCaches): FakeClient {
    fake = propagating(new FakeClient());
    gc = new GarbageCollector(fake, catalog, pino({ level: 'silent' }), undefined, caches);
    gc.start();
    return fake;
  }
  const get = async (ref: typeof cms, name: string): Promise<KObject | undefined> => {
    try {
      return await fake.get(ref, name, NS);
    } catch {
      return undefined;
    }
  };
  const configMap = (name: string, owners: OwnerReference[] = [], finalizers?: string[]): Promise<KObject> =>
    fake.create(cms, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: NS, ...(owners.length ? { ownerReferences: owners } : {}), ...(finalizers ? { finalizers } : {}) },
    });
  const secret = (name: string): Promise<KObject> => fake.create(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS } });
  const release = async (name: string): Promise<void> => {
    await fake.patch(cms, name, 'merge', { metadata: { finalizers: null } }, { namespace: NS });
  };

  test('Background: the owner goes at once, then its dependents (of any kind); an object with another live owner only loses the reference', async () => {
    start();
    const owner = await configMap('owner');
    const other = await secret('other-owner');
    await configMap('child-1', [ownerRef(owner)]);
    await configMap('child-2', [ownerRef(owner)]);
    await fake.create(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'child-secret', namespace: NS, ownerReferences: [ownerRef(owner)] } });
    await configMap('shared', [ownerRef(owner), ownerRef(other)]);
    await configMap('bystander');
    await fake.delete(cms, 'owner', { namespace: NS, propagationPolicy: 'Background' });
    assert.equal(await get(cms, 'owner'), undefined, 'a Background delete does not wait');
    await until(async () => !(await get(cms, 'child-1')) && !(await get(cms, 'child-2')) && !(await get(secrets, 'child-secret')), 'the dependents deleted');
    const shared = await until(async () => {
      const s = await get(cms, 'shared');
      return s?.metadata.ownerReferences?.length === 1 ? s : undefined;
    }, 'the reference to the deleted owner dropped');
    assert.deepEqual(shared.metadata.ownerReferences, [ownerRef(other)]);
    assert.equal(shared.metadata.deletionTimestamp, undefined, 'kept: it still has a live owner');
    assert.ok(await get(cms, 'bystander'));
  });

  test('Foreground: the owner waits with foregroundDeletion until its blocking dependents are gone, and goes after them', async () => {
    start();
    const owner = await configMap('fg-owner');
    // The dependent is held by a finalizer of its own, so "gone" is in the test's hands.
    await configMap('fg-child', [ownerRef(owner, true)], ['example.com/hold']);
    await configMap('fg-child-2', [ownerRef(owner, true)]);
    const deleted = deletionOrder(fake);
    await fake.delete(cms, 'fg-owner', { namespace: NS, propagationPolicy: 'Foreground' });
    // The collector deletes the dependents (the held one gets its deletionTimestamp) ...
    await until(async () => (await get(cms, 'fg-child'))?.metadata.deletionTimestamp && !(await get(cms, 'fg-child-2')), 'the dependents being deleted');
    // ... and the owner must NOT go while a blocking dependent exists. That is something not
    // happening, so it takes a wait: longer than the collector's 1 s re-check of a waiting
    // owner, so the owner has been looked at again at least once. (Treating Foreground as
    // Background removes the owner within milliseconds.)
    await new Promise((r) => setTimeout(r, 1500));
    const waiting = await get(cms, 'fg-owner');
    assert.ok(waiting, 'the owner waits for its blocking dependent');
    assert.ok(waiting.metadata.deletionTimestamp);
    assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);
    await release('fg-child');
    // Watch events arrive asynchronously: wait for the owner's own DELETED event.
    await until(() => deleted.order.includes('ConfigMap/fg-owner'), 'the owner deleted after its dependents');
    deleted.stop();
    assert.deepEqual(deleted.order, ['ConfigMap/fg-child-2', 'ConfigMap/fg-child', 'ConfigMap/fg-owner']);
  });

  test('Foreground is passed down: a dependent that owns objects is itself deleted in the foreground', async () => {
    start();
    const top = await configMap('top');
    const middle = await configMap('middle', [ownerRef(top, true)]);
    await configMap('leaf', [ownerRef(middle, true)], ['example.com/hold']);
    const deleted = deletionOrder(fake);
    await fake.delete(cms, 'top', { namespace: NS, propagationPolicy: 'Foreground' });
    const m = await until(async () => {
      const x = await get(cms, 'middle');
      return x?.metadata.deletionTimestamp ? x : undefined;
    }, 'the middle object being deleted');
    assert.deepEqual(m.metadata.finalizers, ['foregroundDeletion'], 'the middle object waits for its own dependent');
    await until(async () => (await get(cms, 'leaf'))?.metadata.deletionTimestamp, 'the leaf being deleted');
    await release('leaf');
    await until(() => deleted.order.includes('ConfigMap/top'), 'the whole chain deleted');
    deleted.stop();
    assert.deepEqual(deleted.order, ['ConfigMap/leaf', 'ConfigMap/middle', 'ConfigMap/top']);
  });

  test('Foreground without blockOwnerDeletion: the owner does not wait for that dependent', async () => {
    start();
    const owner = await configMap('nb-owner');
    await configMap('nb-child', [ownerRef(owner, false)], ['example.com/hold']);
    await fake.delete(cms, 'nb-owner', { namespace: NS, propagationPolicy: 'Foreground' });
    await until(async () => !(await get(cms, 'nb-owner')), 'the owner deleted');
    const child = await until(async () => {
      const c = await get(cms, 'nb-child');
      return c?.metadata.deletionTimestamp ? c : undefined;
    }, 'the dependent being deleted too');
    // (Deleted while its owner was still waiting, it is deleted in the foreground too and may
    // carry foregroundDeletion for a moment.)
    assert.ok(child.metadata.finalizers?.includes('example.com/hold'), 'still held by its own finalizer, but the owner did not wait');
    await release('nb-child');
    await until(async () => !(await get(cms, 'nb-child')), 'the dependent gone');
  });

  test('Orphan: the dependents lose the reference to the owner and stay; other references are kept; then the owner goes', async () => {
    start();
    const owner = await configMap('or-owner');
    const other = await secret('or-other');
    await configMap('or-child', [ownerRef(owner, true)]);
    await configMap('or-shared', [ownerRef(owner), ownerRef(other)]);
    await fake.delete(cms, 'or-owner', { namespace: NS, propagationPolicy: 'Orphan' });
    await until(async () => !(await get(cms, 'or-owner')), 'the owner deleted');
    // The collector patches the dependents before it removes the owner's orphan finalizer.
    const child = await get(cms, 'or-child');
    assert.ok(child, 'the orphan is kept');
    assert.equal(child.metadata.ownerReferences, undefined);
    assert.equal(child.metadata.deletionTimestamp, undefined);
    const shared = await get(cms, 'or-shared');
    assert.deepEqual(shared?.metadata.ownerReferences, [ownerRef(other)]);
  });

  test('an object whose owner never existed, or exists under another uid, is deleted; one whose owner is alive is not', async () => {
    start();
    const alive = await configMap('alive-owner');
    await configMap('owned', [ownerRef(alive)]);
    await configMap('dangling', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: '00000000-0000-0000-0000-000000000001' }]);
    // Same name as a live object, but not its uid: the owner it names was replaced.
    await configMap('replaced-owner', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'alive-owner', uid: '00000000-0000-0000-0000-000000000002' }]);
    await until(async () => !(await get(cms, 'dangling')) && !(await get(cms, 'replaced-owner')), 'both dependents of missing owners deleted');
    // 'owned' was created first and looked at before the two above were deleted.
    const owned = await get(cms, 'owned');
    assert.ok(owned && !owned.metadata.deletionTimestamp, 'a dependent of a live owner stays');
    assert.deepEqual(owned.metadata.ownerReferences, [ownerRef(alive)]);
  });

  test('a dependent created after its owner was deleted is collected', async () => {
    start();
    const owner = await configMap('late-owner');
    await fake.delete(cms, 'late-owner', { namespace: NS });
    await configMap('late-child', [ownerRef(owner)]);
    await until(async () => !(await get(cms, 'late-child')), 'the late dependent deleted');
  });

  /** ProcessCaches whose informers hold `held` (as they last saw it), whatever the API says now; reads of the owner counted. */
  function cachesHolding(held: () => KObject | undefined): ProcessCaches {
    const caches = new ProcessCaches();
    caches.get = (ref, namespace, name) => {
      const o = held();
      return ref.resource === 'configmaps' && o !== undefined && o.metadata.namespace === namespace && o.metadata.name === name ? o : undefined;
    };
    return caches;
  }
  function countReads(name: string): { n: number } {
    const count = { n: 0 };
    const inner = fake.get.bind(fake);
    fake.get = async (ref: typeof cms, n: string, ns?: string) => {
      if (n === name) count.n++;
      return inner(ref, n, ns);
    };
    return count;
  }

  test('an owner the shared informers hold (with the referenced uid) is not read; one they do not hold is', async () => {
    const held: { owner?: KObject } = {};
    start(cachesHolding(() => held.owner));
    const owner = (held.owner = await configMap('cached-owner'));
    const reads = countReads('cached-owner');
    const missing = { apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: '00000000-0000-0000-0000-000000000009' };
    await configMap('two-owners', [ownerRef(owner), missing]);
    const kept = await until(async () => {
      const d = await get(cms, 'two-owners');
      return d?.metadata.ownerReferences?.length === 1 ? d : undefined;
    }, 'the reference to the owner that never was dropped');
    assert.deepEqual(kept.metadata.ownerReferences, [ownerRef(owner)], 'the cached owner is present');
    assert.equal(reads.n, 0, 'the cached owner was not read from the API');
  });

  test('an owner the collector saw deleted is not taken from informers that still hold it: its dependent is collected', async () => {
    const held: { owner?: KObject } = {};
    start(cachesHolding(() => held.owner));
    const stale = (held.owner = await configMap('stale-owner'));
    await configMap('stale-child', [ownerRef(stale)]);
    await fake.delete(cms, 'stale-owner', { namespace: NS, propagationPolicy: 'Background' });
    await until(async () => !(await get(cms, 'stale-child')), 'the dependent of the deleted owner deleted');
  });
});

describe('createdWithoutOwners (the ADDED events the collector lets an in-process client skip unparsed)', () => {
  const cm = (metadata: Record<string, unknown>, data: Record<string, string> = {}) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: NS, uid: 'u1', ...metadata }, data });

  test('an object without owners and not being deleted is skipped', () => {
    assert.equal(createdWithoutOwners(cm({})), true);
    // The word in a value is escaped in the text: still skipped.
    assert.equal(createdWithoutOwners(cm({}, { note: '"ownerReferences" and "deletionTimestamp"' })), true);
  });

  test('an object with owners, or being deleted, is observed', () => {
    assert.equal(createdWithoutOwners(cm({ ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'o1' }] })), false);
    assert.equal(createdWithoutOwners(cm({ deletionTimestamp: '2026-11-29T10:00:00Z', finalizers: ['orphan'] })), false);
    // A key of that name anywhere makes it parsed: never skipped wrongly, at worst parsed for nothing.
    assert.equal(createdWithoutOwners(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { ownerReferences: 'x' } })), false);
  });
});
