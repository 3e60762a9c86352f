import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../machinery/errors.js';
import { decodeProtobufObject, hasProtobufMagic, PROTOBUF_CONTENT_TYPE } from './decode-object.js';
import { kubectlBodies } from './kubectl-fixtures.js';
import { encode, envelope } from './wire-writer.js';

function decodeHex(hex: string): Record<string, unknown> {
  return decodeProtobufObject(Buffer.from(hex, 'hex')).object;
}

describe('decodeProtobufObject on bodies sent by kubectl 1.32', () => {
  const rbac = 'rbac.authorization.k8s.io';
  const cases: { reason: string; body: { command: string; hex: string }; want: Record<string, unknown> }[] = [
    {
      reason: 'a ConfigMap from literals; Go writes every empty metadata field, which JSON leaves out',
      body: kubectlBodies.configMapLiteral,
      want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } },
    },
    {
      reason: 'a ConfigMap from files: UTF-8 files go to data, binary files to binaryData as base64',
      body: kubectlBodies.configMapFiles,
      want: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'files' },
        data: { k: 'v', 'text.txt': 'hello\n' },
        binaryData: { 'small.bin': Buffer.from([0x00, 0xff, 0xfe, 0x80, ...Buffer.from('binary')]).toString('base64') },
      },
    },
    {
      reason: 'a Namespace: spec and status are present (empty) messages',
      body: kubectlBodies.namespace,
      want: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' }, spec: {}, status: {} },
    },
    {
      reason: 'a generic Secret: data values are bytes, base64 in JSON; the type is kept',
      body: kubectlBodies.secretGeneric,
      want: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's1' },
        data: { a: 'Yg==', 'small.bin': 'AP/+gGJpbmFyeQ==' },
        type: 'my/type',
      },
    },
    {
      reason: 'a docker-registry Secret',
      body: kubectlBodies.secretDockerRegistry,
      want: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'd1' },
        data: {
          '.dockerconfigjson': Buffer.from('{"auths":{"r.example":{"username":"u","password":"p","auth":"dTpw"}}}').toString('base64'),
        },
        type: 'kubernetes.io/dockerconfigjson',
      },
    },
    {
      reason: 'a ServiceAccount with an explicit namespace',
      body: kubectlBodies.serviceAccount,
      want: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa2', namespace: 'kube-system' } },
    },
    {
      reason: 'a Role: the core API group is an empty string inside apiGroups and is kept',
      body: kubectlBodies.role,
      want: {
        apiVersion: `${rbac}/v1`,
        kind: 'Role',
        metadata: { name: 'r1' },
        rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'secrets'], resourceNames: ['x'] }],
      },
    },
    {
      reason: 'a ClusterRole for a non-resource URL',
      body: kubectlBodies.clusterRole,
      want: { apiVersion: `${rbac}/v1`, kind: 'ClusterRole', metadata: { name: 'cr1' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] },
    },
    {
      reason: 'an aggregated ClusterRole carries label selectors',
      body: kubectlBodies.clusterRoleAggregated,
      want: {
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'agg' },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] },
      },
    },
    {
      reason: 'a RoleBinding: subject kind and name always shown, empty apiGroup and namespace left out',
      body: kubectlBodies.roleBinding,
      want: {
        apiVersion: `${rbac}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'rb1' },
        subjects: [
          { kind: 'User', apiGroup: rbac, name: 'bob' },
          { kind: 'Group', apiGroup: rbac, name: 'g1' },
          { kind: 'ServiceAccount', name: 'sa1', namespace: 'default' },
        ],
        roleRef: { apiGroup: rbac, kind: 'Role', name: 'r1' },
      },
    },
    {
      reason: 'a ClusterRoleBinding',
      body: kubectlBodies.clusterRoleBinding,
      want: {
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'crb1' },
        subjects: [{ kind: 'User', apiGroup: rbac, name: 'bob' }],
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'cr1' },
      },
    },
    {
      reason: 'a SelfSubjectAccessReview (kubectl auth can-i); status.allowed is always written',
      body: kubectlBodies.selfSubjectAccessReview,
      want: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        metadata: {},
        spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } },
        status: { allowed: false },
      },
    },
    {
      reason: 'a SelfSubjectRulesReview (kubectl auth can-i --list)',
      body: kubectlBodies.selfSubjectRulesReview,
      want: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        metadata: {},
        spec: { namespace: 'default' },
        status: { incomplete: false },
      },
    },
    {
      reason: 'a TokenRequest (kubectl create token) with audiences and a duration',
      body: kubectlBodies.tokenRequest,
      want: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: {},
        spec: { audiences: ['a1'], expirationSeconds: 3600 },
        status: { token: '' },
      },
    },
    {
      reason: 'a SelfSubjectReview (kubectl auth whoami)',
      body: kubectlBodies.selfSubjectReview,
      want: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {}, status: { userInfo: {} } },
    },
  ];
  for (const c of cases) {
    test(`${c.reason} (${c.body.command})`, () => {
      const decoded = decodeProtobufObject(Buffer.from(c.body.hex, 'hex'));
      assert.deepEqual(decoded.object, c.want);
      assert.equal(decoded.apiVersion, c.want.apiVersion);
      assert.equal(decoded.kind, c.want.kind);
    });
  }
});

describe('decodeProtobufObject envelope', () => {
  const configMap = encode((w) => w.message(1, (m) => m.string(1, 'x')));

  test('the media type constant is what kubectl sends', () => {
    assert.equal(PROTOBUF_CONTENT_TYPE, 'application/vnd.kubernetes.protobuf');
  });

  test('hasProtobufMagic checks the 4-byte prefix', () => {
    assert.equal(hasProtobufMagic(Buffer.from(kubectlBodies.namespace.hex, 'hex')), true);
    assert.equal(hasProtobufMagic(Buffer.from('k8s')), false);
    assert.equal(hasProtobufMagic(Buffer.from('{"kind":"ConfigMap"}')), false);
  });

  test('an explicit protobuf contentType and unknown envelope fields are accepted', () => {
    const body = envelope('v1', 'ConfigMap', configMap, (w) => w.string(4, PROTOBUF_CONTENT_TYPE).varint(9, 1));
    assert.deepEqual(decodeProtobufObject(body).object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
  });

  test('DeleteOptions is decoded under whatever apiVersion the client used', () => {
    for (const apiVersion of ['v1', 'meta.k8s.io/v1', 'coordination.k8s.io/v1']) {
      const body = envelope(
        apiVersion,
        'DeleteOptions',
        encode((w) => w.varint(1, 0)),
      );
      assert.deepEqual(decodeProtobufObject(body), {
        apiVersion,
        kind: 'DeleteOptions',
        object: { apiVersion, kind: 'DeleteOptions', gracePeriodSeconds: 0 },
      });
    }
  });

  const rejected: { reason: string; body: Buffer; code: number; reasonCode: string; fragment: string }[] = [
    { reason: 'an empty body', body: Buffer.alloc(0), code: 400, reasonCode: 'BadRequest', fragment: 'start with the 4 bytes "k8s\\0"' },
    {
      reason: 'a JSON body sent with the protobuf media type',
      body: Buffer.from('{"kind":"ConfigMap"}'),
      code: 400,
      reasonCode: 'BadRequest',
      fragment: 'is not a Kubernetes protobuf object',
    },
    { reason: 'the prefix alone names no kind', body: Buffer.from([0x6b, 0x38, 0x73, 0x00]), code: 400, reasonCode: 'BadRequest', fragment: 'names no kind' },
    {
      reason: 'a kind without a decoder is 415 and names the kind',
      body: envelope(
        'apps/v1',
        'Deployment',
        encode(() => undefined),
      ),
      code: 415,
      reasonCode: 'UnsupportedMediaType',
      fragment: 'cannot decode kind "Deployment" of apiVersion "apps/v1"',
    },
    {
      reason: 'a known kind under the wrong apiVersion is 415',
      body: envelope(
        'v1',
        'Lease',
        encode(() => undefined),
      ),
      code: 415,
      reasonCode: 'UnsupportedMediaType',
      fragment: 'kind "Lease" of apiVersion "v1"',
    },
    {
      reason: 'a compressed object is 415',
      body: envelope('v1', 'ConfigMap', configMap, (w) => w.string(3, 'gzip')),
      code: 415,
      reasonCode: 'UnsupportedMediaType',
      fragment: 'content encoding "gzip"',
    },
    {
      reason: 'an envelope holding JSON is 415',
      body: envelope('v1', 'ConfigMap', configMap, (w) => w.string(4, 'application/json')),
      code: 415,
      reasonCode: 'UnsupportedMediaType',
      fragment: 'an object of type "application/json"',
    },
    {
      reason: 'an envelope without raw bytes',
      body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), encode((w) => w.message(1, (t) => t.string(1, 'v1').string(2, 'Secret')))]),
      code: 400,
      reasonCode: 'BadRequest',
      fragment: 'for kind "Secret" has no object',
    },
    {
      reason: 'a typeMeta of the wrong wire type',
      body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), encode((w) => w.varint(1, 1))]),
      code: 400,
      reasonCode: 'BadRequest',
      fragment: 'Unknown.typeMeta (field 1) has wire type 0 (varint)',
    },
    {
      reason: 'a truncated object names the field path',
      body: envelope(
        'v1',
        'ConfigMap',
        encode((w) => w.tag(1, 2).varintValue(20).string(1, 'x')),
      ),
      code: 400,
      reasonCode: 'BadRequest',
      fragment: 'ConfigMap.metadata needs 20 bytes',
    },
  ];
  for (const c of rejected) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(
        () => decodeProtobufObject(c.body),
        (err: unknown) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal(err.code, c.code);
          assert.equal(err.reason, c.reasonCode);
          assert.ok(err.message.includes(c.fragment), `${JSON.stringify(err.message)} lacks ${JSON.stringify(c.fragment)}`);
          return true;
        },
      );
    });
  }

  test('the 415 message lists the kinds that can be decoded', () => {
    try {
      decodeHex(
        envelope(
          'batch/v1',
          'Job',
          encode(() => undefined),
        ).toString('hex'),
      );
      assert.fail('expected a 415');
    } catch (err) {
      assert.ok(err instanceof ApiError);
      assert.match(err.message, /send it as application\/json \(protobuf is decoded for ConfigMap \(v1\), .*DeleteOptions\)$/);
    }
  });
});
