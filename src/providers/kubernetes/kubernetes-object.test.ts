import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../machinery/object.js';
import { fixture } from '../testing.js';
import type { KubernetesObject } from './kinds.js';
import { desiredOf, externalNameOf, KubernetesObjectClient, type Desired } from './kubernetes-object.js';
import { TargetClient } from './target-client.js';

const resource = (manifest: JsonObject | undefined): KubernetesObject =>
  fixture<KubernetesObject>({
    apiVersion: 'kubernetes.conductor.io/v1alpha1',
    kind: 'KubernetesObject',
    metadata: { namespace: 'conductor-system', name: 'k' },
    spec: { forProvider: manifest === undefined ? {} : { manifest } },
  });

describe('desiredOf', () => {
  const cases: { reason: string; manifest: JsonObject | undefined; want: Desired | RegExp }[] = [
    {
      reason: "the key comes from the manifest; the server's metadata and status are not applied",
      manifest: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'shop', uid: 'u', resourceVersion: '3', managedFields: [], labels: { x: 'y' } },
        data: { k: 'v' },
        status: { phase: 'x' },
      },
      want: {
        key: { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'shop' },
        manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'shop', labels: { x: 'y' } }, data: { k: 'v' } },
      },
    },
    {
      reason: 'a manifest without a namespace has none in its key (the kind decides)',
      manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } },
      want: { key: { apiVersion: 'v1', kind: 'Namespace', name: 'team' }, manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } },
    },
    { reason: 'no manifest', manifest: undefined, want: /spec\.forProvider\.manifest is missing/ },
    { reason: 'no apiVersion', manifest: { kind: 'ConfigMap', metadata: { name: 'a' } }, want: /manifest\.apiVersion is missing: want e\.g\. v1/ },
    { reason: 'no kind', manifest: { apiVersion: 'v1', metadata: { name: 'a' } }, want: /manifest\.kind is missing/ },
    { reason: 'no name', manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, want: /manifest\.metadata\.name is missing/ },
    {
      reason: 'a name that is a path trick',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '..' } },
      want: /metadata\.name "\.\." cannot name an object/,
    },
    {
      reason: 'a name with a slash',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a/b' } },
      want: /metadata\.name "a\/b" cannot name an object/,
    },
    {
      reason: 'an apiVersion that is no group/version',
      manifest: { apiVersion: '../../api/v1', kind: 'ConfigMap', metadata: { name: 'a' } },
      want: /apiVersion "\.\.\/\.\.\/api\/v1" is not group\/version or version/,
    },
    {
      reason: 'a kind that is no kind name',
      manifest: { apiVersion: 'v1', kind: 'Config Map', metadata: { name: 'a' } },
      want: /kind "Config Map" is not a kind name/,
    },
    {
      reason: 'a namespace that is no DNS-1123 label',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'a/b' } },
      want: /metadata\.namespace "a\/b" is not a namespace name/,
    },
    {
      reason: 'an empty namespace',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: '' } },
      want: /metadata\.namespace is not a non-empty string/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const r = resource(c.manifest);
      const before = structuredClone(r);
      if (c.want instanceof RegExp) assert.throws(() => desiredOf(r), c.want);
      else assert.deepEqual(desiredOf(r), c.want);
      assert.deepEqual(r, before, 'the resource is not modified');
    });
  }

  test('a Full KubernetesObject marks the object with its uid; an ObserveOnly one writes nothing, so marks nothing', () => {
    const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', annotations: { x: 'y' } } };
    const full = resource(manifest);
    full.metadata.uid = 'uid-1';
    assert.deepEqual(desiredOf(full).manifest.metadata, { name: 'a', annotations: { x: 'y', 'kubernetes.conductor.io/owner-uid': 'uid-1' } });
    const observing = resource(manifest);
    observing.metadata.uid = 'uid-1';
    observing.spec.managementPolicy = 'ObserveOnly';
    assert.deepEqual(desiredOf(observing).manifest.metadata, { name: 'a', annotations: { x: 'y' } });
  });

  test('external names: with and without a namespace', () => {
    assert.equal(externalNameOf({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' }), 'apps/v1/Deployment/shop/web');
    assert.equal(externalNameOf({ apiVersion: 'v1', kind: 'Namespace', name: 'team' }), 'v1/Namespace/team');
  });
});

describe('an unreachable target', () => {
  test('observe says TargetUnreachable naming the Provider, and "exists and matches" so nothing is created meanwhile', async () => {
    // Port 1 on the loopback: nothing listens there.
    const target = new TargetClient({ server: 'https://127.0.0.1:1' });
    try {
      const r = resource({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'shop' } });
      r.spec.providerRef = { name: 'eu-cluster' };
      const got = await new KubernetesObjectClient(target).observe(r);
      assert.deepEqual(got, {
        exists: true,
        upToDate: true,
        notReady: {
          reason: 'TargetUnreachable',
          message:
            'the target cluster of Provider conductor-system/eu-cluster cannot be reached (ECONNREFUSED): nothing is created, changed or deleted there until it answers; looking again every few seconds',
        },
      });
      await assert.rejects(new KubernetesObjectClient(target).delete(r), /cannot reach https:\/\/127\.0\.0\.1:1: ECONNREFUSED/);
    } finally {
      target.close();
    }
  });
});
