import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { UserInfo } from '../rest/context.js';
import {
  AUTOUPDATE_ANNOTATION,
  bootstrapPolicy,
  isRetiredRule,
  POLICY_KINDS_ANNOTATION,
  policyResourcesOf,
  reconcileObject,
  type CrdKinds,
  type PolicyResources,
} from './bootstrap-policy.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { RbacIndex } from './rbac-index.js';

const policy = bootstrapPolicy({
  claimResources: [
    { group: 'storage.conductor.io', resource: 'postgresqlinstances' },
    { group: 'cache.conductor.io', resource: 'redisclusters' },
  ],
  concreteResources: [{ group: 'database.local.conductor.io', resource: 'postgresqlservers' }],
});

function authorizer(): RbacAuthorizer {
  const ix = new RbacIndex();
  for (const o of policy.clusterRoles) ix.set('ClusterRole', o);
  for (const o of policy.clusterRoleBindings) ix.set('ClusterRoleBinding', o);
  for (const o of policy.roleBindings) ix.set('RoleBinding', o);
  // dev-a is an application developer in team-a.
  ix.set('RoleBinding', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'dev-a', namespace: 'team-a' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'conductor:app-developer' },
    subjects: [{ kind: 'User', name: 'dev-a' }],
  });
  return new RbacAuthorizer(ix);
}

const infra: UserInfo = { name: 'infra', groups: ['conductor:infrastructure-admins', 'system:authenticated'] };
const platform: UserInfo = { name: 'plat', groups: ['conductor:platform-admins', 'system:authenticated'] };
const dev: UserInfo = { name: 'dev-a', groups: ['system:authenticated'] };

