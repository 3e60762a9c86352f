/**
 * Hand-built bodies for each decodable kind, written with Kubernetes' field numbers, decoded
 * to the JSON the JSON API would carry.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobufObject } from './decode-object.js';
import { decodableKinds, messageTypeFor } from './kinds.js';
import { encode, envelope, type ProtoWriter } from './wire-writer.js';

const T0 = 1714557600; // 2024-05-01T10:00:00Z

/** A full ObjectMeta (field numbers of meta/v1 ObjectMeta). */
function fullMeta(m: ProtoWriter): void {
  m.string(1, 'demo')
    .string(2, 'demo-')
    .string(3, 'team-a')
    .string(5, '6f1c2a9e-0000-4000-8000-000000000001')
    .string(6, '42')
    .varint(7, 3)
    .timestamp(8, T0)
    .timestamp(9, T0 + 30, 5)
    .varint(10, 0)
    .mapEntry(11, 'app', 'web')
    .mapEntry(11, 'tier', '')
    .mapEntry(12, 'note', 'hello')
    .message(13, (o) => o.string(5, 'apps/v1').string(1, 'Deployment').string(3, 'web').string(4, 'uid-1').bool(6, true).bool(7, false))
    .message(13, (o) => o.string(1, '').string(3, '').string(4, '').string(5, ''))
    .string(14, 'example.com/a')
    .string(14, 'example.com/b')
    .message(17, (e) =>
      e
        .string(1, 'kubectl')
        .string(2, 'Update')
        .string(3, 'v1')
        .timestamp(4, T0)
        .string(6, 'FieldsV1')
        .message(7, (f) => f.string(1, '{"f:data":{"f:a":{}}}'))
        .string(8, ''),
    );
}

