/**
 * The namespace controller over the fake client: a namespace being deleted is emptied of
 * every namespaced kind the catalog serves, waits for objects held by finalizers, and only
 * then loses its `kubernetes` finalizer (through the `finalize` subresource) and goes.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { FakeClient } from '../../client/testing/index.js';
import { builtinRefs, type ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import type { CatalogEntry, ResourceCatalog } from '../catalog.js';
import { eventually } from '../../../test/support/eventually.js';
import { NAMESPACE_FINALIZER, NamespaceController } from './namespace-controller.js';

const cms = builtinRefs.configmaps;
const secrets = builtinRefs.secrets;
const namespaces = builtinRefs.namespaces;
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const widgets: ResourceRef = { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: false };
const catalog: ResourceCatalog = {
  all: (): CatalogEntry[] => [
    { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs: VERBS },
    { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: VERBS },
    { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, verbs: VERBS },
    // Cluster-scoped: never touched by a namespace's deletion.
    { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: false, verbs: VERBS },
  ],
  onChange: () => () => undefined,
};

/** Waits for what the controller does (in memory: 30 s is ample, and a broken controller fails soon). */
const until = <T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what = 'the namespace controller'): Promise<T> =>
  eventually(probe, what, 30_000, 10);

describe('NamespaceController', () => {
  let controller: NamespaceController | undefined;
  let fake: FakeClient;
  afterEach(() => controller?.stop());

  function start(): void {
    controller = new NamespaceController(fake, catalog, pino({ level: 'silent' }));
    controller.start();
  }
  const exists = async (ref: ResourceRef, name: string, ns?: string): Promise<KObject | undefined> => {
    try {
      return await fake.get(ref, name, ns);
    } catch {
      return undefined;
    }
  };
  const namespace = (name: string, finalizers = [NAMESPACE_FINALIZER]): Promise<KObject> =>
    fake.create(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers } });
  const object = (ref: ResourceRef, ns: string | undefined, name: string, finalizers?: string[]): Promise<KObject> =>
    fake.create(ref, {
      apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version,
      kind: ref.kind,
      metadata: { name, ...(ns ? { namespace: ns } : {}), ...(finalizers ? { finalizers } : {}) },
    });

  /** Records the order of DELETED events across the namespaced kinds and namespaces. */
  function deletions(): { order: string[]; stop(): void } {
    const order: string[] = [];
    const handles = [cms, secrets, namespaces].map((ref) =>
      fake.watch(
        ref,
        { resourceVersion: String(fake.revision) },
        {
          onEvent: (e) => {
            if (e.type === 'DELETED')
              order.push(`${ref.kind}/${e.object.metadata.namespace ? `${e.object.metadata.namespace}/` : ''}${e.object.metadata.name}`);
          },
          onClose: () => undefined,
        },
      ),
    );
    return { order, stop: () => handles.forEach((h) => h.stop()) };
  }

  test('deleting a namespace deletes every namespaced object in it, then the namespace; other namespaces and cluster objects stay', async () => {
    fake = new FakeClient();
    await namespace('doomed');
    await namespace('kept');
    await object(cms, 'doomed', 'a');
    await object(cms, 'doomed', 'b');
    await object(secrets, 'doomed', 's');
    await object(cms, 'kept', 'a');
    await object(widgets, undefined, 'w');
    start();
    const deleted = deletions();
    await fake.delete(namespaces, 'doomed');
    // Watch events arrive asynchronously: wait for the namespace's own DELETED event.
    await until(() => deleted.order.includes('Namespace/doomed'));
    deleted.stop();
    assert.equal(deleted.order[deleted.order.length - 1], 'Namespace/doomed', `the namespace goes last: ${deleted.order.join(', ')}`);
    assert.deepEqual(deleted.order.slice(0, -1).sort(), ['ConfigMap/doomed/a', 'ConfigMap/doomed/b', 'Secret/doomed/s']);
    assert.ok(await exists(cms, 'a', 'kept'));
    assert.ok(await exists(namespaces, 'kept'));
    assert.ok(await exists(widgets, 'w'));
    const finalize = fake.actions.filter((a) => a.verb === 'updateSubresource');
    assert.equal(finalize.length, 1, `finalized once: ${JSON.stringify(fake.actions.filter((a) => a.resource === 'namespaces'))}`);
  });

  test('an object held by a finalizer holds the namespace: its kubernetes finalizer is removed only after that object is gone', async () => {
    fake = new FakeClient();
    await namespace('held');
    await object(cms, 'held', 'free');
    await object(cms, 'held', 'stuck', ['example.com/hold']);
    start();
    const deleted = deletions();
    await fake.delete(namespaces, 'held');
    // The controller deleted everything it could: the free object is gone, the held one marked.
    await until(async () => !(await exists(cms, 'free', 'held')) && (await exists(cms, 'stuck', 'held'))?.metadata.deletionTimestamp);
    const ns = await exists(namespaces, 'held');
    assert.ok(ns?.metadata.deletionTimestamp, 'the namespace is still there, being deleted');
    assert.deepEqual((ns.spec as { finalizers: string[] }).finalizers, [NAMESPACE_FINALIZER], 'not finalized while an object remains');
    assert.equal(fake.actions.filter((a) => a.verb === 'updateSubresource').length, 0);
    // It says so in the namespace's conditions, in Kubernetes' words.
    const conditions = await until(async () => {
      const c = ((await exists(namespaces, 'held'))?.status as { conditions?: { type: string; status: string; reason: string; message: string }[] })
        ?.conditions;
      return c && c.length === 5 ? c : undefined;
    }, 'the namespace deletion conditions');
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances'],
        [
          'NamespaceFinalizersRemaining',
          'True',
          'SomeFinalizersRemain',
          'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
        ],
      ],
    );
    await fake.patch(cms, 'stuck', 'merge', { metadata: { finalizers: null } }, { namespace: 'held' });
    await until(() => deleted.order.includes('Namespace/held'));
    deleted.stop();
    assert.deepEqual(deleted.order, ['ConfigMap/held/free', 'ConfigMap/held/stuck', 'Namespace/held']);
  });

  test("only the kubernetes finalizer is the controller's: another spec finalizer keeps the namespace after it is emptied", async () => {
    fake = new FakeClient();
    await namespace('shared', [NAMESPACE_FINALIZER, 'example.com/other']);
    await object(cms, 'shared', 'x');
    start();
    await fake.delete(namespaces, 'shared');
    const ns = await until(async () => {
      const n = await exists(namespaces, 'shared');
      return n && (n.spec as { finalizers: string[] }).finalizers.length === 1 ? n : undefined;
    });
    assert.deepEqual((ns.spec as { finalizers: string[] }).finalizers, ['example.com/other']);
    assert.equal(await exists(cms, 'x', 'shared'), undefined);
    await fake.updateSubresource(namespaces, { ...ns, spec: { finalizers: [] } }, 'finalize');
    await until(async () => !(await exists(namespaces, 'shared')));
  });

  test('a namespace that is not being deleted is left alone', async () => {
    fake = new FakeClient();
    await namespace('alive');
    await object(cms, 'alive', 'x');
    await namespace('trigger');
    start();
    // A namespace deleted after it: once that one is gone the controller has looked at both.
    await fake.delete(namespaces, 'trigger');
    await until(async () => !(await exists(namespaces, 'trigger')));
    assert.ok(await exists(cms, 'x', 'alive'));
    assert.equal((await exists(namespaces, 'alive'))?.metadata.deletionTimestamp, undefined);
    assert.equal(fake.actions.filter((a) => a.verb === 'deleteCollection' && a.namespace === 'alive').length, 0);
  });
});