describe('bootstrap policy grants the three parties what section 1 of the design says', () => {
  const a = authorizer();
  const cases: Array<{ reason: string; user: UserInfo; verb: string; group: string; resource: string; sub?: string; ns: string; want: boolean }> = [
    {
      reason: 'infra admin creates Providers',
      user: infra,
      verb: 'create',
      group: 'core.conductor.io',
      resource: 'providers',
      ns: 'conductor-system',
      want: true,
    },
    {
      reason: 'infra admin creates concrete resources',
      user: infra,
      verb: 'create',
      group: 'database.local.conductor.io',
      resource: 'postgresqlservers',
      ns: 'conductor-system',
      want: true,
    },
    {
      reason: 'infra admin writes credentials in conductor-system',
      user: infra,
      verb: 'create',
      group: '',
      resource: 'secrets',
      ns: 'conductor-system',
      want: true,
    },
    { reason: 'infra admin does not read application secrets', user: infra, verb: 'get', group: '', resource: 'secrets', ns: 'team-a', want: false },
    { reason: 'infra admin reads claims', user: infra, verb: 'list', group: 'storage.conductor.io', resource: 'postgresqlinstances', ns: '', want: true },
    {
      reason: 'infra admin does not create classes',
      user: infra,
      verb: 'create',
      group: 'core.conductor.io',
      resource: 'resourceclasses',
      ns: 'conductor-system',
      want: false,
    },
    {
      reason: 'platform admin creates classes',
      user: platform,
      verb: 'create',
      group: 'core.conductor.io',
      resource: 'resourceclasses',
      ns: 'conductor-system',
      want: true,
    },
    { reason: 'platform admin creates namespaces', user: platform, verb: 'create', group: '', resource: 'namespaces', ns: '', want: true },
    { reason: 'platform admin never reads secrets', user: platform, verb: 'get', group: '', resource: 'secrets', ns: 'conductor-system', want: false },
    {
      reason: 'platform admin reads concrete resources',
      user: platform,
      verb: 'list',
      group: 'database.local.conductor.io',
      resource: 'postgresqlservers',
      ns: '',
      want: true,
    },
    {
      reason: 'platform admin does not create concrete resources',
      user: platform,
      verb: 'create',
      group: 'database.local.conductor.io',
      resource: 'postgresqlservers',
      ns: 'conductor-system',
      want: false,
    },
    {
      reason: 'developer creates claims in their namespace',
      user: dev,
      verb: 'create',
      group: 'cache.conductor.io',
      resource: 'redisclusters',
      ns: 'team-a',
      want: true,
    },
    { reason: 'developer reads secrets in their namespace', user: dev, verb: 'get', group: '', resource: 'secrets', ns: 'team-a', want: true },
    {
      reason: 'developer nothing in another namespace',
      user: dev,
      verb: 'create',
      group: 'storage.conductor.io',
      resource: 'postgresqlinstances',
      ns: 'team-b',
      want: false,
    },
    { reason: 'developer reads classes', user: dev, verb: 'list', group: 'core.conductor.io', resource: 'resourceclasses', ns: '', want: true },
    {
      reason: 'developer does not create classes',
      user: dev,
      verb: 'create',
      group: 'core.conductor.io',
      resource: 'resourceclasses',
      ns: 'team-a',
      want: false,
    },
    {
      reason: 'developer does not create concrete resources',
      user: dev,
      verb: 'create',
      group: 'database.local.conductor.io',
      resource: 'postgresqlservers',
      ns: 'team-a',
      want: false,
    },
    { reason: 'developer does not list namespaces', user: dev, verb: 'list', group: '', resource: 'namespaces', ns: '', want: false },
    {
      reason: "developer does not write a claim's status",
      user: dev,
      verb: 'patch',
      group: 'storage.conductor.io',
      resource: 'postgresqlinstances',
      sub: 'status',
      ns: 'team-a',
      want: false,
    },
    {
      reason: "developer does not update a claim's status",
      user: dev,
      verb: 'update',
      group: 'cache.conductor.io',
      resource: 'redisclusters',
      sub: 'status',
      ns: 'team-a',
      want: false,
    },
    {
      reason: 'developer has no other subresource of a claim',
      user: dev,
      verb: 'create',
      group: 'storage.conductor.io',
      resource: 'postgresqlinstances',
      sub: 'anything',
      ns: 'team-a',
      want: false,
    },
    {
      reason: 'developer nothing in a claim group beyond the claim kinds',
      user: dev,
      verb: 'create',
      group: 'storage.conductor.io',
      resource: 'newkinds',
      ns: 'team-a',
      want: false,
    },
    {
      reason: "infra admin does not write a concrete resource's status",
      user: infra,
      verb: 'patch',
      group: 'database.local.conductor.io',
      resource: 'postgresqlservers',
      sub: 'status',
      ns: 'conductor-system',
      want: false,
    },
    {
      reason: "infra admin does not write a Provider's status",
      user: infra,
      verb: 'update',
      group: 'core.conductor.io',
      resource: 'providers',
      sub: 'status',
      ns: 'conductor-system',
      want: false,
    },
    {
      reason: "platform admin does not write a ClaimQuota's status",
      user: platform,
      verb: 'update',
      group: 'core.conductor.io',
      resource: 'claimquotas',
      sub: 'status',
      ns: 'team-a',
      want: false,
    },
    {
      reason: 'platform admin does not finalize namespaces',
      user: platform,
      verb: 'update',
      group: '',
      resource: 'namespaces',
      sub: 'finalize',
      ns: '',
      want: false,
    },
    {
      reason: "platform admin does not write claims' status",
      user: platform,
      verb: 'patch',
      group: 'storage.conductor.io',
      resource: 'postgresqlinstances',
      sub: 'status',
      ns: 'team-a',
      want: false,
    },
    {
      reason: "developer may read a claim's status subresource",
      user: dev,
      verb: 'get',
      group: 'storage.conductor.io',
      resource: 'postgresqlinstances',
      sub: 'status',
      ns: 'team-a',
      want: true,
    },
    { reason: 'everyone may ask can-i', user: dev, verb: 'create', group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews', ns: '', want: true },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const d = a.authorize({
        user: c.user,
        verb: c.verb,
        resourceRequest: true,
        group: c.group,
        version: 'v1',
        resource: c.resource,
        subresource: c.sub ?? '',
        namespace: c.ns,
        name: '',
        path: '',
      });
      assert.equal(d.allowed, c.want, d.reason);
    });
  }
  test('reconciling the policy against itself changes nothing', () => {
    for (const o of [...policy.clusterRoles, ...policy.clusterRoleBindings]) assert.equal(reconcileObject(structuredClone(o), o), undefined, o.metadata.name);
  });
  test('no Conductor role has a wildcard resource rule (it would include */status)', () => {
    for (const role of policy.clusterRoles.filter((r) => r.metadata.name!.startsWith('conductor:'))) {
      for (const rule of role.rules as Array<{ resources?: string[] }>) {
        assert.ok(!(rule.resources ?? []).some((r) => r.includes('*')), `${role.metadata.name}: ${JSON.stringify(rule)}`);
      }
    }
  });
  test('everyone authenticated may read discovery', () => {
    const d = a.authorize({
      user: dev,
      verb: 'get',
      resourceRequest: false,
      group: '',
      version: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      path: '/apis/core.conductor.io/v1alpha1',
    });
    assert.equal(d.allowed, true);
  });
});

