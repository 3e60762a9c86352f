import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { labelSelectorFromObject } from '../../machinery/selectors/index.js';
import type { FilterPluginClass } from '../plugin.js';
import { PortableMatcherRegistry } from '../portable-matchers.js';
import { CLOUDSQL, MYSQL, POSTGRES, RDS, claim, pluginContext, resource, resourceClass, type ContextSpec } from '../testing/index.js';
import type { Candidate, ClaimInfo } from '../types.js';
import {
  CapacityFilter,
  CostFilter,
  ExplicitNameFilter,
  KindCompatibleFilter,
  NamespacePolicyFilter,
  PerformanceFilter,
  PhaseFilter,
  PortableConfigFilter,
  ProfileMatchFilter,
  QuotaFilter,
  RegionFilter,
  SelectorFilter,
} from './index.js';

/** A Case is one filter decision: want is the rejection's summary, or undefined for a pass. */
interface Case {
  reason: string;
  claim: ClaimInfo;
  candidate: Candidate;
  want: string | undefined;
  ctx?: ContextSpec;
}

function run(plugin: FilterPluginClass, cases: Case[]): void {
  for (const c of cases) {
    test(c.reason, () => {
      const check = new plugin(pluginContext(c.ctx)).prepare(c.claim);
      const got = check?.(c.candidate)?.summary;
      assert.equal(got, c.want, `want ${c.want ?? 'pass'}, got ${got ?? 'pass'}`);
    });
  }
}

const REGIONS = { 'north-america': ['us-east-1', 'us-west-2'], world: ['north-america', 'europe'], europe: ['eu-west-1'] };
const COST = ['free-tier', 'standard', 'premium'];
const PERF = ['standard', 'performance', 'extreme'];

describe('KindCompatible', () => {
  run(KindCompatibleFilter, [
    { reason: 'a resource implementing the claim kind passes', claim: claim(), candidate: resource({ name: 'r' }), want: undefined },
    {
      reason: 'kind matching ignores case',
      claim: claim(),
      candidate: resource({ name: 'r', implements: [{ group: 'Storage.Conductor.io', kind: 'MySqlInstance' }] }),
      want: undefined,
    },
    {
      reason: 'a resource implementing another kind fails',
      claim: claim(),
      candidate: resource({ name: 'r', implements: [POSTGRES] }),
      want: 'not an implementation of MySQLInstance',
    },
    {
      reason: 'the same kind name in another group fails',
      claim: claim(),
      candidate: resource({ name: 'r', implements: [{ group: 'other.io', kind: 'MySQLInstance' }] }),
      want: 'not an implementation of MySQLInstance',
    },
    { reason: 'a class supporting the kind passes', claim: claim(), candidate: resourceClass({ name: 'c' }), want: undefined },
    {
      reason: 'a class supporting other kinds fails',
      claim: claim(),
      candidate: resourceClass({ name: 'c', supportedResources: [POSTGRES] }),
      want: 'not an implementation of MySQLInstance',
    },
  ]);
});

describe('ExplicitName', () => {
  run(ExplicitNameFilter, [
    { reason: 'without resourceName everything passes', claim: claim(), candidate: resource({ name: 'x' }), want: undefined },
    { reason: 'the named resource passes', claim: claim({ resourceName: 'x' }), candidate: resource({ name: 'x' }), want: undefined },
    { reason: 'another resource fails', claim: claim({ resourceName: 'x' }), candidate: resource({ name: 'y' }), want: 'not the named resource "x"' },
    {
      reason: 'a class never is the named resource',
      claim: claim({ resourceName: 'x' }),
      candidate: resourceClass({ name: 'x' }),
      want: 'not the named resource "x"',
    },
  ]);
});

