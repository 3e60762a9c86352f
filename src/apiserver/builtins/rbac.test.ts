import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { rbacResourceTypes, validateBinding, validateRules } from './rbac.js';

const G = 'rbac.authorization.k8s.io';
const role = (rules: unknown[]): KObject => ({ apiVersion: `${G}/v1`, kind: 'Role', metadata: { name: 'r' }, rules });
const binding = (roleRef: unknown, subjects: unknown[] = []): KObject => ({
  apiVersion: `${G}/v1`,
  kind: 'RoleBinding',
  metadata: { name: 'b' },
  roleRef,
  subjects,
});
const ref = (kind: string, name = 'x') => ({ apiGroup: G, kind, name });

describe('validateRules', () => {
  const cases: Array<{ reason: string; rules: unknown[]; cluster: boolean; want: string[] }> = [
    { reason: 'a valid resource rule', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }], cluster: false, want: [] },
    {
      reason: 'verbs are required',
      rules: [{ verbs: [], apiGroups: [''], resources: ['secrets'] }],
      cluster: false,
      want: ['rules[0].verbs: Required value: verbs must contain at least one value'],
    },
    {
      reason: 'resource rules need apiGroups',
      rules: [{ verbs: ['get'], resources: ['secrets'] }],
      cluster: true,
      want: ['rules[0].apiGroups: Required value: resource rules must supply at least one api group'],
    },
    {
      reason: 'resource rules need resources',
      rules: [{ verbs: ['get'], apiGroups: [''] }],
      cluster: true,
      want: ['rules[0].resources: Required value: resource rules must supply at least one resource'],
    },
    {
      reason: 'non-resource URLs only in ClusterRoles',
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      cluster: false,
      want: ['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs'],
    },
    { reason: 'a non-resource rule in a ClusterRole', rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] }], cluster: true, want: [] },
    {
      reason: 'URLs and resources do not mix',
      rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], apiGroups: [''], resources: ['secrets'] }],
      cluster: true,
      want: ['rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs'],
    },
    {
      reason: 'URLs start with a slash',
      rules: [{ verbs: ['get'], nonResourceURLs: ['healthz'] }],
      cluster: true,
      want: ['rules[0].nonResourceURLs[0]: Invalid value: "healthz": must be "*" or begin with "/"'],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(
        validateRules(role(c.rules), c.cluster).map((x) => `${x.field}: ${x.message}`),
        c.want,
      );
    });
  }
});

describe('validateBinding', () => {
  const cases: Array<{ reason: string; obj: KObject; cluster: boolean; old?: KObject; want: RegExp[] }> = [
    { reason: 'a valid RoleBinding to a Role', obj: binding(ref('Role'), [{ kind: 'User', apiGroup: G, name: 'u' }]), cluster: false, want: [] },
    { reason: 'a ClusterRoleBinding may not refer to a Role', obj: binding(ref('Role')), cluster: true, want: [/^roleRef\.kind: Unsupported value: "Role"/] },
    {
      reason: 'roleRef apiGroup must be RBAC',
      obj: binding({ apiGroup: 'x', kind: 'Role', name: 'r' }),
      cluster: false,
      want: [/^roleRef\.apiGroup: Unsupported value/],
    },
    { reason: 'roleRef name required', obj: binding(ref('Role', '')), cluster: false, want: [/^roleRef\.name: Required value/] },
    { reason: 'roleRef is required', obj: { ...binding(ref('Role')), roleRef: undefined }, cluster: false, want: [/^roleRef: Required value/] },
    {
      reason: 'roleRef is immutable',
      obj: binding(ref('Role', 'a')),
      old: binding(ref('Role', 'b')),
      cluster: false,
      want: [/^roleRef: Invalid value: .*cannot change roleRef/],
    },
    {
      reason: 'unknown subject kind',
      obj: binding(ref('Role'), [{ kind: 'Robot', name: 'r' }]),
      cluster: false,
      want: [/^subjects\[0\]\.kind: Unsupported value: "Robot"/],
    },
    {
      reason: 'a subject needs a name',
      obj: binding(ref('Role'), [{ kind: 'User', apiGroup: G, name: '' }]),
      cluster: false,
      want: [/^subjects\[0\]\.name: Required value/],
    },
    {
      reason: 'ServiceAccount in a ClusterRoleBinding needs a namespace',
      obj: binding(ref('ClusterRole'), [{ kind: 'ServiceAccount', name: 'sa' }]),
      cluster: true,
      want: [/^subjects\[0\]\.namespace: Required value/],
    },
    {
      reason: 'ServiceAccount in a RoleBinding defaults its namespace',
      obj: binding(ref('Role'), [{ kind: 'ServiceAccount', name: 'sa' }]),
      cluster: false,
      want: [],
    },
    {
      reason: 'User subjects use the RBAC group',
      obj: binding(ref('Role'), [{ kind: 'User', apiGroup: 'x', name: 'u' }]),
      cluster: false,
      want: [/^subjects\[0\]\.apiGroup: Unsupported value/],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = validateBinding(c.obj, c.cluster, c.old).map((x) => `${x.field}: ${x.message}`);
      assert.equal(got.length, c.want.length, got.join('\n'));
      c.want.forEach((re, i) => assert.match(got[i], re));
    });
  }
});

describe('RBAC resource types', () => {
  const types = Object.fromEntries(rbacResourceTypes().map((t) => [t.kind, t]));
  test('scopes and names', () => {
    assert.deepEqual(
      rbacResourceTypes().map((t) => [t.kind, t.resource, t.namespaced]),
      [
        ['Role', 'roles', true],
        ['ClusterRole', 'clusterroles', false],
        ['RoleBinding', 'rolebindings', true],
        ['ClusterRoleBinding', 'clusterrolebindings', false],
      ],
    );
  });
  test('binding columns show the role and, in wide output, the subjects', () => {
    const rb = types.RoleBinding;
    const b = binding(ref('ClusterRole', 'view'), [
      { kind: 'User', name: 'a' },
      { kind: 'Group', name: 'g' },
      { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' },
    ]);
    assert.deepEqual(
      rb.printerColumns.map((c) => c.cell!(b)),
      ['ClusterRole/view', '<unknown>', 'a', 'g', 'ns/sa'],
    );
    assert.deepEqual(
      rb.printerColumns.map((c) => c.priority ?? 0),
      [0, 0, 1, 1, 1],
    );
  });
  test('User and Group subjects get the RBAC API group on create', () => {
    const b = binding(ref('Role'), [
      { kind: 'User', name: 'a' },
      { kind: 'ServiceAccount', name: 's' },
    ]);
    types.RoleBinding.strategy.prepareForCreate!(b);
    assert.deepEqual(b.subjects, [
      { kind: 'User', name: 'a', apiGroup: G },
      { kind: 'ServiceAccount', name: 's' },
    ]);
  });
});
