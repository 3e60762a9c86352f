import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KObject } from '../../machinery/object.js';
import { parseQuantity } from '../../machinery/quantity/index.js';
import {
  chargeOf,
  exceededKeys,
  exceededMessage,
  MONTHLY_COST_ANNOTATION,
  parseQuotaKey,
  parseResourceList,
  PriceBook,
  quotaStatusFor,
  RESOURCE_CLASS_LABEL,
  toQuantityMap,
  usageOf,
  type ResourceList,
} from './usage.js';
import { boundResourceIndex } from '../common/binding-record.js';

const NS = 'team';

function claim(name: string, spec: Record<string, unknown> = {}, status?: Record<string, unknown>, kind = 'MySQLInstance'): KObject {
  return { apiVersion: 'storage.conductor.io/v1alpha1', kind, metadata: { name, namespace: NS, uid: `uid-${name}` }, spec, ...(status ? { status } : {}) };
}

function resourceClass(name: string, opts: { price?: string; profile?: string; isDefault?: boolean; supports?: string[]; namespace?: string } = {}): KObject {
  const annotations: Record<string, string> = {};
  if (opts.price !== undefined) annotations[MONTHLY_COST_ANNOTATION] = opts.price;
  if (opts.isDefault) annotations['conductor.io/is-default-class'] = 'true';
  return {
    apiVersion: 'core.conductor.io/v1alpha1',
    kind: 'ResourceClass',
    metadata: { name, namespace: opts.namespace ?? 'conductor-system', annotations },
    ...(opts.profile ? { resourceClass: opts.profile } : {}),
    supportedResources: opts.supports ?? ['MySQLInstance.v1alpha1.storage.conductor.io'],
    template: { apiVersion: 'x.conductor.io/v1alpha1', kind: 'X' },
  };
}

function list(entries: Record<string, string>): ResourceList {
  return new Map(Object.entries(entries).map(([k, v]) => [k, parseQuantity(v)]));
}

function asRecord(l: ResourceList): Record<string, string> {
  return toQuantityMap(l);
}

describe('parseQuotaKey', () => {
  const cases: Array<{ reason: string; key: string; want: ReturnType<typeof parseQuotaKey> }> = [
    { reason: 'claims counts claims of any kind', key: 'claims', want: { type: 'claims' } },
    { reason: 'cost.monthly sums prices', key: 'cost.monthly', want: { type: 'monthlyCost' } },
    { reason: '<profile>.claims counts one profile', key: 'performance.claims', want: { type: 'profileClaims', profile: 'performance' } },
    { reason: 'a profile may contain dots', key: 'gold.eu.claims', want: { type: 'profileClaims', profile: 'gold.eu' } },
    { reason: 'requests.<name> sums a capacity', key: 'requests.storage', want: { type: 'requests', capacity: 'storage' } },
    { reason: 'any capacity name works', key: 'requests.memory', want: { type: 'requests', capacity: 'memory' } },
    { reason: '.claims wins over requests. (a profile named requests)', key: 'requests.claims', want: { type: 'profileClaims', profile: 'requests' } },
    { reason: 'a bare suffix is not a profile key', key: '.claims', want: undefined },
    { reason: 'requests. without a name is not understood', key: 'requests.', want: undefined },
    { reason: 'unknown keys are not understood', key: 'pods', want: undefined },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(parseQuotaKey(c.key), c.want));
  }
});