describe('ProfileMatch', () => {
  run(ProfileMatchFilter, [
    { reason: 'same profile passes', claim: claim({ resourceClass: 'fast' }), candidate: resource({ name: 'r', profile: 'fast' }), want: undefined },
    {
      reason: 'other profile fails',
      claim: claim({ resourceClass: 'fast' }),
      candidate: resource({ name: 'r', profile: 'slow' }),
      want: 'not in profile "fast"',
    },
    {
      reason: 'a resource without profile fails a claim naming one',
      claim: claim({ resourceClass: 'fast' }),
      candidate: resource({ name: 'r' }),
      want: 'not in profile "fast"',
    },
    { reason: 'a claim naming none takes a resource with none', claim: claim(), candidate: resource({ name: 'r' }), want: undefined },
    {
      reason: 'a claim naming none refuses a profiled resource',
      claim: claim(),
      candidate: resource({ name: 'r', profile: 'fast' }),
      want: 'in a profile (the claim names none)',
    },
    {
      reason: 'a class of the profile passes',
      claim: claim({ resourceClass: 'fast' }),
      candidate: resourceClass({ name: 'aws-fast', profile: 'fast' }),
      want: undefined,
    },
    {
      reason: 'a class of another profile fails',
      claim: claim({ resourceClass: 'fast' }),
      candidate: resourceClass({ name: 'slow' }),
      want: 'not in profile "fast"',
    },
    {
      reason: 'a default class of another profile still fails a claim naming a profile',
      claim: claim({ resourceClass: 'fast' }),
      candidate: resourceClass({ name: 'slow', isDefault: true }),
      want: 'not in profile "fast"',
    },
    { reason: 'a claim naming none takes the default class', claim: claim(), candidate: resourceClass({ name: 'std', isDefault: true }), want: undefined },
    {
      reason: 'a claim naming none refuses a non-default class',
      claim: claim(),
      candidate: resourceClass({ name: 'std' }),
      want: 'not a default class (the claim names no profile)',
    },
  ]);
});

describe('Selector', () => {
  const dev = labelSelectorFromObject({ matchExpressions: [{ key: 'environment', operator: 'In', values: ['dev'] }] });
  run(SelectorFilter, [
    {
      reason: 'matching labels pass',
      claim: claim({ resourceSelector: dev }),
      candidate: resource({ name: 'r', labels: { environment: 'dev' } }),
      want: undefined,
    },
    {
      reason: 'other labels fail',
      claim: claim({ resourceSelector: dev }),
      candidate: resource({ name: 'r', labels: { environment: 'prod' } }),
      want: 'not selected by the resourceSelector',
    },
    { reason: 'no labels fail', claim: claim({ resourceSelector: dev }), candidate: resource({ name: 'r' }), want: 'not selected by the resourceSelector' },
    { reason: 'classes are not filtered by labels', claim: claim({ resourceSelector: dev }), candidate: resourceClass({ name: 'c' }), want: undefined },
    {
      reason: 'the selector is not applied when the claim names its resource',
      claim: claim({ resourceSelector: dev, resourceName: 'r' }),
      candidate: resource({ name: 'r', labels: { environment: 'prod' } }),
      want: undefined,
    },
    { reason: 'a claim without selector takes any labels', claim: claim(), candidate: resource({ name: 'r', labels: { a: 'b' } }), want: undefined },
  ]);
});

