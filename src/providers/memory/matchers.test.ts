import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import semver from 'semver';
import type { JsonObject, KObject } from '../../machinery/object.js';
import type { MatchCandidate, MatchResult, ResourceTemplate } from '../spi.js';
import type { MemoryDatabase } from './kinds.js';
import { concreteVersion, configureMemoryDatabase, matchMemoryDatabase } from './matchers.js';
import { fixture } from '../testing.js';

function claim(spec: JsonObject): KObject {
  return { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', metadata: { namespace: 'shop', name: 'db' }, spec };
}
function resource(spec: JsonObject): MatchCandidate<MemoryDatabase> {
  return {
    type: 'resource',
    resource: fixture<MemoryDatabase>({
      apiVersion: 'database.memory.conductor.io/v1alpha1',
      kind: 'MemoryDatabase',
      metadata: { namespace: 'conductor-system', name: 'm' },
      spec,
    }),
  };
}
function cls(spec: JsonObject): MatchCandidate<MemoryDatabase> {
  return {
    type: 'class',
    resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { namespace: 'conductor-system', name: 'memory' } },
    template: { apiVersion: 'database.memory.conductor.io/v1alpha1', kind: 'MemoryDatabase', spec },
  };
}
const fits: MatchResult = { fits: true };

describe('matchMemoryDatabase', () => {
  const cases: { reason: string; claim: JsonObject; candidate: MatchCandidate<MemoryDatabase>; want: MatchResult | RegExp }[] = [
    { reason: 'a claim asking nothing fits any resource', claim: {}, candidate: resource({}), want: fits },
    { reason: 'a version inside the range fits', claim: { version: '>= 15' }, candidate: resource({ version: '16.4' }), want: fits },
    { reason: 'a loose major version fits its range', claim: { version: '8' }, candidate: resource({ version: '8.0.36' }), want: fits },
    {
      reason: 'a version outside the range does not fit',
      claim: { version: '>= 17' },
      candidate: resource({ version: '16.4' }),
      want: /version "16.4" does not satisfy ">= 17"/,
    },
    {
      reason: 'a resource stating no version does not fit a claim asking one',
      claim: { version: '15' },
      candidate: resource({}),
      want: /states no version, claim wants "15"/,
    },
    {
      reason: 'an unreadable range fits nothing and says so',
      claim: { version: 'newest please' },
      candidate: resource({ version: '16' }),
      want: /is not a valid version range/,
    },
    {
      reason: 'an Exclusive resource must report the user the claim insists on',
      claim: { masterUsername: 'bob' },
      candidate: resource({ masterUsername: 'alice' }),
      want: /user is "alice", claim wants "bob"/,
    },
    { reason: 'the default user is "app"', claim: { masterUsername: 'app' }, candidate: resource({}), want: fits },
    { reason: 'the default database is "app"', claim: { databaseName: 'orders' }, candidate: resource({}), want: /database is "app", claim wants "orders"/ },
    {
      reason: 'a Shared resource gives each claim its own names',
      claim: { masterUsername: 'bob', databaseName: 'orders' },
      candidate: resource({ sharing: { mode: 'Shared' } }),
      want: fits,
    },
    { reason: 'a class fits when it pins no version', claim: { version: '>= 15', masterUsername: 'bob' }, candidate: cls({}), want: fits },
    {
      reason: 'a class pinning a version outside the range does not fit',
      claim: { version: '>= 17' },
      candidate: cls({ version: '16' }),
      want: /class pins version "16" does not satisfy ">= 17"/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = matchMemoryDatabase(claim(c.claim), c.candidate);
      if (c.want instanceof RegExp) {
        assert.equal(got.fits, false);
        assert.match((got as { reason: string }).reason, c.want);
      } else assert.deepEqual(got, c.want);
    });
  }
});

describe('configureMemoryDatabase', () => {
  const template = (spec?: JsonObject): ResourceTemplate => ({
    apiVersion: 'database.memory.conductor.io/v1alpha1',
    kind: 'MemoryDatabase',
    ...(spec ? { spec } : {}),
  });
  const cases: { reason: string; claim: JsonObject; template: ResourceTemplate; want: JsonObject }[] = [
    { reason: 'an empty template and claim give an empty spec', claim: {}, template: template(), want: {} },
    { reason: 'a pinned version inside the range stays', claim: { version: '>= 15' }, template: template({ version: '16.4' }), want: { version: '16.4' } },
    {
      reason: 'a pinned version outside the range gives way to the lowest in range',
      claim: { version: '>= 17' },
      template: template({ version: '16.4' }),
      want: { version: '17.0' },
    },
    { reason: 'no pinned version: the lowest in range', claim: { version: '~8.0.36' }, template: template(), want: { version: '8.0.36' } },
    {
      reason: "the claim's names replace the template's",
      claim: { masterUsername: 'bob', databaseName: 'orders' },
      template: template({ masterUsername: 'x', port: 6000 }),
      want: { masterUsername: 'bob', databaseName: 'orders', port: 6000 },
    },
    {
      reason: "capacity requests replace the template's; region and tiers fill only what it leaves open",
      claim: { requirements: { capacity: { storage: '5Gi' }, region: 'europe', cost: 'free-tier' } },
      template: template({ capabilities: { capacity: { storage: '50Gi', memory: '1Gi' }, region: 'us-east-1' } }),
      want: { capabilities: { capacity: { storage: '5Gi', memory: '1Gi' }, region: 'us-east-1', cost: 'free-tier' } },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = structuredClone(c.template);
      assert.deepEqual(configureMemoryDatabase(claim(c.claim), c.template), c.want);
      assert.deepEqual(c.template, before, 'the template is not modified');
    });
  }
});

describe('concreteVersion', () => {
  test('the version picked for a range lies inside it', () => {
    const version = fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 50 }));
    const form = fc.constantFrom(
      (v: string) => v,
      (v: string) => `>= ${v}`,
      (v: string) => `^${v}`,
      (v: string) => `~${v}`,
      (v: string) => `${v} - 99`,
      (v: string) => v.split('.')[0],
    );
    fc.assert(
      fc.property(version, form, ([a, b, c], make) => {
        const range = make(`${a}.${b}.${c}`);
        const picked = concreteVersion(range);
        assert.ok(semver.satisfies(semver.coerce(picked)!, range, { loose: true }), `${picked} not in ${range}`);
      }),
    );
  });
});
