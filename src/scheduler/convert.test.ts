import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../machinery/object.js';
import {
  claimInfoFromObject,
  classCandidateFromObject,
  implementsFromAnnotation,
  parseMoney,
  resourceCandidateFromObject,
  schedulerConfigFromProfileSpec,
} from './convert.js';
import { Scheduler } from './scheduler.js';
import { MYSQL } from './testing/index.js';

const wordpressDb: KObject = {
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'MySQLInstance',
  metadata: { name: 'wordpress-db', namespace: 'wordpress', uid: 'u-1' },
  spec: {
    version: '>= 5.6',
    masterUsername: 'masteruser',
    requirements: { capacity: { storage: '25Gi' }, region: 'north-america', cost: 'free-tier' },
    resourceClass: 'performance',
    resourceSelector: { matchExpressions: [{ key: 'environment', operator: 'In', values: ['dev'] }] },
    writeConnectionSecretToRef: { name: 'wordpress-db' },
  },
};

const rds445: KObject = {
  apiVersion: 'database.aws.conductor.io/v1alpha1',
  kind: 'RDSInstance',
  metadata: { name: 'rds-instance-445', namespace: 'conductor-system', uid: 'r-1', labels: { environment: 'dev' }, creationTimestamp: '2026-01-02T03:04:05Z' },
  spec: {
    engine: 'mysql',
    version: 5.9,
    masterUsername: 'masteruser',
    rebindPolicy: 'Delete',
    resourceClass: 'performance',
    providerRef: { name: 'aws-prod' },
    capabilities: { capacity: { storage: '50Gi' }, region: 'us-east-1', cost: 'free-tier' },
  },
  status: { phase: 'Available' },
};

const rdsPerformance: KObject = {
  apiVersion: 'core.conductor.io/v1alpha1',
  kind: 'ResourceClass',
  metadata: { name: 'rds-performance', namespace: 'conductor-system', annotations: { 'conductor.io/is-default-class': 'true' } },
  capabilities: { capacity: { storage: '50Gi' }, region: 'north-america', cost: 'free-tier' },
  supportedResources: ['MySqlInstance.v1alpha1.storage.conductor.io'],
  allowedNamespaces: { matchLabels: { tier: 'web' } },
  pool: { maxInstances: 3 },
  providerRef: { name: 'aws-prod' },
  template: { apiVersion: 'database.aws.conductor.io/v1alpha1', kind: 'RDSInstance', spec: { engine: 'mysql', version: '8.0' } },
};

describe('claimInfoFromObject', () => {
  test("reads the seed's MySQLInstance", () => {
    const c = claimInfoFromObject(wordpressDb, { namespaceLabels: { tier: 'web' } });
    assert.deepEqual({ ns: c.namespace, name: c.name, uid: c.uid, kind: c.kind }, { ns: 'wordpress', name: 'wordpress-db', uid: 'u-1', kind: MYSQL });
    assert.equal(c.requirements.capacity['storage']?.format(), '25Gi');
    assert.equal(c.requirements.region, 'north-america');
    assert.equal(c.requirements.cost, 'free-tier');
    assert.equal(c.resourceClass, 'performance');
    assert.equal(c.resourceSelector?.matches({ environment: 'dev' }), true);
    assert.equal(c.resourceSelector?.matches({ environment: 'prod' }), false);
    assert.deepEqual(c.portable, { version: '>= 5.6', masterUsername: 'masteruser' }, 'generic fields are not portable config');
    assert.deepEqual(c.namespaceLabels, { tier: 'web' });
  });

  test("a late-binding region replaces the claim's", () => {
    assert.equal(claimInfoFromObject(wordpressDb, { region: 'us-west-2' }).requirements.region, 'us-west-2');
  });

  test('an empty spec is a claim asking for nothing in particular', () => {
    const c = claimInfoFromObject({ apiVersion: 'storage.conductor.io/v1alpha1', kind: 'Bucket', metadata: { name: 'b', namespace: 'n' } });
    assert.deepEqual(c.requirements, { capacity: {} });
    assert.equal(c.resourceClass, undefined);
    assert.equal(c.resourceSelector, undefined);
  });

  const bad: { reason: string; spec: unknown; want: RegExp }[] = [
    {
      reason: 'a bad quantity names the field',
      spec: { requirements: { capacity: { storage: 'lots' } } },
      want: /cannot read MySQLInstance n\/x: spec\.requirements\.capacity\.storage: /,
    },
    {
      reason: 'a quantity of the wrong type',
      spec: { requirements: { capacity: { storage: true } } },
      want: /spec\.requirements\.capacity\.storage is true, expected a quantity/,
    },
    {
      reason: 'a bad selector names the field',
      spec: { resourceSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } },
      want: /spec\.resourceSelector: /,
    },
  ];
  for (const b of bad) {
    test(b.reason, () => {
      assert.throws(
        () =>
          claimInfoFromObject({ apiVersion: 'storage.conductor.io/v1alpha1', kind: 'MySQLInstance', metadata: { name: 'x', namespace: 'n' }, spec: b.spec }),
        b.want,
      );
    });
  }
});