describe('Phase', () => {
  const mine = { namespace: 'app', name: 'db', uid: 'uid-app-db' };
  run(PhaseFilter, [
    { reason: 'Available passes', claim: claim(), candidate: resource({ name: 'r' }), want: undefined },
    { reason: 'Pending fails', claim: claim(), candidate: resource({ name: 'r', phase: 'Pending' }), want: 'not ready (phase Pending)' },
    { reason: 'Released fails', claim: claim(), candidate: resource({ name: 'r', phase: 'Released' }), want: 'released (waiting for an admin)' },
    { reason: 'Failed fails', claim: claim(), candidate: resource({ name: 'r', phase: 'Failed' }), want: 'failed' },
    {
      reason: 'Bound to another claim fails',
      claim: claim(),
      candidate: resource({ name: 'r', phase: 'Bound', boundCount: 1, claimRef: { namespace: 'o', name: 'x' } }),
      want: 'already bound',
    },
    {
      reason: 'Available but pre-bound to another claim fails',
      claim: claim(),
      candidate: resource({ name: 'r', claimRef: { namespace: 'o', name: 'x' } }),
      want: 'reserved for another claim',
    },
    { reason: 'pre-bound to this claim passes', claim: claim(), candidate: resource({ name: 'r', claimRef: mine }), want: undefined },
    {
      reason: 'bound to this claim passes (a binder resuming after a crash)',
      claim: claim(),
      candidate: resource({ name: 'r', phase: 'Bound', boundCount: 1, claimRef: mine }),
      want: undefined,
    },
    {
      reason: 'Pending and reserved for this claim passes',
      claim: claim(),
      candidate: resource({ name: 'r', phase: 'Pending', claimRef: mine }),
      want: undefined,
    },
    {
      reason: 'a claimRef with another uid is another claim of the same name',
      claim: claim(),
      candidate: resource({ name: 'r', claimRef: { ...mine, uid: 'old-uid' } }),
      want: 'reserved for another claim',
    },
    {
      reason: 'a claimRef of another kind is another claim',
      claim: claim(),
      candidate: resource({ name: 'r', claimRef: { namespace: 'app', name: 'db', kind: POSTGRES } }),
      want: 'reserved for another claim',
    },
    {
      reason: 'Failed and reserved for this claim still fails',
      claim: claim(),
      candidate: resource({ name: 'r', phase: 'Failed', claimRef: mine }),
      want: 'failed',
    },
    {
      reason: 'Shared with a free slot passes',
      claim: claim(),
      candidate: resource({ name: 'r', phase: 'Bound', sharing: { mode: 'Shared', maxClaims: 3 }, boundCount: 2 }),
      want: undefined,
    },
    {
      reason: 'Shared and full fails',
      claim: claim(),
      candidate: resource({ name: 'r', phase: 'Bound', sharing: { mode: 'Shared', maxClaims: 3 }, boundCount: 3 }),
      want: 'full (every shared slot taken)',
    },
    {
      reason: 'Shared without maxClaims is never full',
      claim: claim(),
      candidate: resource({ name: 'r', phase: 'Bound', sharing: { mode: 'Shared' }, boundCount: 500 }),
      want: undefined,
    },
    {
      reason: 'Shared but Pending fails',
      claim: claim(),
      candidate: resource({ name: 'r', phase: 'Pending', sharing: { mode: 'Shared', maxClaims: 3 } }),
      want: 'not ready (phase Pending)',
    },
    { reason: 'a class below its limit passes', claim: claim(), candidate: resourceClass({ name: 'c', maxInstances: 2, instanceCount: 1 }), want: undefined },
    {
      reason: 'a class at its limit fails',
      claim: claim(),
      candidate: resourceClass({ name: 'c', maxInstances: 2, instanceCount: 2 }),
      want: 'class at its instance limit',
    },
    { reason: 'maxInstances 0 is unlimited', claim: claim(), candidate: resourceClass({ name: 'c', maxInstances: 0, instanceCount: 99 }), want: undefined },
  ]);
});

describe('Capacity', () => {
  const want25 = 'insufficient storage (want 25Gi)';
  run(CapacityFilter, [
    {
      reason: 'more than asked passes',
      claim: claim({ capacity: { storage: '25Gi' } }),
      candidate: resource({ name: 'r', capacity: { storage: '50Gi' } }),
      want: undefined,
    },
    {
      reason: 'exactly what is asked passes',
      claim: claim({ capacity: { storage: '25Gi' } }),
      candidate: resource({ name: 'r', capacity: { storage: '25Gi' } }),
      want: undefined,
    },
    { reason: 'less fails', claim: claim({ capacity: { storage: '25Gi' } }), candidate: resource({ name: 'r', capacity: { storage: '10Gi' } }), want: want25 },
    {
      reason: 'quantities compare across suffixes: 27G is more than 25Gi',
      claim: claim({ capacity: { storage: '25Gi' } }),
      candidate: resource({ name: 'r', capacity: { storage: '27G' } }),
      want: undefined,
    },
    {
      reason: '26G is less than 25Gi (about 26.8G)',
      claim: claim({ capacity: { storage: '25Gi' } }),
      candidate: resource({ name: 'r', capacity: { storage: '26G' } }),
      want: want25,
    },
    { reason: 'a resource stating no storage fails', claim: claim({ capacity: { storage: '25Gi' } }), candidate: resource({ name: 'r' }), want: want25 },
    { reason: 'a claim asking nothing fits anything', claim: claim(), candidate: resource({ name: 'r' }), want: undefined },
    {
      reason: 'every dimension is checked, first failing by name reported',
      claim: claim({ capacity: { storage: '1Gi', connections: '100' } }),
      candidate: resource({ name: 'r', capacity: { storage: '10Gi', connections: '50' } }),
      want: 'insufficient connections (want 100)',
    },
    {
      reason: 'a Shared resource is judged by its allocatable',
      claim: claim({ capacity: { storage: '25Gi' } }),
      candidate: resource({ name: 'r', sharing: { mode: 'Shared' }, capacity: { storage: '100Gi' }, allocatable: { storage: '20Gi' } }),
      want: want25,
    },
    {
      reason: 'a Shared resource without allocatable falls back to capacity',
      claim: claim({ capacity: { storage: '25Gi' } }),
      candidate: resource({ name: 'r', sharing: { mode: 'Shared' }, capacity: { storage: '100Gi' } }),
      want: undefined,
    },
    {
      reason: 'a class stating no capacity has no limit',
      claim: claim({ capacity: { storage: '1Ti' } }),
      candidate: resourceClass({ name: 'c' }),
      want: undefined,
    },
    {
      reason: 'a class capacity caps what it creates',
      claim: claim({ capacity: { storage: '1Ti' } }),
      candidate: resourceClass({ name: 'c', capacity: { storage: '500Gi' } }),
      want: 'insufficient storage (want 1Ti)',
    },
    {
      reason: 'inherited property names are not capacities',
      claim: claim({ capacity: { constructor: '1' } }),
      candidate: resource({ name: 'r' }),
      want: 'insufficient constructor (want 1)',
    },
  ]);
});