describe('usageOf and chargeOf', () => {
  const claims = [
    claim('a', { requirements: { capacity: { storage: '25Gi' } }, resourceClass: 'performance' }),
    claim('b', { requirements: { capacity: { storage: '1Ti', memory: '512Mi' } } }),
    claim('c', {}),
    claim('d', { resourceClass: 'performance', requirements: { capacity: { storage: 10 } } }),
  ];
  const cases: Array<{ reason: string; keys: string[]; claims: KObject[]; want: Record<string, string> }> = [
    {
      reason: 'no claims use nothing, every understood key is 0',
      keys: ['claims', 'requests.storage', 'gold.claims'],
      claims: [],
      want: { claims: '0', 'gold.claims': '0', 'requests.storage': '0' },
    },
    { reason: 'claims counts every claim', keys: ['claims'], claims, want: { claims: '4' } },
    {
      reason: 'requests.storage sums capacities exactly, missing ones count 0',
      keys: ['requests.storage'],
      claims: claims.slice(0, 3),
      want: { 'requests.storage': '1049Gi' },
    },
    { reason: 'mixed suffixes add exactly (10 bytes)', keys: ['requests.storage'], claims: [claims[3]], want: { 'requests.storage': '10' } },
    {
      reason: 'profile keys count claims naming that profile only',
      keys: ['performance.claims', 'gold.claims'],
      claims,
      want: { 'performance.claims': '2', 'gold.claims': '0' },
    },
    { reason: 'other capacities work as requests.<name>', keys: ['requests.memory'], claims, want: { 'requests.memory': '512Mi' } },
    { reason: 'keys that are not understood are left out', keys: ['pods', 'claims'], claims, want: { claims: '4' } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = usageOf(
        c.keys,
        c.claims.map((x) => chargeOf(x)),
      );
      assert.deepEqual(asRecord(got), c.want);
    });
  }

  test('a capacity that is not a quantity counts 0 and is reported', () => {
    const reports: string[] = [];
    const charge = chargeOf(claim('bad', { requirements: { capacity: { storage: 'lots' } } }), undefined, (m) => reports.push(m));
    assert.equal(charge.capacity.size, 0);
    assert.equal(reports.length, 1);
    assert.match(reports[0], /spec\.requirements\.capacity\.storage is "lots", expected a quantity/);
  });

  test('property: usage of a concatenation is the sum of the usages', () => {
    const amount = fc.integer({ min: 0, max: 1_000_000 }).map((n) => `${n}Mi`);
    const arbClaim = fc
      .record({ storage: fc.option(amount, { nil: undefined }), profile: fc.option(fc.constantFrom('gold', 'silver'), { nil: undefined }) })
      .map((r) =>
        claim('c', { ...(r.storage ? { requirements: { capacity: { storage: r.storage } } } : {}), ...(r.profile ? { resourceClass: r.profile } : {}) }),
      );
    const keys = ['claims', 'requests.storage', 'gold.claims', 'silver.claims'];
    fc.assert(
      fc.property(fc.array(arbClaim, { maxLength: 20 }), fc.array(arbClaim, { maxLength: 20 }), (xs, ys) => {
        const a = usageOf(
          keys,
          xs.map((x) => chargeOf(x)),
        );
        const b = usageOf(
          keys,
          ys.map((y) => chargeOf(y)),
        );
        const ab = usageOf(
          keys,
          [...xs, ...ys].map((x) => chargeOf(x)),
        );
        for (const k of keys) assert.ok(ab.get(k)!.equals(a.get(k)!.add(b.get(k)!)), k);
        assert.equal(ab.get('claims')!.value(), BigInt(xs.length + ys.length));
      }),
    );
  });
});