const fullMetaJson = {
  name: 'demo',
  generateName: 'demo-',
  namespace: 'team-a',
  uid: '6f1c2a9e-0000-4000-8000-000000000001',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2024-05-01T10:00:00Z',
  deletionTimestamp: '2024-05-01T10:00:30Z',
  deletionGracePeriodSeconds: 0,
  labels: { app: 'web', tier: '' },
  annotations: { note: 'hello' },
  ownerReferences: [
    { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-1', controller: true, blockOwnerDeletion: false },
    { apiVersion: '', kind: '', name: '', uid: '' },
  ],
  finalizers: ['example.com/a', 'example.com/b'],
  managedFields: [
    { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
  ],
};

/** An ObjectMeta as Go writes it for a new object: every plain field present and empty. */
function newMeta(name: string): (m: ProtoWriter) => void {
  return (m) =>
    m
      .string(1, name)
      .string(2, '')
      .string(3, '')
      .string(4, '')
      .string(5, '')
      .string(6, '')
      .varint(7, 0)
      .message(8, () => undefined);
}

const cases: { reason: string; apiVersion: string; kind: string; build: (w: ProtoWriter) => unknown; want: Record<string, unknown> }[] = [
  {
    reason: 'ConfigMap with full metadata, data, binaryData and immutable',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    build: (w) =>
      w
        .message(1, fullMeta)
        .mapEntry(2, 'a', 'b')
        .mapEntry(2, 'empty', '')
        .mapEntry(3, 'bin', Uint8Array.from([1, 2, 3]))
        .bool(4, true),
    want: { metadata: fullMetaJson, data: { a: 'b', empty: '' }, binaryData: { bin: 'AQID' }, immutable: true },
  },
  {
    reason: 'ConfigMap: immutable=false is a set pointer and is kept',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    build: (w) => w.message(1, newMeta('c')).bool(4, false),
    want: { metadata: { name: 'c' }, immutable: false },
  },
  {
    reason: 'Secret with byte data, stringData, type and immutable',
    apiVersion: 'v1',
    kind: 'Secret',
    build: (w) =>
      w
        .message(1, newMeta('s'))
        .mapEntry(2, 'password', Uint8Array.from(Buffer.from('hunter2')))
        .mapEntry(2, 'raw', Uint8Array.from([0, 255]))
        .string(3, 'Opaque')
        .mapEntry(4, 'plain', 'text')
        .bool(5, false),
    want: {
      metadata: { name: 's' },
      data: { password: 'aHVudGVyMg==', raw: 'AP8=' },
      type: 'Opaque',
      stringData: { plain: 'text' },
      immutable: false,
    },
  },
  {
    reason: 'Namespace with finalizers, phase and conditions',
    apiVersion: 'v1',
    kind: 'Namespace',
    build: (w) =>
      w
        .message(1, newMeta('ns'))
        .message(2, (s) => s.string(1, 'kubernetes'))
        .message(3, (s) =>
          s
            .string(1, 'Terminating')
            .message(2, (c) =>
              c.string(1, 'NamespaceDeletionContentFailure').string(2, 'False').timestamp(4, T0).string(5, 'ContentDeleted').string(6, 'All content deleted'),
            )
            .message(2, (c) =>
              c
                .string(1, '')
                .string(2, '')
                .message(4, () => undefined)
                .string(5, '')
                .string(6, ''),
            ),
        ),
    want: {
      metadata: { name: 'ns' },
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Terminating',
        conditions: [
          {
            type: 'NamespaceDeletionContentFailure',
            status: 'False',
            lastTransitionTime: '2024-05-01T10:00:00Z',
            reason: 'ContentDeleted',
            message: 'All content deleted',
          },
          { type: '', status: '' },
        ],
      },
    },
  },
  {
    reason: 'ServiceAccount with secrets, imagePullSecrets and automount',
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    build: (w) =>
      w
        .message(1, newMeta('builder'))
        .message(2, (r) => r.string(1, 'Secret').string(2, 'ci').string(3, 'builder-token').string(4, 'u1').string(5, 'v1').string(6, '7').string(7, 'data'))
        .message(2, (r) => r.string(1, '').string(3, 'other'))
        .message(3, (r) => r.string(1, 'registry'))
        .bool(4, false),
    want: {
      metadata: { name: 'builder' },
      secrets: [
        { kind: 'Secret', namespace: 'ci', name: 'builder-token', uid: 'u1', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'data' },
        { name: 'other' },
      ],
      imagePullSecrets: [{ name: 'registry' }],
      automountServiceAccountToken: false,
    },
  },
  {
    reason: 'Event with the fields event recorders send',
    apiVersion: 'v1',
    kind: 'Event',
    build: (w) =>
      w
        .message(1, newMeta('web.17c9'))
        .message(2, (r) =>
          r.string(1, 'Pod').string(2, 'team-a').string(3, 'web').string(4, 'u2').string(5, 'v1').string(6, '11').string(7, 'spec.containers{app}'),
        )
        .string(3, 'Pulled')
        .string(4, 'Image pulled')
        .message(5, (s) => s.string(1, 'kubelet').string(2, 'node-1'))
        .timestamp(6, T0)
        .timestamp(7, T0 + 60)
        .varint(8, 2)
        .string(9, 'Normal')
        .timestamp(10, T0, 123456789)
        .message(11, (s) => s.varint(1, 5).timestamp(2, T0 + 61, 1000))
        .string(12, 'Pulling')
        .message(13, (r) => r.string(1, 'Node').string(3, 'node-1'))
        .string(14, 'kubelet')
        .string(15, 'kubelet-node-1'),
    want: {
      metadata: { name: 'web.17c9' },
      involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'web', uid: 'u2', apiVersion: 'v1', resourceVersion: '11', fieldPath: 'spec.containers{app}' },
      reason: 'Pulled',
      message: 'Image pulled',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2024-05-01T10:00:00Z',
      lastTimestamp: '2024-05-01T10:01:00Z',
      count: 2,
      type: 'Normal',
      eventTime: '2024-05-01T10:00:00.123456Z',
      series: { count: 5, lastObservedTime: '2024-05-01T10:01:01.000001Z' },
      action: 'Pulling',
      related: { kind: 'Node', name: 'node-1' },
      reportingComponent: 'kubelet',
      reportingInstance: 'kubelet-node-1',
    },
  },
  {
    reason: 'Event as Go writes a sparse one: zero times left out, reporting fields always shown',
    apiVersion: 'v1',
    kind: 'Event',
    build: (w) =>
      w
        .message(1, newMeta('e'))
        .message(2, () => undefined)
        .string(3, '')
        .message(5, (s) => s.string(1, '').string(2, ''))
        .message(6, () => undefined)
        .message(7, () => undefined)
        .varint(8, 0)
        .message(10, () => undefined)
        .string(14, '')
        .string(15, ''),
    want: { metadata: { name: 'e' }, involvedObject: {}, source: {}, reportingComponent: '', reportingInstance: '' },
  },
  {
    reason: 'Lease: every spec field is a pointer, so zero values are kept',
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    build: (w) =>
      w.message(1, newMeta('controller-leader')).message(2, (s) =>
        s
          .string(1, 'pod-a_1234')
          .varint(2, 15)
          .timestamp(3, T0, 500_000)
          .timestamp(4, T0 + 10, 999_999_999)
          .varint(5, 0)
          .string(6, 'OldestEmulationVersion')
          .string(7, ''),
      ),
    want: {
      metadata: { name: 'controller-leader' },
      spec: {
        holderIdentity: 'pod-a_1234',
        leaseDurationSeconds: 15,
        acquireTime: '2024-05-01T10:00:00.000500Z',
        renewTime: '2024-05-01T10:00:10.999999Z',
        leaseTransitions: 0,
        strategy: 'OldestEmulationVersion',
        preferredHolder: '',
      },
    },
  },
  {
    reason: 'Lease released by its holder: an empty holderIdentity is kept',
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    build: (w) => w.message(1, newMeta('l')).message(2, (s) => s.string(1, '').varint(2, 1)),
    want: { metadata: { name: 'l' }, spec: { holderIdentity: '', leaseDurationSeconds: 1 } },
  },
  {
    reason: 'DeleteOptions with every field',
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    build: (w) =>
      w
        .varint(1, 30)
        .message(2, (p) => p.string(1, 'uid-9').string(2, '15'))
        .bool(3, false)
        .string(4, 'Foreground')
        .string(5, 'All')
        .bool(6, true),
    want: {
      gracePeriodSeconds: 30,
      preconditions: { uid: 'uid-9', resourceVersion: '15' },
      orphanDependents: false,
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
      ignoreStoreReadErrorWithClusterBreakingPotential: true,
    },
  },
  {
    reason: 'DeleteOptions: a negative grace period still decodes (validation rejects it later)',
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'DeleteOptions',
    build: (w) => w.varint(1, -1),
    want: { gracePeriodSeconds: -1 },
  },
  {
    reason: 'ClusterRole with rules and match expressions in its aggregation rule',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    build: (w) =>
      w
        .message(1, newMeta('view'))
        .message(2, (r) => r.string(1, 'get').string(2, '').string(3, 'pods').string(4, 'p1').string(5, '/logs'))
        .message(3, (a) => a.message(1, (s) => s.message(2, (e) => e.string(1, 'tier').string(2, 'In').string(3, 'a').string(3, 'b')))),
    want: {
      metadata: { name: 'view' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p1'], nonResourceURLs: ['/logs'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }] },
    },
  },
  {
    reason: 'SelfSubjectAccessReview for a non-resource URL, with a filled status',
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    build: (w) =>
      w
        .message(1, newMeta(''))
        .message(2, (s) => s.message(2, (n) => n.string(1, '/healthz').string(2, 'get')))
        .message(3, (s) => s.bool(1, true).string(2, 'RBAC: allowed').string(3, '').bool(4, false)),
    want: {
      metadata: {},
      spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
      status: { allowed: true, reason: 'RBAC: allowed' },
    },
  },
  {
    reason: 'SelfSubjectRulesReview (kubectl auth can-i --list)',
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    build: (w) =>
      w
        .message(1, newMeta(''))
        .message(2, (s) => s.string(1, 'default'))
        .message(3, (s) =>
          s
            .message(1, (r) => r.string(1, 'get').string(2, '').string(3, 'pods').string(4, 'x'))
            .message(2, (r) => r.string(1, 'get').string(2, '/api'))
            .bool(3, false)
            .string(4, ''),
        ),
    want: {
      metadata: {},
      spec: { namespace: 'default' },
      status: {
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['x'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api'] }],
        incomplete: false,
      },
    },
  },
  {
    reason: 'SelfSubjectReview with user extra values (map of string lists)',
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    build: (w) =>
      w.message(1, newMeta('')).message(2, (s) =>
        s.message(1, (u) =>
          u
            .string(1, 'alice')
            .string(2, 'uid-a')
            .string(3, 'system:authenticated')
            .message(4, (e) => e.string(1, 'scopes').message(2, (v) => v.string(1, 'read').string(1, 'write'))),
        ),
      ),
    want: {
      metadata: {},
      status: { userInfo: { username: 'alice', uid: 'uid-a', groups: ['system:authenticated'], extra: { scopes: ['read', 'write'] } } },
    },
  },
  {
    reason: 'TokenRequest bound to a Secret, with a status from the server',
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    build: (w) =>
      w
        .message(1, newMeta(''))
        .message(2, (s) =>
          s
            .string(1, 'api')
            .varint(4, 600)
            .message(3, (b) => b.string(1, 'Secret').string(2, 'v1').string(3, 'tok').string(4, 'u3')),
        )
        .message(3, (s) => s.string(1, 'eyJ...').timestamp(2, T0)),
    want: {
      metadata: {},
      spec: { audiences: ['api'], expirationSeconds: 600, boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'tok', uid: 'u3' } },
      status: { token: 'eyJ...', expirationTimestamp: '2024-05-01T10:00:00Z' },
    },
  },
];

describe('decodeProtobufObject per kind', () => {
  for (const c of cases) {
    test(c.reason, () => {
      const got = decodeProtobufObject(envelope(c.apiVersion, c.kind, encode(c.build)));
      assert.deepEqual(got, { apiVersion: c.apiVersion, kind: c.kind, object: { apiVersion: c.apiVersion, kind: c.kind, ...c.want } });
    });
  }

  test('every decodable kind except DeleteOptions has a metadata field 1 holding ObjectMeta', () => {
    for (const k of decodableKinds) {
      const type = messageTypeFor(k.apiVersion === '*' ? 'v1' : k.apiVersion, k.kind);
      assert.ok(type, `${k.kind} has a message type`);
      if (k.kind === 'DeleteOptions') continue;
      const body = envelope(
        k.apiVersion,
        k.kind,
        encode((w) => w.message(1, (m) => m.string(1, 'n'))),
      );
      assert.deepEqual(decodeProtobufObject(body).object.metadata, { name: 'n' }, k.kind);
    }
  });
});