describe('Region', () => {
  const ctx = { regions: REGIONS };
  run(RegionFilter, [
    { reason: 'same region passes', claim: claim({ region: 'us-east-1' }), candidate: resource({ name: 'r', region: 'us-east-1' }), want: undefined, ctx },
    {
      reason: 'regions compare case-insensitively',
      claim: claim({ region: 'US-East-1' }),
      candidate: resource({ name: 'r', region: 'us-east-1' }),
      want: undefined,
      ctx,
    },
    {
      reason: 'a child region is inside the asked parent',
      claim: claim({ region: 'north-america' }),
      candidate: resource({ name: 'r', region: 'us-east-1' }),
      want: undefined,
      ctx,
    },
    { reason: 'a grandchild is inside too', claim: claim({ region: 'world' }), candidate: resource({ name: 'r', region: 'eu-west-1' }), want: undefined, ctx },
    {
      reason: 'a parent region does not satisfy a claim asking a child',
      claim: claim({ region: 'us-east-1' }),
      candidate: resource({ name: 'r', region: 'north-america' }),
      want: 'region mismatch (want us-east-1)',
      ctx,
    },
    {
      reason: 'with overlapping matching a parent region does satisfy it',
      claim: claim({ region: 'us-east-1' }),
      candidate: resource({ name: 'r', region: 'north-america' }),
      want: undefined,
      ctx: { ...ctx, regionMatch: 'overlapping' },
    },
    {
      reason: 'a sibling fails',
      claim: claim({ region: 'us-east-1' }),
      candidate: resource({ name: 'r', region: 'us-west-2' }),
      want: 'region mismatch (want us-east-1)',
      ctx,
    },
    {
      reason: 'another continent fails',
      claim: claim({ region: 'north-america' }),
      candidate: resource({ name: 'r', region: 'eu-west-1' }),
      want: 'region mismatch (want north-america)',
      ctx,
    },
    {
      reason: 'a candidate stating no region fails a claim asking one',
      claim: claim({ region: 'us-east-1' }),
      candidate: resource({ name: 'r' }),
      want: 'region mismatch (want us-east-1)',
      ctx,
    },
    { reason: 'a claim asking no region takes anything', claim: claim(), candidate: resource({ name: 'r', region: 'mars' }), want: undefined, ctx },
    {
      reason: 'classes are placed by region too',
      claim: claim({ region: 'north-america' }),
      candidate: resourceClass({ name: 'c', region: 'us-west-2' }),
      want: undefined,
      ctx,
    },
  ]);
});