describe('resourceCandidateFromObject', () => {
  test('a resource with a deletionTimestamp is read as being deleted, and the scheduler never offers it', () => {
    const going: KObject = {
      ...rds445,
      metadata: { ...rds445.metadata, deletionTimestamp: '2026-01-02T04:00:00Z' },
      spec: { ...(rds445['spec'] as object), sharing: { mode: 'Shared', maxClaims: 5 } },
    };
    const c = resourceCandidateFromObject(going, { implements: [MYSQL] });
    assert.equal(c.deleting, true);
    assert.equal(resourceCandidateFromObject(rds445, { implements: [MYSQL] }).deleting, undefined);
    const s = new Scheduler({ config: { regions: { 'north-america': ['us-east-1'] }, costTiers: ['free-tier'] } });
    s.upsert(c);
    const r = s.scheduleSync(claimInfoFromObject(wordpressDb, { namespaceLabels: { tier: 'web' } }));
    assert.equal(r.decision.type, 'none');
    assert.equal(r.explanation.message, '0/1 candidates: 1 being deleted');
  });

  test("reads the seed's RDSInstance", () => {
    const r = resourceCandidateFromObject(rds445, { implements: [MYSQL] });
    assert.equal(r.phase, 'Available');
    assert.equal(r.profile, 'performance');
    assert.equal(r.capabilities.capacity['storage']?.format(), '50Gi');
    assert.equal(r.provider, 'conductor-system/aws-prod');
    assert.deepEqual(r.sharing, { mode: 'Exclusive' });
    assert.equal(r.boundCount, 0);
    assert.deepEqual(r.portable, { engine: 'mysql', version: 5.9, masterUsername: 'masteruser' });
    assert.equal(r.createdAt, Date.parse('2026-01-02T03:04:05Z'));
  });

  test('a Shared resource counts its bindings and reads allocatable', () => {
    const r = resourceCandidateFromObject(
      { ...rds445, spec: { sharing: { mode: 'Shared', maxClaims: 20 } }, status: { phase: 'Bound', bindings: [{}, {}], allocatable: { storage: '5Gi' } } },
      { implements: [MYSQL] },
    );
    assert.deepEqual(r.sharing, { mode: 'Shared', maxClaims: 20 });
    assert.equal(r.boundCount, 2);
    assert.equal(r.allocatable?.['storage']?.format(), '5Gi');
  });

  test('a claimRef is read with its kind', () => {
    const r = resourceCandidateFromObject(
      {
        ...rds445,
        spec: { claimRef: { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'MySQLInstance', namespace: 'wordpress', name: 'wordpress-db', uid: 'u-1' } },
        status: { phase: 'Bound' },
      },
      { implements: [MYSQL] },
    );
    assert.deepEqual(r.claimRef, { namespace: 'wordpress', name: 'wordpress-db', uid: 'u-1', kind: MYSQL });
    assert.equal(r.boundCount, 1);
  });

  test('a missing or unknown phase is Pending', () => {
    assert.equal(resourceCandidateFromObject({ ...rds445, status: {} }, { implements: [] }).phase, 'Pending');
    assert.equal(resourceCandidateFromObject({ ...rds445, status: { phase: 'Exploded' } }, { implements: [] }).phase, 'Pending');
  });

  test('an unknown sharing mode is refused', () => {
    assert.throws(
      () => resourceCandidateFromObject({ ...rds445, spec: { sharing: { mode: 'Sometimes' } } }, { implements: [] }),
      /spec\.sharing\.mode is "Sometimes", expected Exclusive or Shared/,
    );
  });
});

