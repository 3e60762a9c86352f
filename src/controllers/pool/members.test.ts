import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { buildPoolMember, CLASS_LABEL, classOfLabel, describeMembers, memberOf, memberStateOf, POOL_LABEL } from './members.js';
import { poolSettingsOf, poolTemplateOf, type PoolTemplate } from './pool-settings.js';

function resource(spec: Record<string, unknown>, status: Record<string, unknown> = {}, meta: Partial<KObject['metadata']> = {}): KObject {
  return {
    apiVersion: 'database.local.conductor.io/v1alpha1',
    kind: 'LocalPostgreSQLInstance',
    metadata: { name: 'r', namespace: 'sys', ...meta },
    spec,
    status,
  };
}

describe('memberStateOf', () => {
  const cases = [
    { reason: 'no claim, no phase: free (provisioning)', obj: resource({}), want: 'free' },
    { reason: 'Available and unbound: free', obj: resource({}, { phase: 'Available' }), want: 'free' },
    { reason: 'Failed and unbound: still free (the reconciler retries it)', obj: resource({}, { phase: 'Failed' }), want: 'free' },
    {
      reason: 'a claimRef makes it taken, whatever the phase',
      obj: resource({ claimRef: { name: 'c', namespace: 'app' } }, { phase: 'Available' }),
      want: 'taken',
    },
    { reason: 'Shared with bindings: taken', obj: resource({ sharing: { mode: 'Shared' } }, { bindings: [{ claimRef: { name: 'c' } }] }), want: 'taken' },
    { reason: 'Released (waiting for an admin): taken', obj: resource({}, { phase: 'Released' }), want: 'taken' },
    {
      reason: 'a deletionTimestamp wins over everything',
      obj: resource({ claimRef: { name: 'c' } }, {}, { deletionTimestamp: '2025-01-01T00:00:00Z' }),
      want: 'deleting',
    },
    { reason: 'an empty claimRef is no binding', obj: resource({ claimRef: {} }), want: 'free' },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(memberStateOf(c.obj), c.want));
});

describe('memberOf', () => {
  test('reads the pool label, phase, creation time, uid and resourceVersion', () => {
    const got = memberOf(
      resource({}, { phase: 'Available' }, { uid: 'u1', resourceVersion: '7', creationTimestamp: '2025-01-01T00:00:01Z', labels: { [POOL_LABEL]: 'true' } }),
    );
    assert.deepEqual(got, {
      kind: 'LocalPostgreSQLInstance',
      name: 'r',
      namespace: 'sys',
      uid: 'u1',
      resourceVersion: '7',
      pooled: true,
      state: 'free',
      available: true,
      createdAt: Date.parse('2025-01-01T00:00:01Z'),
    });
  });
  test('a resource without the pool label is not pooled', () => {
    assert.equal(memberOf(resource({}, {}, { labels: { [POOL_LABEL]: 'yes' } })).pooled, false);
  });
});

describe('classOfLabel', () => {
  const cases = [
    { reason: 'namespace then name', value: 'sys.dedicated', want: { namespace: 'sys', name: 'dedicated' } },
    { reason: 'dots after the first belong to the name', value: 'sys.a.b', want: { namespace: 'sys', name: 'a.b' } },
    { reason: 'no dot: not a class', value: 'sys', want: undefined },
    { reason: 'empty name: not a class', value: 'sys.', want: undefined },
    { reason: 'absent', value: undefined, want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(classOfLabel(c.value), c.want));
});

describe('describeMembers', () => {
  test('groups names by kind', () => {
    const base = { namespace: 's', pooled: true, state: 'free' as const, available: true, createdAt: 0 };
    assert.equal(
      describeMembers([
        { ...base, kind: 'A', name: 'a1' },
        { ...base, kind: 'B', name: 'b1' },
        { ...base, kind: 'A', name: 'a2' },
      ]),
      'A a1, a2; B b1',
    );
  });
});

const cls: KObject = {
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'ResourceClass',
  metadata: { name: 'dedicated', namespace: 'conductor-system' },
  resourceClass: 'fast',
  rebindPolicy: 'Recycle',
  providerRef: { name: 'local' },
  capabilities: { capacity: { storage: '20Gi' }, region: 'us-east-1' },
  pool: { minFree: 2, maxFree: 3, maxInstances: 5 },
  template: {
    apiVersion: 'database.local.conductor.io/v1alpha1',
    kind: 'LocalPostgreSQLInstance',
    metadata: { labels: { tier: 'gold' }, annotations: { note: 'x' } },
    spec: { version: '15', capabilities: { capacity: { storage: '1Gi' } }, claimRef: { name: 'stale' } },
  },
};

describe('buildPoolMember', () => {
  test('builds the template as the claim controller would, bound to nobody, with the pool label', () => {
    const template = poolTemplateOf(cls) as PoolTemplate;
    assert.deepEqual(buildPoolMember(cls, template, 'dedicated-pool-0'), {
      apiVersion: 'database.local.conductor.io/v1alpha1',
      kind: 'LocalPostgreSQLInstance',
      metadata: {
        name: 'dedicated-pool-0',
        namespace: 'conductor-system',
        labels: { tier: 'gold', [CLASS_LABEL]: 'conductor-system.dedicated', [POOL_LABEL]: 'true' },
        annotations: { note: 'x' },
      },
      spec: {
        version: '15',
        capabilities: { capacity: { storage: '20Gi' }, region: 'us-east-1' },
        rebindPolicy: 'Recycle',
        resourceClass: 'fast',
        providerRef: { name: 'local' },
      },
    });
  });
  test('defaults: rebindPolicy Delete, profile the class name; the class is not modified', () => {
    const bare: KObject = {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name: 'plain', namespace: 's' },
      template: { apiVersion: 'g.io/v1', kind: 'K', spec: { a: { b: 1 } } },
    };
    const before = JSON.stringify(bare);
    const obj = buildPoolMember(bare, poolTemplateOf(bare) as PoolTemplate, 'plain-pool-0');
    assert.deepEqual(obj.spec, { a: { b: 1 }, rebindPolicy: 'Delete', resourceClass: 'plain' });
    (obj.spec as { a: { b: number } }).a.b = 2;
    assert.equal(JSON.stringify(bare), before);
  });
});

describe('poolSettingsOf and poolTemplateOf', () => {
  const cases = [
    { reason: 'all three numbers', pool: { minFree: 2, maxFree: 3, maxInstances: 5 }, want: { minFree: 2, maxFree: 3, maxInstances: 5 } },
    { reason: 'absent pool: no pool', pool: undefined, want: { minFree: 0, maxFree: 0, maxInstances: 0 } },
    { reason: 'junk reads as 0', pool: { minFree: -1, maxFree: '3', maxInstances: 1.5 }, want: { minFree: 0, maxFree: 0, maxInstances: 0 } },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(poolSettingsOf({ ...cls, pool: c.pool }), c.want));
  }
  const templates = [
    { reason: 'no template', template: undefined, problem: /template is missing/ },
    { reason: 'a core apiVersion is no concrete kind', template: { apiVersion: 'v1', kind: 'Secret' }, problem: /expected <group>\/<version>/ },
    { reason: 'no kind', template: { apiVersion: 'g.io/v1' }, problem: /template.kind/ },
  ];
  for (const c of templates) {
    test(`template: ${c.reason}`, () => {
      const got = poolTemplateOf({ ...cls, template: c.template });
      assert.ok('problem' in got);
      assert.match(got.problem, c.problem);
    });
  }
});
