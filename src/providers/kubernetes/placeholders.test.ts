import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KObject } from '../../machinery/object.js';
import { fillPlaceholders } from './placeholders.js';

const claim = (spec: JsonObject, namespace = 'shop', name = 'orders'): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'Bucket',
  metadata: { namespace, name },
  spec,
});

describe('fillPlaceholders: what a claim value may become, by the field it lands in', () => {
  const cases: { reason: string; manifest: JsonObject; claim: KObject; observeOnly?: boolean; want: JsonObject | RegExp }[] = [
    {
      reason: 'a name from the claim that is a DNS-1123 subdomain is kept',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b-$(claim.spec.bucketName)', namespace: '$(claim.namespace)' } },
      claim: claim({ bucketName: 'media.v2' }),
      want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b-media.v2', namespace: 'shop' } },
    },
    {
      reason: 'a name that would not be a DNS-1123 subdomain is refused, naming the field',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '$(claim.spec.bucketName)' } },
      claim: claim({ bucketName: '../Kube_System' }),
      want: /manifest\.metadata\.name would be "\.\.\/Kube_System" with the claim's values: want a DNS-1123 subdomain/,
    },
    {
      reason: 'a name that is only a placeholder taking a number is refused',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '$(claim.spec.size)' } },
      claim: claim({ size: 5 }),
      want: /manifest\.metadata\.name would be 5/,
    },
    {
      reason: 'a namespace must come out a DNS-1123 label',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'ns-$(claim.spec.team)' } },
      claim: claim({ team: 'a.b' }),
      want: /manifest\.metadata\.namespace would be "ns-a\.b" with the claim's values: want a DNS-1123 label/,
    },
    {
      reason: 'a label value from the claim must be a label value',
      manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { team: '$(claim.spec.team)' } } },
      claim: claim({ team: 'a b' }),
      want: /manifest\.metadata\.labels\.team would be "a b"/,
    },
    {
      reason: 'a claim never chooses the kind',
      manifest: { apiVersion: 'v1', kind: '$(claim.spec.kind)', metadata: { name: 'x' } },
      claim: claim({ kind: 'Secret' }),
      want: /manifest\.kind holds a claim placeholder: a claim may not choose the kind of object it gets/,
    },
    {
      reason: 'an ObserveOnly template takes no placeholder in the name: a claim may not choose which object it reads',
      manifest: { apiVersion: 'v1', kind: 'Secret', metadata: { name: '$(claim.spec.bucketName)', namespace: 'kube-system' } },
      claim: claim({ bucketName: 'admin-token' }),
      observeOnly: true,
      want: /is ObserveOnly and its manifest\.metadata\.name holds a claim placeholder/,
    },
    {
      reason: "other fields take any value (they are the object's content, sent as JSON)",
      manifest: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'x', annotations: { note: '$(claim.spec.note)' } },
        data: { q: '$(claim.spec.note)' },
      },
      claim: claim({ note: '"; DROP TABLE x; $(claim.name)' }),
      want: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'x', annotations: { note: '"; DROP TABLE x; $(claim.name)' } },
        data: { q: '"; DROP TABLE x; $(claim.name)' },
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = structuredClone(c.manifest);
      if (c.want instanceof RegExp) assert.throws(() => fillPlaceholders(c.manifest, c.claim, { observeOnly: c.observeOnly ?? false }), c.want);
      else assert.deepEqual(fillPlaceholders(c.manifest, c.claim, { observeOnly: c.observeOnly ?? false }), c.want);
      assert.deepEqual(c.manifest, before, 'the manifest is not modified');
    });
  }
});
