import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from './kinds.js';
import { ManifestError } from './manifest.js';
import { bundleOf, crdDefining, isEstablished } from './operator-bundle.js';

const crd = (group: string, kind: string, versions: string[]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.toLowerCase()}s.${group}` },
  spec: {
    group,
    names: { kind, plural: `${kind.toLowerCase()}s` },
    scope: 'Namespaced',
    versions: versions.map((name) => ({ name, served: true, storage: true })),
  },
});

const withBundle = (manifests: unknown[]): KubernetesObject =>
  ({
    apiVersion: 'kubernetes.conductor.io/v1alpha1',
    kind: 'KubernetesObject',
    metadata: { name: 'w', namespace: 'conductor-system' },
    spec: { forProvider: { manifest: {}, operatorBundle: { manifests } } },
  }) as unknown as KubernetesObject;

describe('operator bundles', () => {
  test('CRDs are applied first, then Namespaces, then the rest in the order given', () => {
    const bundle = bundleOf(
      withBundle([
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'op', namespace: 'op-system' } },
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'op', namespace: 'op-system' } },
        crd('example.com', 'Widget', ['v1']),
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'op-system', resourceVersion: '7' }, status: { phase: 'Active' } },
      ]),
    );
    assert.deepEqual(
      bundle.map((d) => `${d.key.kind}/${d.key.name}`),
      ['CustomResourceDefinition/widgets.example.com', 'Namespace/op-system', 'Deployment/op', 'ServiceAccount/op'],
    );
    const ns = bundle[1].manifest;
    assert.equal((ns.metadata as Record<string, unknown>).resourceVersion, undefined, 'server-owned metadata is dropped');
    assert.equal(ns.status, undefined, 'status is dropped');
  });

  test('no bundle is an empty list', () => {
    assert.deepEqual(bundleOf({ ...withBundle([]), spec: { forProvider: { manifest: {} } } } as unknown as KubernetesObject), []);
  });

  const bad: { reason: string; manifest: unknown; want: RegExp }[] = [
    { reason: 'no kind', manifest: { apiVersion: 'v1', metadata: { name: 'x' } }, want: /^spec\.forProvider\.operatorBundle\.manifests\[1\]\.kind is missing/ },
    {
      reason: 'a name with a slash',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a/b' } },
      want: /manifests\[1\]\.metadata\.name "a\/b" cannot name an object/,
    },
    { reason: 'not an object', manifest: 'kind: ConfigMap', want: /manifests\[1\] is missing/ },
  ];
  for (const c of bad) {
    test(`a bundle manifest with ${c.reason} is refused, naming it`, () => {
      assert.throws(
        () => bundleOf(withBundle([crd('example.com', 'Widget', ['v1']), c.manifest])),
        (err: unknown) => err instanceof ManifestError && c.want.test(err.message),
      );
    });
  }

  test("crdDefining finds the CRD of the manifest's group, kind and version", () => {
    const bundle = bundleOf(withBundle([crd('example.com', 'Gadget', ['v1']), crd('example.com', 'Widget', ['v1beta1', 'v1'])]));
    assert.equal(crdDefining(bundle, { apiVersion: 'example.com/v1', kind: 'Widget' })?.key.name, 'widgets.example.com');
    assert.equal(crdDefining(bundle, { apiVersion: 'example.com/v2', kind: 'Widget' }), undefined, 'a version it does not define');
    assert.equal(crdDefining(bundle, { apiVersion: 'other.com/v1', kind: 'Widget' }), undefined, 'another group');
  });

  test('isEstablished reads the Established condition', () => {
    assert.equal(isEstablished(undefined), false);
    assert.equal(isEstablished({ status: { conditions: [{ type: 'NamesAccepted', status: 'True' }] } }), false);
    assert.equal(isEstablished({ status: { conditions: [{ type: 'Established', status: 'False' }] } }), false);
    assert.equal(isEstablished({ status: { conditions: [{ type: 'Established', status: 'True' }] } }), true);
  });
});