describe('PriceBook.costOf', () => {
  const classes = [
    resourceClass('rds-perf', { price: '40', profile: 'performance' }),
    resourceClass('gcp-perf', { price: '55', profile: 'performance' }),
    resourceClass('cheap', { price: '12.5', isDefault: true }),
    resourceClass('dear-default', { price: '99', isDefault: true, supports: ['Bucket.v1alpha1.storage.conductor.io'] }),
    resourceClass('unpriced', { profile: 'free' }),
    resourceClass('broken', { price: 'a lot', profile: 'broken' }),
  ];
  const reports: string[] = [];
  const book = PriceBook.fromClasses(classes, (m) => reports.push(m));
  /** An Exclusive resource whose spec.claimRef names `uid` (the claim `a` unless told), made by `cls` when given. */
  const resource = (cls?: string, uid = 'uid-a'): KObject => ({
    apiVersion: 'database.memory.conductor.io/v1alpha1',
    kind: 'MemoryDatabase',
    metadata: { name: 'r', namespace: 'conductor-system', ...(cls ? { labels: { [RESOURCE_CLASS_LABEL]: cls } } : {}) },
    spec: { claimRef: { namespace: NS, name: 'a', uid } },
  });
  const cases: Array<{ reason: string; claim: KObject; resources?: KObject[]; want: string }> = [
    {
      reason: 'a claim bound to a resource a class made costs that class',
      claim: claim('a', { resourceClass: 'performance' }),
      resources: [resource('conductor-system.rds-perf')],
      want: '40',
    },
    {
      reason: 'a Shared resource made by a class binds through status.bindings',
      claim: claim('a', { resourceClass: 'performance' }),
      resources: [
        {
          ...resource('conductor-system.rds-perf', 'x'),
          spec: { sharing: { mode: 'Shared' } },
          status: { bindings: [{ claimRef: { namespace: NS, name: 'a', uid: 'uid-a' } }] },
        },
      ],
      want: '40',
    },
    { reason: "a claim whose resource's class is gone costs nothing", claim: claim('a', {}), resources: [resource('conductor-system.deleted')], want: '0' },
    { reason: 'a claim bound to a static resource costs nothing', claim: claim('a', { resourceClass: 'performance' }), resources: [resource()], want: '0' },
    // The claim's status is its owner's to write: none of it lowers the price.
    {
      reason: 'a forged status.classRef naming a free class is not believed',
      claim: claim('a', { resourceClass: 'performance' }, { classRef: { namespace: 'conductor-system', name: 'unpriced' } }),
      want: '55',
    },
    {
      reason: 'a forged status.resourceRef (as if bound to a static resource) is not believed',
      claim: claim('a', { resourceClass: 'performance' }, { resourceRef: { name: 'static-1' } }),
      want: '55',
    },
    {
      reason: 'a forged status.classRef does not override the class of the resource binding the claim',
      claim: claim('a', { resourceClass: 'performance' }, { classRef: { namespace: 'conductor-system', name: 'unpriced' } }),
      resources: [resource('conductor-system.gcp-perf')],
      want: '55',
    },
    {
      reason: 'a resource whose claimRef names another uid does not bind the claim',
      claim: claim('a', { resourceClass: 'performance' }),
      resources: [resource(undefined, 'uid-other')],
      want: '55',
    },
    { reason: 'a claim naming a resource never provisions', claim: claim('a', { resourceName: 'static-1', resourceClass: 'performance' }), want: '0' },
    { reason: 'a pending claim costs the dearest class of its profile', claim: claim('a', { resourceClass: 'performance' }), want: '55' },
    { reason: 'a pending claim without a profile costs the default class of its kind', claim: claim('a', {}), want: '12500m' },
    { reason: 'default classes of other kinds do not apply', claim: claim('a', {}, undefined, 'PostgreSQLInstance'), want: '0' },
    { reason: 'a class without a price costs nothing', claim: claim('a', { resourceClass: 'free' }), want: '0' },
    { reason: 'a malformed price costs nothing', claim: claim('a', { resourceClass: 'broken' }), want: '0' },
    { reason: 'a profile no class serves costs nothing', claim: claim('a', { resourceClass: 'nowhere' }), want: '0' },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.equal(book.costOf(c.claim, boundResourceIndex(c.resources ?? [])).format(), c.want));
  }
  test('a malformed price is reported', () => {
    assert.equal(reports.length, 1);
    assert.match(reports[0], /ResourceClass conductor-system\/broken: annotation conductor\.io\/monthly-cost is "a lot"/);
  });
});