describe('classCandidateFromObject', () => {
  test("reads the seed's ResourceClass with its fields at the top level", () => {
    const c = classCandidateFromObject(rdsPerformance, { instanceCount: 1 });
    assert.equal(c.profile, 'rds-performance', 'the profile defaults to the name');
    assert.equal(c.isDefault, true);
    assert.deepEqual(c.supportedResources, [{ kind: 'MySqlInstance', group: 'storage.conductor.io' }]);
    assert.deepEqual(c.templateKind, { group: 'database.aws.conductor.io', kind: 'RDSInstance' });
    assert.equal(c.maxInstances, 3);
    assert.equal(c.instanceCount, 1);
    assert.equal(c.allowedNamespaces?.matches({ tier: 'web' }), true);
    assert.deepEqual(c.portable, { engine: 'mysql', version: '8.0' });
  });

  test('a class without template kind is refused', () => {
    assert.throws(() => classCandidateFromObject({ ...rdsPerformance, template: {} }), /template\.kind is missing/);
  });

  test("the seed's objects schedule together: the static RDS instance wins over the class", () => {
    const s = new Scheduler({ config: { regions: { 'north-america': ['us-east-1'] }, costTiers: ['free-tier', 'standard'] } });
    s.upsert(resourceCandidateFromObject(rds445, { implements: [MYSQL] }));
    s.upsert(classCandidateFromObject(rdsPerformance));
    const c = claimInfoFromObject(
      { ...wordpressDb, spec: { ...(wordpressDb['spec'] as object), resourceClass: 'performance' } },
      { namespaceLabels: { tier: 'web' } },
    );
    const r = s.scheduleSync(c);
    assert.equal(r.decision.type === 'resource' && r.decision.candidate.name, 'rds-instance-445');
  });
});

describe('schedulerConfigFromProfileSpec', () => {
  test('reads a SchedulerProfile spec', () => {
    const cfg = schedulerConfigFromProfileSpec(
      {
        plugins: {
          filters: ['KindCompatible', 'Capacity'],
          scores: [
            { name: 'StaticFirst', weight: 50 },
            { name: 'Spread', weight: 5 },
          ],
        },
        regionHierarchy: { 'north-america': ['us-east-1'] },
        costTiers: ['free-tier', 'premium'],
        performanceTiers: ['standard'],
        extenders: [
          { name: 'gpu', filterURL: 'http://127.0.0.1:9/f', scoreURL: 'http://127.0.0.1:9/s', weight: 2, timeoutSeconds: 3, ignorable: true },
          { filterURL: 'http://nameless' },
        ],
      },
      'default',
    );
    assert.deepEqual(cfg, {
      regions: { 'north-america': ['us-east-1'] },
      costTiers: ['free-tier', 'premium'],
      performanceTiers: ['standard'],
      profile: {
        name: 'default',
        filters: ['KindCompatible', 'Capacity'],
        scoreWeights: { StaticFirst: 50, Spread: 5 },
        extenders: [{ name: 'gpu', filterUrl: 'http://127.0.0.1:9/f', scoreUrl: 'http://127.0.0.1:9/s', weight: 2, timeoutMs: 3000, ignorable: true }],
      },
    });
  });

  test('an empty spec keeps every default', () => {
    const s = new Scheduler({ config: schedulerConfigFromProfileSpec({}) });
    assert.equal(s.config.filters.length, 12);
    assert.equal(s.config.scoreWeights['StaticFirst'], 100);
  });
});

