import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { UserInfo } from '../rest/context.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { RbacIndex, RBAC_GROUP } from './rbac-index.js';
import type { AuthorizationAttributes } from './types.js';
import type { PolicyRule } from './rules.js';

const role = (kind: 'Role' | 'ClusterRole', name: string, rules: PolicyRule[], namespace?: string): KObject => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  rules,
});
const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  ref: [string, string],
  subjects: Array<Record<string, string>>,
  namespace?: string,
): KObject => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: RBAC_GROUP, kind: ref[0], name: ref[1] },
  subjects,
});

function fixture(): RbacIndex {
  const ix = new RbacIndex();
  ix.set('ClusterRole', role('ClusterRole', 'reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]));
  ix.set('ClusterRole', role('ClusterRole', 'urls', [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]));
  ix.set('ClusterRole', role('ClusterRole', 'secret-admin', [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }]));
  ix.set('Role', role('Role', 'one-secret', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['db'] }], 'team-a'));
  ix.set('ClusterRoleBinding', binding('ClusterRoleBinding', 'readers', ['ClusterRole', 'reader'], [{ kind: 'Group', name: 'readers' }]));
  ix.set('ClusterRoleBinding', binding('ClusterRoleBinding', 'urls', ['ClusterRole', 'urls'], [{ kind: 'User', name: 'ops' }]));
  ix.set('RoleBinding', binding('RoleBinding', 'dev', ['ClusterRole', 'secret-admin'], [{ kind: 'User', name: 'dev' }], 'team-a'));
  ix.set('RoleBinding', binding('RoleBinding', 'sa', ['Role', 'one-secret'], [{ kind: 'ServiceAccount', name: 'app' }], 'team-a'));
  ix.set(
    'RoleBinding',
    binding('RoleBinding', 'sa-elsewhere', ['ClusterRole', 'secret-admin'], [{ kind: 'ServiceAccount', name: 'app', namespace: 'team-a' }], 'team-b'),
  );
  ix.set('RoleBinding', binding('RoleBinding', 'dangling', ['Role', 'missing'], [{ kind: 'User', name: 'dev' }], 'team-c'));
  return ix;
}

const u = (name: string, ...groups: string[]): UserInfo => ({ name, groups: [...groups, 'system:authenticated'] });
const req = (user: UserInfo, verb: string, resource: string, namespace = '', name = ''): AuthorizationAttributes => ({
  user,
  verb,
  resourceRequest: true,
  group: '',
  version: 'v1',
  resource,
  subresource: '',
  namespace,
  name,
  path: '',
});
const nonRes = (user: UserInfo, path: string): AuthorizationAttributes => ({
  user,
  verb: 'get',
  resourceRequest: false,
  group: '',
  version: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
  path,
});

describe('RbacAuthorizer', () => {
  const sa = u('system:serviceaccount:team-a:app', 'system:serviceaccounts', 'system:serviceaccounts:team-a');
  const cases: Array<{ reason: string; attrs: AuthorizationAttributes; want: boolean }> = [
    { reason: 'system:masters may do anything', attrs: req(u('root', 'system:masters'), 'delete', 'secrets', 'x'), want: true },
    { reason: 'nobody without bindings', attrs: req(u('stranger'), 'get', 'configmaps', 'x'), want: false },
    { reason: 'a group ClusterRoleBinding grants in every namespace', attrs: req(u('r', 'readers'), 'list', 'configmaps', 'anywhere'), want: true },
    { reason: 'a ClusterRoleBinding grants at the cluster scope', attrs: req(u('r', 'readers'), 'list', 'configmaps'), want: true },
    { reason: 'only the verbs of the role', attrs: req(u('r', 'readers'), 'delete', 'configmaps', 'x', 'c'), want: false },
    { reason: 'a RoleBinding to a ClusterRole grants in its namespace', attrs: req(u('dev'), 'delete', 'secrets', 'team-a', 's'), want: true },
    { reason: 'a RoleBinding grants nothing in another namespace', attrs: req(u('dev'), 'get', 'secrets', 'team-b', 's'), want: false },
    { reason: 'a RoleBinding grants nothing across namespaces (list -A)', attrs: req(u('dev'), 'list', 'secrets'), want: false },
    { reason: 'a ServiceAccount subject matches the SA user', attrs: req(sa, 'get', 'secrets', 'team-a', 'db'), want: true },
    { reason: 'resourceNames restrict the SA', attrs: req(sa, 'get', 'secrets', 'team-a', 'other'), want: false },
    { reason: 'an SA subject with an explicit namespace in another namespace binding', attrs: req(sa, 'list', 'secrets', 'team-b'), want: true },
    { reason: 'another user with the SA name does not match', attrs: req(u('app'), 'get', 'secrets', 'team-a', 'db'), want: false },
    { reason: 'a non-resource URL granted to a user', attrs: nonRes(u('ops'), '/metrics'), want: true },
    { reason: 'a non-resource URL not granted', attrs: nonRes(u('ops'), '/debug'), want: false },
    { reason: 'a binding to a missing role grants nothing', attrs: req(u('dev'), 'get', 'secrets', 'team-c', 's'), want: false },
  ];
  const authz = new RbacAuthorizer(fixture());
  for (const c of cases) {
    test(c.reason, () => {
      const d = authz.authorize(c.attrs);
      assert.equal(d.allowed, c.want, d.reason);
      assert.ok(d.reason.length > 0, 'every decision has a reason');
    });
  }

  test('the reason names the binding, the role and the subject', () => {
    const d = authz.authorize(req(u('dev'), 'get', 'secrets', 'team-a', 's'));
    assert.equal(d.reason, 'RBAC: allowed by RoleBinding "dev" in namespace "team-a" of ClusterRole "secret-admin" to User "dev"');
    const denied = authz.authorize(req(u('stranger'), 'get', 'secrets', 'x'));
    assert.match(denied.reason, /no role is bound to the user/);
  });

  test('changes to the index apply to the next decision', () => {
    const ix = fixture();
    const a = new RbacAuthorizer(ix);
    const attrs = req(u('dev'), 'get', 'secrets', 'team-a', 's');
    assert.equal(a.authorize(attrs).allowed, true);
    ix.remove('RoleBinding', binding('RoleBinding', 'dev', ['ClusterRole', 'secret-admin'], [], 'team-a'));
    assert.equal(a.authorize(attrs).allowed, false);
    ix.set('RoleBinding', binding('RoleBinding', 'dev', ['ClusterRole', 'reader'], [{ kind: 'User', name: 'dev' }], 'team-a'));
    assert.equal(a.authorize(attrs).allowed, false, 'the new role does not grant secrets');
    assert.equal(a.authorize(req(u('dev'), 'get', 'configmaps', 'team-a', 'c')).allowed, true);
    ix.set('ClusterRole', role('ClusterRole', 'reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]));
    assert.equal(a.authorize(attrs).allowed, true, 'a changed role applies to existing bindings');
    ix.set('RoleBinding', binding('RoleBinding', 'dev', ['ClusterRole', 'reader'], [{ kind: 'User', name: 'someone-else' }], 'team-a'));
    assert.equal(a.authorize(attrs).allowed, false, 'a replaced subject list drops the old subjects');
  });

  test('rulesFor lists cluster-wide and namespace rules', () => {
    const ix = fixture();
    assert.deepEqual(ix.rulesFor(u('dev'), 'team-a'), [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }]);
    assert.deepEqual(ix.rulesFor(u('dev'), ''), []);
    assert.equal(ix.rulesFor(u('dev', 'readers'), 'team-a').length, 2);
  });
});