describe('exceededKeys and the message', () => {
  const cases: Array<{ reason: string; hard: Record<string, string>; used: Record<string, string>; requested: Record<string, string>; want: string[] }> = [
    { reason: 'reaching the limit exactly is allowed', hard: { claims: '2' }, used: { claims: '1' }, requested: { claims: '1' }, want: [] },
    { reason: 'going over the limit is refused', hard: { claims: '2' }, used: { claims: '2' }, requested: { claims: '1' }, want: ['claims'] },
    {
      reason: 'every exceeded key is named, sorted',
      hard: { claims: '10', 'requests.storage': '500Gi' },
      used: { claims: '10', 'requests.storage': '480Gi' },
      requested: { claims: '1', 'requests.storage': '50Gi' },
      want: ['claims', 'requests.storage'],
    },
    {
      reason: 'a key not asked for is not checked, even when over',
      hard: { claims: '1', 'requests.storage': '1Gi' },
      used: { claims: '5', 'requests.storage': '0' },
      requested: { claims: '0', 'requests.storage': '1Gi' },
      want: [],
    },
    {
      reason: 'a decrease is never refused',
      hard: { 'requests.storage': '1Gi' },
      used: { 'requests.storage': '5Gi' },
      requested: { 'requests.storage': '-1Gi' },
      want: [],
    },
    { reason: 'keys without a limit are never exceeded', hard: { claims: '5' }, used: {}, requested: { 'requests.storage': '1Ti', claims: '1' }, want: [] },
    {
      reason: 'quantities compare by amount, not text',
      hard: { 'requests.storage': '1Gi' },
      used: { 'requests.storage': '1000Mi' },
      requested: { 'requests.storage': '25Mi' },
      want: ['requests.storage'],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(exceededKeys(list(c.hard), list(c.used), list(c.requested)), c.want));
  }

  test('the message lists requested, used and limited for the exceeded keys, Kubernetes-style', () => {
    const hard = list({ claims: '10', 'requests.storage': '500Gi', 'gold.claims': '3' });
    const used = list({ claims: '10', 'requests.storage': '480Gi', 'gold.claims': '0' });
    const requested = list({ claims: '1', 'requests.storage': '50Gi' });
    const keys = exceededKeys(hard, used, requested);
    assert.equal(
      exceededMessage('team-quota', keys, requested, used, hard),
      'exceeded quota: team-quota, requested: claims=1,requests.storage=50Gi, used: claims=10,requests.storage=480Gi, limited: claims=10,requests.storage=500Gi',
    );
  });
});

describe('parseResourceList', () => {
  test('values that are not quantities are skipped and reported; the rest is kept', () => {
    const reports: string[] = [];
    const got = parseResourceList({ claims: 3, 'requests.storage': '1e5000', 'cost.monthly': '300' }, 'ClaimQuota team/q: spec.hard', (m) => reports.push(m));
    assert.deepEqual(asRecord(got), { claims: '3', 'cost.monthly': '300' });
    assert.equal(reports.length, 1);
    assert.match(reports[0], /^ClaimQuota team\/q: spec\.hard\.requests\.storage is "1e5000", expected a quantity/);
  });
  test('a map that is not an object is reported and read as empty', () => {
    const reports: string[] = [];
    assert.equal(parseResourceList('nope', 'x', (m) => reports.push(m)).size, 0);
    assert.equal(reports.length, 1);
  });
});

describe('quotaStatusFor', () => {
  const quota: KObject = {
    apiVersion: 'core.conductor.io/v1alpha1',
    kind: 'ClaimQuota',
    metadata: { name: 'q', namespace: NS },
    spec: { hard: { claims: 10, 'requests.storage': '500Gi', 'performance.claims': 2, 'cost.monthly': '300', pods: 4 } },
  };
  test('mirrors hard and reports used for every understood key, classes read only for cost', () => {
    let classReads = 0;
    const claims = [claim('a', { resourceClass: 'performance', requirements: { capacity: { storage: '50Gi' } } }), claim('b', {})];
    const got = quotaStatusFor(quota, claims, () => {
      classReads++;
      return [resourceClass('p', { price: '40', profile: 'performance' }), resourceClass('d', { price: '10', isDefault: true })];
    });
    assert.equal(classReads, 1);
    assert.deepEqual(got, {
      hard: { claims: 10, 'requests.storage': '500Gi', 'performance.claims': 2, 'cost.monthly': '300', pods: 4 },
      used: { claims: '2', 'cost.monthly': '50', 'performance.claims': '1', 'requests.storage': '50Gi' },
    });
  });
  test('classes are not read when no key needs prices', () => {
    const noCost: KObject = { ...quota, spec: { hard: { claims: 1 } } };
    const got = quotaStatusFor(noCost, [], () => {
      throw new Error('classes read');
    });
    assert.deepEqual(got.used, { claims: '0' });
  });
});
