/**
 * A KubernetesObject's create, against a real target (a second Conductor API server), when
 * the object exists or appears in the target. The create looks first and never writes an
 * object that is not its own (another KubernetesObject's mark, or none: someone else made it),
 * whatever values it holds. When the look finds nothing it applies with the KubernetesObject's
 * own field manager and without force, so an object another KubernetesObject made between the
 * look and the apply is refused by the target itself (its owner-uid annotation is another
 * manager's field: 409) and nothing is written. An object of its own whose field was edited is
 * applied again with force. An object made by the shared `conductor` manager (before each
 * KubernetesObject had its own) keeps being applied by it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../src/machinery/object.js';
import type { KubernetesObject } from '../../src/providers/kubernetes/kinds.js';
import { KubernetesObjectClient, OwnedElsewhereError } from '../../src/providers/kubernetes/kubernetes-object.js';
import { TargetClient, type ApplyOptions, type ObjectKey } from '../../src/providers/kubernetes/target-client.js';
import { kubectlOk } from '../support/server.js';
import { startTargetCluster, type TargetCluster } from '../support/target-cluster.js';

const OWNER = 'kubernetes.conductor.io/owner-uid';

function resource(uid: string, name: string, data: Record<string, string>): KubernetesObject {
  return {
    apiVersion: 'kubernetes.conductor.io/v1alpha1',
    kind: 'KubernetesObject',
    metadata: { namespace: 'conductor-system', name: `k-${uid}`, uid },
    spec: { forProvider: { manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data } } },
  } as unknown as KubernetesObject;
}

const keyOf = (name: string): ObjectKey => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });

/** A TargetClient that runs `beforeNextApply` (once) right before its next apply: another writer between the look and the apply. */
class RacedTargetClient extends TargetClient {
  beforeNextApply: (() => Promise<void>) | undefined;
  override async apply(key: ObjectKey, manifest: JsonObject, signal?: AbortSignal, options?: ApplyOptions): Promise<JsonObject> {
    const run = this.beforeNextApply;
    this.beforeNextApply = undefined;
    await run?.();
    return super.apply(key, manifest, signal, options);
  }
}

describe('a KubernetesObject create racing another writer in the target', () => {
  let target: TargetCluster;
  let client: TargetClient;
  let objects: KubernetesObjectClient;
  let raced: RacedTargetClient;
  let racedObjects: KubernetesObjectClient;
  before(async () => {
    target = await startTargetCluster();
    const c = target.credentials;
    client = new TargetClient({ server: c.endpoint, ca: c.clusterCA, token: c.token });
    objects = new KubernetesObjectClient(client);
    raced = new RacedTargetClient({ server: c.endpoint, ca: c.clusterCA, token: c.token });
    racedObjects = new KubernetesObjectClient(raced);
  });
  after(async () => {
    client?.close();
    raced?.close();
    await target?.stop();
  });

  const live = async (name: string) => {
    const got = await client.get(keyOf(name));
    assert.ok(got, `ConfigMap default/${name} exists`);
    return got as JsonObject & { metadata: { annotations?: Record<string, string>; resourceVersion: string }; data?: Record<string, string> };
  };

  test("a second KubernetesObject's create onto the first's object is refused and writes nothing", async () => {
    await objects.create(resource('uid-a', 'shared', { owner: 'a' }));
    const first = await live('shared');
    await assert.rejects(objects.create(resource('uid-b', 'shared', { owner: 'b' })), OwnedElsewhereError);
    // The same values but for the mark: still a conflict (the owner-uid annotation is uid-a's manager's).
    await assert.rejects(objects.create(resource('uid-c', 'shared', { owner: 'a' })), /kept by another KubernetesObject/);
    const after = await live('shared');
    assert.equal(after.metadata.annotations?.[OWNER], 'uid-a');
    assert.deepEqual(after.data, { owner: 'a' });
    assert.equal(after.metadata.resourceVersion, first.metadata.resourceVersion, 'nothing was written');
  });

  test('a create onto an object someone else made with other values is refused and writes nothing', async () => {
    await kubectlOk(target.server, ['create', 'configmap', 'by-hand', '-n', 'default', '--from-literal=owner=admin']);
    const before = await live('by-hand');
    await assert.rejects(objects.create(resource('uid-d', 'by-hand', { owner: 'tenant' })), /has no kubernetes\.conductor\.io\/owner-uid annotation/);
    const after = await live('by-hand');
    assert.equal(after.metadata.annotations?.[OWNER], undefined);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'nothing was written');
  });

  test("another KubernetesObject's create between the look and the apply: the target refuses the unforced apply and nothing is written", async () => {
    let first: Awaited<ReturnType<typeof live>> | undefined;
    raced.beforeNextApply = async () => {
      await objects.create(resource('uid-g', 'raced', { owner: 'g' }));
      first = await live('raced');
    };
    await assert.rejects(racedObjects.create(resource('uid-h', 'raced', { owner: 'h' })), /kept by another KubernetesObject/);
    const after = await live('raced');
    assert.ok(first, 'the other create ran between the look and the apply');
    assert.equal(after.metadata.annotations?.[OWNER], 'uid-g');
    assert.deepEqual(after.data, { owner: 'g' });
    assert.equal(after.metadata.resourceVersion, first.metadata.resourceVersion, 'nothing was written');
  });

  test('a create onto an object someone else made is refused and writes nothing, even when the manifest sets nothing that differs', async () => {
    await kubectlOk(target.server, ['create', 'configmap', 'by-hand-same', '-n', 'default', '--from-literal=owner=admin']);
    const before = await live('by-hand-same');
    await assert.rejects(objects.create(resource('uid-e', 'by-hand-same', { owner: 'admin' })), /has no kubernetes\.conductor\.io\/owner-uid annotation/);
    await assert.rejects(objects.create(resource('uid-f', 'by-hand-same', {})), /has no kubernetes\.conductor\.io\/owner-uid annotation/);
    const after = await live('by-hand-same');
    assert.equal(after.metadata.annotations?.[OWNER], undefined);
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'nothing was written');
  });

  test('a create onto its own object whose field someone edited applies again, with force', async () => {
    await objects.create(resource('uid-e', 'own', { color: 'red' }));
    await kubectlOk(target.server, ['patch', 'configmap', 'own', '-n', 'default', '--type=merge', '-p', '{"data":{"color":"blue"}}']);
    await objects.create(resource('uid-e', 'own', { color: 'red' }));
    assert.deepEqual((await live('own')).data, { color: 'red' });
  });

  test('an object the shared manager applied keeps being applied by it: a key the manifest drops is removed', async () => {
    // As an earlier Conductor applied it: field manager `conductor`, forced, marked with the uid.
    await client.apply(keyOf('legacy'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'legacy', namespace: 'default', annotations: { [OWNER]: 'uid-f' } },
      data: { keep: '1', drop: '2' },
    });
    await objects.update(resource('uid-f', 'legacy', { keep: '1' }));
    const after = await live('legacy');
    assert.deepEqual(after.data, { keep: '1' });
    const managers = ((after.metadata as { managedFields?: { manager: string }[] }).managedFields ?? []).map((e) => e.manager);
    assert.deepEqual(managers, ['conductor']);
  });
});