describe('reconcileObject', () => {
  const wanted = policy.clusterRoles.find((r) => r.metadata.name === 'conductor:app-developer-classes')!;
  const cases: Array<{ reason: string; stored: KObject; want: 'none' | 'update' | 'recreate'; check?: (o: KObject) => void }> = [
    { reason: 'unchanged', stored: structuredClone(wanted), want: 'none' },
    {
      reason: 'user additions are kept, nothing to add',
      stored: { ...structuredClone(wanted), rules: [...(wanted.rules as unknown[]), { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] },
      want: 'none',
    },
    {
      reason: 'a removed rule is added back, user rules kept',
      stored: { ...structuredClone(wanted), rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] },
      want: 'update',
      check: (o) => assert.equal((o.rules as unknown[]).length, 2),
    },
    {
      reason: 'autoupdate false is left alone',
      stored: { ...structuredClone(wanted), metadata: { name: wanted.metadata.name, annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } }, rules: [] },
      want: 'none',
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const r = reconcileObject(c.stored, wanted);
      const got = r === undefined ? 'none' : 'update' in r ? 'update' : 'recreate';
      assert.equal(got, c.want);
      if (r && 'update' in r) c.check?.(r.update);
    });
  }

  test('rules of earlier defaults that were too wide are removed; user rules stay', () => {
    const dev = policy.clusterRoles.find((r) => r.metadata.name === 'conductor:app-developer')!;
    const old = { verbs: ['*'], apiGroups: ['cache.conductor.io', 'storage.conductor.io'], resources: ['*'] };
    const mine = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
    const r = reconcileObject({ ...structuredClone(dev), rules: [old, ...(dev.rules as unknown[]), mine] }, dev);
    assert.ok(r && 'update' in r);
    assert.deepEqual(r.update.rules, [...(dev.rules as unknown[]), mine]);
    const infra = policy.clusterRoles.find((x) => x.metadata.name === 'conductor:infrastructure-admin')!;
    const oldInfra = { verbs: ['*'], apiGroups: ['core.conductor.io'], resources: ['providers', 'providers/status'] };
    const ri = reconcileObject({ ...structuredClone(infra), rules: [oldInfra, ...(infra.rules as unknown[])] }, infra);
    assert.ok(ri && 'update' in ri);
    assert.deepEqual(ri.update.rules, infra.rules);
    assert.equal(isRetiredRule('my-own-role', old), false, 'roles of users are never touched');
  });

  test('bindings get missing subjects added and a changed roleRef recreated', () => {
    const b = policy.clusterRoleBindings.find((x) => x.metadata.name === 'system:basic-user')!;
    const r = reconcileObject({ ...structuredClone(b), subjects: [{ kind: 'User', name: 'someone' }] }, b);
    assert.ok(r && 'update' in r);
    assert.deepEqual(
      (r.update.subjects as Array<{ name: string }>).map((s) => s.name),
      ['someone', 'system:authenticated'],
    );
    const moved = reconcileObject({ ...structuredClone(b), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'other' } }, b);
    assert.ok(moved && 'recreate' in moved);
  });

  test("when the kinds change, the rules generated for the old kinds go, the new ones come, users' rules stay", () => {
    const kinds = (claims: string[]): PolicyResources => ({
      claimResources: claims.map((c) => ({ group: 'storage.conductor.io', resource: c })),
      concreteResources: [{ group: 'database.local.conductor.io', resource: 'postgresqlservers' }],
    });
    const role = (k: PolicyResources, name: string) => bootstrapPolicy(k).clusterRoles.find((r) => r.metadata.name === name)!;
    const mine = { verbs: ['get'], apiGroups: ['storage.conductor.io'], resources: ['buckets'] };
    const rules = (xs: unknown) => new Set((xs as Array<Record<string, unknown>>).map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort()))));
    for (const name of ['conductor:app-developer', 'conductor:platform-admin', 'conductor:infrastructure-admin']) {
      const two = role(kinds(['buckets', 'volumes']), name);
      const one = role(kinds(['volumes']), name);
      const three = role(kinds(['buckets', 'volumes', 'warehouses']), name);
      // A kind deleted: its rules go, exactly as if the role had been built without it.
      const down = reconcileObject({ ...structuredClone(two), rules: [...(two.rules as unknown[]), mine] }, one);
      assert.ok(down && 'update' in down, name);
      assert.deepEqual(rules(down.update.rules), rules([...(one.rules as unknown[]), mine]), name);
      assert.equal(down.update.metadata.annotations?.[POLICY_KINDS_ANNOTATION], one.metadata.annotations?.[POLICY_KINDS_ANNOTATION]);
      // A kind added: no rule is left twice, and reconciling again changes nothing.
      const up = reconcileObject(structuredClone(two), three);
      assert.ok(up && 'update' in up, name);
      assert.deepEqual(rules(up.update.rules), rules(three.rules), name);
      assert.equal(reconcileObject(up.update, three), undefined, name);
    }
    // Without the annotation (or with one not understood) nothing is taken for generated: rules are only added.
    const dev2 = role(kinds(['buckets', 'volumes']), 'conductor:app-developer');
    const dev1 = role(kinds(['volumes']), 'conductor:app-developer');
    for (const value of [undefined, 'not json', '{"claims":["no-dot"],"concrete":[]}']) {
      const stored = structuredClone(dev2);
      if (value === undefined) delete stored.metadata.annotations![POLICY_KINDS_ANNOTATION];
      else stored.metadata.annotations![POLICY_KINDS_ANNOTATION] = value;
      const r = reconcileObject(stored, dev1);
      assert.ok(r && 'update' in r);
      assert.ok(
        (r.update.rules as Array<{ resources?: string[] }>).some((x) => x.resources?.includes('buckets')),
        String(value),
      );
    }
  });
});