describe('Cost', () => {
  const ctx = { costTiers: COST };
  run(CostFilter, [
    { reason: 'the same tier passes', claim: claim({ cost: 'standard' }), candidate: resource({ name: 'r', cost: 'standard' }), want: undefined, ctx },
    { reason: 'a cheaper tier passes', claim: claim({ cost: 'standard' }), candidate: resource({ name: 'r', cost: 'free-tier' }), want: undefined, ctx },
    {
      reason: 'a dearer tier fails',
      claim: claim({ cost: 'standard' }),
      candidate: resource({ name: 'r', cost: 'premium' }),
      want: 'cost above standard',
      ctx,
    },
    { reason: 'no tier stated fails', claim: claim({ cost: 'standard' }), candidate: resource({ name: 'r' }), want: 'cost above standard', ctx },
    { reason: 'an unknown tier matches only itself', claim: claim({ cost: 'spot' }), candidate: resource({ name: 'r', cost: 'Spot' }), want: undefined, ctx },
    {
      reason: 'an unknown tier is not comparable to a known one',
      claim: claim({ cost: 'spot' }),
      candidate: resource({ name: 'r', cost: 'free-tier' }),
      want: 'cost above spot',
      ctx,
    },
    { reason: 'a claim asking no cost takes anything', claim: claim(), candidate: resource({ name: 'r', cost: 'premium' }), want: undefined, ctx },
    {
      reason: 'without tiers only equal names match',
      claim: claim({ cost: 'standard' }),
      candidate: resource({ name: 'r', cost: 'free-tier' }),
      want: 'cost above standard',
    },
  ]);
});

describe('Performance', () => {
  const ctx = { performanceTiers: PERF };
  run(PerformanceFilter, [
    {
      reason: 'the same tier passes',
      claim: claim({ performance: 'performance' }),
      candidate: resource({ name: 'r', performance: 'performance' }),
      want: undefined,
      ctx,
    },
    {
      reason: 'a faster tier passes',
      claim: claim({ performance: 'performance' }),
      candidate: resource({ name: 'r', performance: 'extreme' }),
      want: undefined,
      ctx,
    },
    {
      reason: 'a slower tier fails',
      claim: claim({ performance: 'performance' }),
      candidate: resource({ name: 'r', performance: 'standard' }),
      want: 'performance below performance',
      ctx,
    },
    {
      reason: 'no tier stated fails',
      claim: claim({ performance: 'standard' }),
      candidate: resourceClass({ name: 'c' }),
      want: 'performance below standard',
      ctx,
    },
    { reason: 'a claim asking none takes anything', claim: claim(), candidate: resource({ name: 'r' }), want: undefined, ctx },
  ]);
});

