/**
 * Kinds that come and go with their CRDs, over the fake client: a claim kind and an
 * out-of-process concrete kind defined by CRDs are served from the controller's start (a claim
 * binds, is published and the resource gets phase Bound from Conductor), and when the concrete
 * kind's CRD goes, the claim bound to one of its resources is Lost.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinRefs, type ResourceRef } from '../../client/types.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import type { KObject } from '../../machinery/object.js';
import { eventually } from '../../../test/support/eventually.js';
import { ClaimReason } from './reasons.js';
import { APP, readyStatus, runningController, secret, SYS } from './testing/harness.js';

const crds = builtinRefs.customresourcedefinitions;
const storeRef: ResourceRef = { group: 'kv.example.org', version: 'v1', resource: 'stores', namespaced: true, kind: 'Store' };
const tinyRef: ResourceRef = { group: 'tiny.example.org', version: 'v1', resource: 'tinystores', namespaced: true, kind: 'TinyStore' };

function crd(ref: ResourceRef, metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }): KObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${ref.resource}.${ref.group}`, ...metadata },
    spec: { group: ref.group, scope: 'Namespaced', names: { kind: ref.kind, plural: ref.resource }, versions: [{ name: 'v1', served: true, storage: true }] },
    status: { conditions: [{ type: 'Established', status: 'True' }] },
  };
}

describe('kinds defined by CRDs', () => {
  test('are served from their CRDs, and a concrete kind whose CRD goes leaves its claims Lost', async () => {
    const client = new FakeClient();
    for (const ns of [SYS, APP]) client.seed(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    client.seed(crds, crd(storeRef, { labels: { 'conductor.io/abstract': 'true' }, annotations: { 'conductor.io/connection-keys': 'endpoint' } }));
    client.seed(crds, crd(tinyRef, { annotations: { 'conductor.io/implements': 'stores.kv.example.org' } }));
    const tiny: KObject = {
      apiVersion: 'tiny.example.org/v1',
      kind: 'TinyStore',
      metadata: { name: 't1', namespace: SYS, uid: 'uid-t1' },
      spec: { size: 3 },
      status: readyStatus({ phase: 'Available' }),
    };
    client.seed(tinyRef, tiny);
    const conn = secret(SYS, 't1-connection', { endpoint: 'http://127.0.0.1:1', internal: 'x' }, tiny);
    client.seed(conn.ref, conn.obj);
    client.seed(storeRef, { apiVersion: 'kv.example.org/v1', kind: 'Store', metadata: { name: 'mine', namespace: APP, uid: 'uid-mine' }, spec: { size: 3 } });

    const controller = await runningController(client);
    const claim = () => client.stored(storeRef, APP).find((c) => c.metadata.name === 'mine');
    const ready = (c: KObject | undefined) => (c?.status as { conditions?: { type: string; status: string; reason?: string }[] } | undefined)?.conditions;
    try {
      await eventually(() => ready(claim())?.some((c) => c.type === 'Ready' && c.status === 'True'), 'the Store claim Ready', 10_000);
      const resource = client.stored(tinyRef, SYS)[0];
      assert.equal((resource.spec as { claimRef?: { uid?: string } }).claimRef?.uid, 'uid-mine');
      assert.equal((resource.status as { phase?: string }).phase, 'Bound');
      const published = client.stored(builtinRefs.secrets, APP).find((s) => s.metadata.name === 'mine');
      assert.deepEqual(Object.keys((published as { data?: object } | undefined)?.data ?? {}), ['endpoint'], "only the claim kind's documented key");

      await client.delete(crds, 'tinystores.tiny.example.org');
      await eventually(() => (claim()?.status as { phase?: string } | undefined)?.phase === 'Lost', 'the claim Lost once its resource kind is gone', 10_000);
      assert.ok(ready(claim())?.some((c) => c.type === 'Bound' && c.status === 'False' && c.reason === ClaimReason.ResourceLost));
    } finally {
      controller.stop();
    }
  });
});