describe('implementsFromAnnotation', () => {
  const kinds: Record<string, string> = {
    'mysqlinstances.storage.conductor.io': 'MySQLInstance',
    'postgresqlinstances.storage.conductor.io': 'PostgreSQLInstance',
  };
  const kindOf = (resource: string, group: string) => kinds[`${resource}.${group}`];
  test('plural names become kinds, unknown ones are skipped', () => {
    assert.deepEqual(implementsFromAnnotation(' mysqlinstances.storage.conductor.io, postgresqlinstances.storage.conductor.io,widgets.x.io,', kindOf), [
      { group: 'storage.conductor.io', kind: 'MySQLInstance' },
      { group: 'storage.conductor.io', kind: 'PostgreSQLInstance' },
    ]);
    assert.deepEqual(implementsFromAnnotation(undefined, kindOf), []);
  });
});

describe('objects of one kind share what the scheduler compares per candidate', () => {
  const copy = (o: KObject, name: string, timestamp: string): KObject => ({ ...o, metadata: { ...o.metadata, name, creationTimestamp: timestamp } });
  test('two resources of one kind and provider share one frozen GroupKind and one provider string', () => {
    const a = resourceCandidateFromObject(copy(rds445, 'a', '2026-01-02T03:04:05Z'), { implements: [MYSQL] });
    const b = resourceCandidateFromObject(JSON.parse(JSON.stringify(copy(rds445, 'b', '2026-01-02T03:04:05Z'))) as KObject, { implements: [MYSQL] });
    assert.equal(a.kind, b.kind);
    assert.deepEqual(a.kind, { group: 'database.aws.conductor.io', kind: 'RDSInstance' });
    assert.ok(Object.isFrozen(a.kind), 'a shared kind cannot be changed by one holder');
    assert.equal(a.provider, 'conductor-system/aws-prod');
    assert.equal(a.provider, b.provider);
  });
  test('creation times are read for each object, also when one repeats the previous', () => {
    const times = ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05Z', '2026-03-04T05:06:07Z', 'not a time', '2026-01-02T03:04:05Z'];
    const got = times.map((t, i) => resourceCandidateFromObject(copy(rds445, `r${i}`, t), { implements: [MYSQL] }).createdAt);
    assert.deepEqual(got, [Date.parse(times[0]), Date.parse(times[0]), Date.parse(times[2]), 0, Date.parse(times[0])]);
  });
  test('claims and class templates share kinds too', () => {
    const c1 = claimInfoFromObject(wordpressDb);
    const c2 = claimInfoFromObject({ ...wordpressDb, metadata: { ...wordpressDb.metadata, name: 'other' } });
    assert.equal(c1.kind, c2.kind);
    const k1 = classCandidateFromObject(rdsPerformance);
    const r = resourceCandidateFromObject(rds445, { implements: [MYSQL] });
    assert.equal(k1.templateKind, r.kind, 'the template creates the same kind');
  });
});

describe('requirements.maxMonthlyPrice', () => {
  const bucket = (maxMonthlyPrice: unknown) => ({
    apiVersion: 'storage.conductor.io/v1alpha1',
    kind: 'Bucket',
    metadata: { name: 'b', namespace: 'shop' },
    spec: { requirements: { maxMonthlyPrice } },
  });
  const cases: { reason: string; value: unknown; want: { amount: number; currency: string } | undefined }[] = [
    { reason: 'an amount, USD', value: '50', want: { amount: 50, currency: 'USD' } },
    { reason: 'cents', value: '12.50', want: { amount: 12.5, currency: 'USD' } },
    { reason: 'a currency', value: '40 EUR', want: { amount: 40, currency: 'EUR' } },
    { reason: 'a YAML number', value: 7, want: { amount: 7, currency: 'USD' } },
    { reason: 'words', value: 'cheap', want: undefined },
    { reason: 'three decimals', value: '0.125', want: undefined },
    { reason: 'negative', value: '-1', want: undefined },
    { reason: 'a lower-case currency', value: '5 usd', want: undefined },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(parseMoney(c.value), c.want);
      if (c.want === undefined) assert.throws(() => claimInfoFromObject(bucket(c.value)), /spec\.requirements\.maxMonthlyPrice is .*expected an amount/);
      else assert.deepEqual(claimInfoFromObject(bucket(c.value)).requirements.maxMonthlyPrice, c.want);
    });
  }
});