describe('PortableConfig', () => {
  const pinned = new PortableMatcherRegistry()
    .register(MYSQL, RDS, (_claim, c) => (c.portable['engine'] === 'mysql' ? { fits: true } : { fits: false, reason: 'engine is not mysql' }))
    .register(MYSQL, '*', () => ({ fits: false, reason: 'wildcard matcher' }));
  run(PortableConfigFilter, [
    {
      reason: 'a version inside the range passes',
      claim: claim({ portable: { version: '>= 5.6' } }),
      candidate: resource({ name: 'r', portable: { version: '5.7' } }),
      want: undefined,
    },
    {
      reason: 'a version below the range fails',
      claim: claim({ portable: { version: '>= 5.6' } }),
      candidate: resource({ name: 'r', portable: { version: '5.5' } }),
      want: 'version not in ">= 5.6"',
    },
    {
      reason: 'a YAML number is a version',
      claim: claim({ portable: { version: '>= 5.6' } }),
      candidate: resource({ name: 'r', portable: { version: 5.9 } }),
      want: undefined,
    },
    {
      reason: 'a loose claim version "5.7" means any 5.7.x',
      claim: claim({ portable: { version: '5.7' } }),
      candidate: resource({ name: 'r', portable: { version: '5.7.44' } }),
      want: undefined,
    },
    {
      reason: 'and not 5.8',
      claim: claim({ portable: { version: '5.7' } }),
      candidate: resource({ name: 'r', portable: { version: '5.8' } }),
      want: 'version not in "5.7"',
    },
    {
      reason: 'engine-style versions are coerced',
      claim: claim({ portable: { version: '>= 5.7' } }),
      candidate: resource({ name: 'r', kind: CLOUDSQL, portable: { databaseVersion: 'MYSQL_5_7' } }),
      want: undefined,
    },
    {
      reason: 'PostgreSQL "15" means any 15.x',
      claim: claim({ kind: POSTGRES, portable: { version: '15' } }),
      candidate: resource({ name: 'r', implements: [POSTGRES], portable: { version: '15.4' } }),
      want: undefined,
    },
    {
      reason: 'a resource stating no version fails a claim asking one',
      claim: claim({ portable: { version: '>= 5.6' } }),
      candidate: resource({ name: 'r' }),
      want: 'version not in ">= 5.6"',
    },
    {
      reason: 'a class stating no version passes (its provider picks)',
      claim: claim({ portable: { version: '>= 5.6' } }),
      candidate: resourceClass({ name: 'c' }),
      want: undefined,
    },
    {
      reason: 'a class template version is checked',
      claim: claim({ portable: { version: '>= 8' } }),
      candidate: resourceClass({ name: 'c', portable: { version: '5.7' } }),
      want: 'version not in ">= 8"',
    },
    {
      reason: 'an unreadable range fails with it',
      claim: claim({ portable: { version: 'newest please' } }),
      candidate: resource({ name: 'r', portable: { version: '8' } }),
      want: 'invalid version range "newest please"',
    },
    {
      reason: 'an Exclusive resource must have the asked masterUsername',
      claim: claim({ portable: { masterUsername: 'masteruser' } }),
      candidate: resource({ name: 'r', portable: { masterUsername: 'admin' } }),
      want: 'masterUsername is not "masteruser"',
    },
    {
      reason: 'a Shared resource gives each claim its own user',
      claim: claim({ portable: { masterUsername: 'masteruser' } }),
      candidate: resource({ name: 'r', sharing: { mode: 'Shared' }, portable: { masterUsername: 'admin' } }),
      want: undefined,
    },
    {
      reason: "a class takes the claim's username",
      claim: claim({ portable: { masterUsername: 'masteruser' } }),
      candidate: resourceClass({ name: 'c', portable: { masterUsername: 'admin' } }),
      want: undefined,
    },
    {
      reason: 'a kind without a matcher passes',
      claim: claim({ kind: { group: 'x.io', kind: 'Thing' } }),
      candidate: resource({ name: 'r', implements: [{ group: 'x.io', kind: 'Thing' }] }),
      want: undefined,
    },
    {
      reason: 'an exact pair matcher wins over the wildcard',
      claim: claim(),
      candidate: resource({ name: 'r', portable: { engine: 'postgres' } }),
      want: 'engine is not mysql',
      ctx: { portableMatchers: pinned },
    },
    {
      reason: 'the wildcard serves other concrete kinds',
      claim: claim(),
      candidate: resource({ name: 'r', kind: CLOUDSQL }),
      want: 'wildcard matcher',
      ctx: { portableMatchers: pinned },
    },
    {
      reason: 'a class is matched by its template kind',
      claim: claim(),
      candidate: resourceClass({ name: 'c', portable: { engine: 'mysql' } }),
      want: undefined,
      ctx: { portableMatchers: pinned },
    },
  ]);
});