describe('policyResourcesOf', () => {
  const crd = (o: { plural: string; group?: string; scope?: string; categories?: string[]; abstract?: string }) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.${o.group ?? 'x.conductor.io'}`, ...(o.abstract ? { labels: { 'conductor.io/abstract': o.abstract } } : {}) },
    spec: {
      group: o.group ?? 'x.conductor.io',
      scope: o.scope ?? 'Namespaced',
      names: { plural: o.plural, kind: 'K', ...(o.categories ? { categories: o.categories } : {}) },
    },
  });
  // RBAC is told which CRDs are claims and which concrete kinds; here: claims by category or
  // label, concrete kinds by category (Conductor's own rule is tested in src/conductor).
  const categories = (c: KObject): unknown[] => (c.spec as { names?: { categories?: unknown[] } } | undefined)?.names?.categories ?? [];
  const kinds: CrdKinds = {
    isClaim: (c) => categories(c).includes('claim') || c.metadata.labels?.['conductor.io/abstract'] === 'true',
    isConcrete: (c) => categories(c).includes('managed'),
  };
  test('claims as told (namespaced only), concrete kinds as told; nothing that is no plain plural', () => {
    const got = policyResourcesOf(
      [
        crd({ plural: 'bycategory', categories: ['claim'] }),
        crd({ plural: 'bylabel', abstract: 'true' }),
        crd({ plural: 'labelfalse', abstract: 'false' }),
        crd({ plural: 'clusterwide', abstract: 'true', scope: 'Cluster' }),
        crd({ plural: 'concrete', categories: ['managed'] }),
        crd({ plural: 'other' }),
        crd({ plural: '*', abstract: 'true' }),
        crd({ plural: 'x/status', abstract: 'true' }),
        crd({ plural: 'nogroup', group: '', abstract: 'true' }),
        crd({ plural: 'roles', group: 'rbac.authorization.k8s.io', abstract: 'true' }),
        crd({ plural: 'things', group: 'x.kubernetes.io', categories: ['managed'] }),
        { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'broken' }, spec: 'nonsense' },
      ] as KObject[],
      kinds,
    );
    assert.deepEqual(
      got.claimResources.map((r) => r.resource),
      ['bycategory', 'bylabel'],
    );
    assert.deepEqual(
      got.concreteResources.map((r) => r.resource),
      ['concrete'],
    );
  });
  test('a plural that is not a plain name never reaches a rule', () => {
    const p = bootstrapPolicy({
      claimResources: [
        { group: 'x.conductor.io', resource: '*' },
        { group: 'x.conductor.io', resource: 'a/status' },
      ],
      concreteResources: [],
    });
    const dev = p.clusterRoles.find((r) => r.metadata.name === 'conductor:app-developer')!;
    assert.ok(!JSON.stringify(dev.rules).includes('x.conductor.io'));
  });
});
