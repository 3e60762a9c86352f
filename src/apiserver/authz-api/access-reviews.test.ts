import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../../machinery/errors.js';
import { RbacAuthorizer } from '../authz/rbac-authorizer.js';
import { RbacIndex } from '../authz/rbac-index.js';
import type { RequestContext } from '../rest/context.js';
import { accessReviewEndpoints } from './access-reviews.js';
import { authorizationResourceTypes } from './resource-types.js';

const G = 'rbac.authorization.k8s.io';
const index = new RbacIndex();
index.set('ClusterRole', {
  apiVersion: `${G}/v1`,
  kind: 'ClusterRole',
  metadata: { name: 'edit' },
  rules: [{ verbs: ['get', 'create'], apiGroups: [''], resources: ['secrets'] }],
});
index.set('RoleBinding', {
  apiVersion: `${G}/v1`,
  kind: 'RoleBinding',
  metadata: { name: 'b', namespace: 'ns' },
  roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'edit' },
  subjects: [{ kind: 'User', name: 'dev' }],
});
const endpoints = Object.fromEntries(accessReviewEndpoints({ authorizer: new RbacAuthorizer(index), index }).map((e) => [e.resource, e]));
const ctx = (name: string, groups: string[] = ['system:authenticated']): RequestContext => ({ user: { name, groups }, userAgent: '', warnings: [] });
const call = async (resource: string, c: RequestContext, body: unknown, namespace?: string) =>
  (await endpoints[resource].create(c, { namespace, name: undefined }, body, new URLSearchParams())) as { code: number; object: Record<string, any> };
const ra = (verb: string, namespace: string) => ({ resourceAttributes: { verb, resource: 'secrets', namespace } });

describe('access reviews', () => {
  const ssar: Array<{ reason: string; user: string; spec: unknown; allowed: boolean }> = [
    { reason: 'allowed in the bound namespace', user: 'dev', spec: ra('create', 'ns'), allowed: true },
    { reason: 'denied elsewhere', user: 'dev', spec: ra('create', 'other'), allowed: false },
    { reason: 'denied for a verb not granted', user: 'dev', spec: ra('delete', 'ns'), allowed: false },
    { reason: 'a non-resource path', user: 'dev', spec: { nonResourceAttributes: { verb: 'get', path: '/metrics' } }, allowed: false },
  ];
  for (const c of ssar) {
    test(`SelfSubjectAccessReview: ${c.reason}`, async () => {
      const r = await call('selfsubjectaccessreviews', ctx(c.user), { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: c.spec });
      assert.equal(r.code, 201);
      assert.equal(r.object.kind, 'SelfSubjectAccessReview');
      assert.deepEqual(r.object.spec, c.spec);
      assert.equal(r.object.status.allowed, c.allowed);
      if (!c.allowed) assert.equal(r.object.status.reason, undefined, 'a plain denial has no reason (kubectl auth can-i prints "no")');
    });
  }

  test('SubjectAccessReview answers for the named user, not the caller', async () => {
    const r = await call('subjectaccessreviews', ctx('admin', ['system:masters']), { spec: { user: 'dev', ...ra('get', 'ns') } });
    assert.equal(r.object.status.allowed, true);
    const r2 = await call('subjectaccessreviews', ctx('admin', ['system:masters']), { spec: { user: 'other', ...ra('get', 'ns') } });
    assert.equal(r2.object.status.allowed, false);
  });

  test('LocalSubjectAccessReview is confined to the path namespace', async () => {
    const r = await call('localsubjectaccessreviews', ctx('admin'), { spec: { user: 'dev', resourceAttributes: { verb: 'get', resource: 'secrets' } } }, 'ns');
    assert.equal(r.object.status.allowed, true);
    assert.equal(r.object.metadata.namespace, 'ns');
    await assert.rejects(
      call('localsubjectaccessreviews', ctx('admin'), { spec: { user: 'dev', ...ra('get', 'other') } }, 'ns'),
      (e) => isApiError(e) && e.code === 422,
    );
  });

  const bad: Array<{ reason: string; resource: string; body: unknown; code: number }> = [
    {
      reason: 'both attribute kinds',
      resource: 'selfsubjectaccessreviews',
      body: { spec: { ...ra('get', 'ns'), nonResourceAttributes: { path: '/', verb: 'get' } } },
      code: 422,
    },
    { reason: 'no attributes', resource: 'selfsubjectaccessreviews', body: { spec: {} }, code: 422 },
    { reason: 'another kind', resource: 'selfsubjectaccessreviews', body: { kind: 'Pod', spec: ra('get', 'ns') }, code: 400 },
    { reason: 'not an object', resource: 'selfsubjectaccessreviews', body: [1], code: 400 },
    { reason: 'SubjectAccessReview without user or groups', resource: 'subjectaccessreviews', body: { spec: ra('get', 'ns') }, code: 422 },
  ];
  for (const c of bad) {
    test(`refused: ${c.reason}`, async () => {
      await assert.rejects(call(c.resource, ctx('dev'), c.body), (e) => isApiError(e) && e.code === c.code);
    });
  }

  test('SelfSubjectRulesReview lists the rules in the namespace', async () => {
    const r = await call('selfsubjectrulesreviews', ctx('dev'), { spec: { namespace: 'ns' } });
    assert.deepEqual(r.object.status, {
      resourceRules: [{ verbs: ['get', 'create'], apiGroups: [''], resources: ['secrets'] }],
      nonResourceRules: [],
      incomplete: false,
    });
    const none = await call('selfsubjectrulesreviews', ctx('dev'), { spec: { namespace: 'other' } });
    assert.deepEqual(none.object.status.resourceRules, []);
  });

  test('resource types: create only, LocalSubjectAccessReview namespaced', () => {
    assert.deepEqual(
      authorizationResourceTypes().map((t) => [t.kind, t.namespaced, t.verbs]),
      [
        ['SelfSubjectAccessReview', false, ['create']],
        ['SubjectAccessReview', false, ['create']],
        ['LocalSubjectAccessReview', true, ['create']],
        ['SelfSubjectRulesReview', false, ['create']],
      ],
    );
  });
});