describe('NamespacePolicy', () => {
  const teams = labelSelectorFromObject({ matchLabels: { team: 'a' } });
  const byName = labelSelectorFromObject({ matchLabels: { 'kubernetes.io/metadata.name': 'app' } });
  run(NamespacePolicyFilter, [
    { reason: 'a class without allowedNamespaces takes every namespace', claim: claim(), candidate: resourceClass({ name: 'c' }), want: undefined },
    {
      reason: 'matching namespace labels pass',
      claim: claim({ namespaceLabels: { team: 'a' } }),
      candidate: resourceClass({ name: 'c', allowedNamespaces: teams }),
      want: undefined,
    },
    {
      reason: 'other labels fail',
      claim: claim({ namespaceLabels: { team: 'b' } }),
      candidate: resourceClass({ name: 'c', allowedNamespaces: teams }),
      want: 'namespace "app" not allowed by the class',
    },
    { reason: 'the namespace name label is always there', claim: claim(), candidate: resourceClass({ name: 'c', allowedNamespaces: byName }), want: undefined },
    {
      reason: 'concrete resources are not subject to it',
      claim: claim({ namespaceLabels: { team: 'b' } }),
      candidate: resource({ name: 'r' }),
      want: undefined,
    },
    // A class outside the system namespace is its namespace's own unless allowedNamespaces says otherwise (issue 10, item 10).
    {
      reason: "a class in a tenant's namespace does not serve another namespace",
      claim: claim({ namespace: 'team-b' }),
      candidate: resourceClass({ name: 'c', namespace: 'team-a' }),
      want: 'class of another namespace',
    },
    {
      reason: "a class in a tenant's namespace serves its own namespace",
      claim: claim({ namespace: 'team-a' }),
      candidate: resourceClass({ name: 'c', namespace: 'team-a' }),
      want: undefined,
    },
    {
      reason: 'a class outside the system namespace serves what its allowedNamespaces allow',
      claim: claim({ namespace: 'app' }),
      candidate: resourceClass({ name: 'c', namespace: 'team-a', allowedNamespaces: byName }),
      want: undefined,
    },
    {
      reason: 'the system namespace is the configured one',
      claim: claim({ namespace: 'app' }),
      candidate: resourceClass({ name: 'c', namespace: 'admins' }),
      want: undefined,
      ctx: { systemNamespace: 'admins' },
    },
    {
      reason: 'conductor-system is then an ordinary namespace',
      claim: claim({ namespace: 'app' }),
      candidate: resourceClass({ name: 'c' }),
      want: 'class of another namespace',
      ctx: { systemNamespace: 'admins' },
    },
    // What a class made (a warm pool member, a recycled resource) is the class's to give.
    {
      reason: "a pool member of a tenant's class does not serve another namespace",
      claim: claim({ namespace: 'team-b' }),
      candidate: resource({ name: 'm', labels: { 'conductor.io/resource-class': 'team-a.c' } }),
      want: 'class of another namespace',
    },
    {
      reason: "a pool member of a tenant's class serves its namespace",
      claim: claim({ namespace: 'team-a' }),
      candidate: resource({ name: 'm', labels: { 'conductor.io/resource-class': 'team-a.c' } }),
      want: undefined,
    },
    {
      reason: "a pool member of a system class serves what the class's allowedNamespaces allow",
      claim: claim({ namespace: 'app' }),
      candidate: resource({ name: 'm', labels: { 'conductor.io/resource-class': 'conductor-system.c' } }),
      want: undefined,
      ctx: { classes: [resourceClass({ name: 'c', allowedNamespaces: byName })] },
    },
    {
      reason: "a pool member of a system class refuses what the class's allowedNamespaces refuse",
      claim: claim({ namespace: 'other' }),
      candidate: resource({ name: 'm', labels: { 'conductor.io/resource-class': 'conductor-system.c' } }),
      want: 'namespace "other" not allowed by the class',
      ctx: { classes: [resourceClass({ name: 'c', allowedNamespaces: byName })] },
    },
    {
      reason: 'a resource a class made for this claim passes (reserved for it)',
      claim: claim({ namespace: 'team-b' }),
      candidate: resource({
        name: 'm',
        labels: { 'conductor.io/resource-class': 'team-a.c' },
        claimRef: { namespace: 'team-b', name: 'db', uid: 'uid-app-db' },
      }),
      want: undefined,
    },
  ]);
});

describe('Quota', () => {
  const full = { quota: () => 'requests.storage 490Gi + 25Gi > 500Gi' };
  run(QuotaFilter, [
    { reason: 'without a quota check everything passes', claim: claim(), candidate: resourceClass({ name: 'c' }), want: undefined },
    {
      reason: "a class over quota fails with the callback's words",
      claim: claim(),
      candidate: resourceClass({ name: 'c' }),
      want: 'quota exceeded: requests.storage 490Gi + 25Gi > 500Gi',
      ctx: full,
    },
    { reason: 'existing resources are not checked (nothing is created)', claim: claim(), candidate: resource({ name: 'r' }), want: undefined, ctx: full },
    {
      reason: 'a callback answering undefined lets it pass',
      claim: claim(),
      candidate: resourceClass({ name: 'c' }),
      want: undefined,
      ctx: { quota: () => undefined },
    },
  ]);
});
