import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { isApiError } from '../../machinery/errors.js';
import type { AdmissionAttributes } from '../admission/types.js';
import { rbacResourceTypes } from '../builtins/rbac.js';
import type { UserInfo } from '../rest/context.js';
import { RbacEscalationCheck } from './escalation.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { RbacIndex, RBAC_GROUP } from './rbac-index.js';

const types = Object.fromEntries(rbacResourceTypes().map((t) => [t.kind, t]));
const G = RBAC_GROUP;

function index(): RbacIndex {
  const ix = new RbacIndex();
  const cr = (name: string, rules: unknown[]) => ix.set('ClusterRole', { apiVersion: `${G}/v1`, kind: 'ClusterRole', metadata: { name }, rules });
  cr('writer', [
    { verbs: ['create', 'update', 'get', 'list', 'delete'], apiGroups: [G], resources: ['roles', 'rolebindings'] },
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] },
  ]);
  cr('secrets-all', [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }]);
  cr('binder', [{ verbs: ['bind'], apiGroups: [G], resources: ['clusterroles'], resourceNames: ['secrets-all'] }]);
  cr('escalator', [{ verbs: ['escalate'], apiGroups: [G], resources: ['roles'] }]);
  const rb = (name: string, role: string, user: string) =>
    ix.set('RoleBinding', {
      apiVersion: `${G}/v1`,
      kind: 'RoleBinding',
      metadata: { name, namespace: 'ns' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'User', name: user }],
    });
  rb('lead', 'writer', 'lead');
  rb('lead2', 'writer', 'binder-user');
  rb('binder', 'binder', 'binder-user');
  rb('lead3', 'writer', 'esc-user');
  rb('esc', 'escalator', 'esc-user');
  return ix;
}

function attrs(kind: string, user: string, obj: KObject, op: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionAttributes {
  const u: UserInfo = { name: user, groups: user === 'root' ? ['system:masters'] : ['system:authenticated'] };
  return {
    operation: op,
    rt: types[kind],
    namespace: 'ns',
    name: obj.metadata.name!,
    subresource: '',
    object: obj,
    oldObject: undefined,
    dryRun: false,
    ctx: { user: u, userAgent: '', warnings: [] },
  };
}
const roleObj = (rules: unknown[]): KObject => ({ apiVersion: `${G}/v1`, kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules });
const bindingObj = (kind: string, name: string): KObject => ({
  apiVersion: `${G}/v1`,
  kind: 'RoleBinding',
  metadata: { name: 'b', namespace: 'ns' },
  roleRef: { apiGroup: G, kind, name },
  subjects: [{ kind: 'User', name: 'x' }],
});

describe('RbacEscalationCheck', () => {
  const ix = index();
  const check = new RbacEscalationCheck(ix, new RbacAuthorizer(ix));
  const cases: Array<{ reason: string; attrs: AdmissionAttributes; missing?: RegExp }> = [
    { reason: 'a role within what the user holds', attrs: attrs('Role', 'lead', roleObj([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }])) },
    {
      reason: 'a role with more verbs than held',
      attrs: attrs('Role', 'lead', roleObj([{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['secrets'] }])),
      missing: /\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["delete"\]\}/,
    },
    {
      reason: 'an update is checked like a create',
      attrs: attrs('Role', 'lead', roleObj([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), 'UPDATE'),
      missing: /Verbs:\["\*"\]/,
    },
    { reason: 'system:masters may grant anything', attrs: attrs('Role', 'root', roleObj([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])) },
    { reason: 'the escalate verb allows any role', attrs: attrs('Role', 'esc-user', roleObj([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])) },
    { reason: 'binding a role whose permissions the user holds', attrs: attrs('RoleBinding', 'lead', bindingObj('ClusterRole', 'writer')) },
    {
      reason: 'binding a role with permissions not held',
      attrs: attrs('RoleBinding', 'lead', bindingObj('ClusterRole', 'secrets-all')),
      missing: /attempting to bind ClusterRole "secrets-all"/,
    },
    { reason: 'the bind verb on that very role allows it', attrs: attrs('RoleBinding', 'binder-user', bindingObj('ClusterRole', 'secrets-all')) },
    {
      reason: 'bind on one role does not allow another',
      attrs: attrs('RoleBinding', 'binder-user', bindingObj('ClusterRole', 'escalator')),
      missing: /escalate/,
    },
    { reason: 'binding a role that does not exist', attrs: attrs('RoleBinding', 'lead', bindingObj('Role', 'nope')), missing: /does not exist/ },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      assert.equal(check.handles(c.attrs), true);
      if (!c.missing) return void (await check.validate(c.attrs));
      await assert.rejects(check.validate(c.attrs), (err) => {
        assert.ok(isApiError(err));
        assert.equal(err.code, 403);
        assert.match(err.message, c.missing!);
        return true;
      });
    });
  }

  test('other kinds and deletes are not checked', () => {
    const a = attrs('Role', 'lead', roleObj([]));
    assert.equal(check.handles({ ...a, operation: 'DELETE' }), false);
    assert.equal(check.handles({ ...a, rt: { ...a.rt, group: '' } }), false);
  });
});

test('a wildcard verb on roles includes escalate (Kubernetes semantics)', async () => {
  const ix = new RbacIndex();
  ix.set('ClusterRole', {
    apiVersion: `${G}/v1`,
    kind: 'ClusterRole',
    metadata: { name: 'all-roles' },
    rules: [{ verbs: ['*'], apiGroups: [G], resources: ['roles'] }],
  });
  ix.set('RoleBinding', {
    apiVersion: `${G}/v1`,
    kind: 'RoleBinding',
    metadata: { name: 'x', namespace: 'ns' },
    roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'all-roles' },
    subjects: [{ kind: 'User', name: 'u' }],
  });
  const check = new RbacEscalationCheck(ix, new RbacAuthorizer(ix));
  await check.validate(attrs('Role', 'u', roleObj([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])));
});
