import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { providerTargetFromObject, type ProviderTarget } from './convert.js';
import { placedClassCandidates, TARGET_NOT_READY } from './placed-classes.js';
import { Scheduler } from './scheduler.js';
import { claim, resourceClass } from './testing/index.js';
import type { ClassCandidate } from './types.js';

const SYS = 'conductor-system';

function providerObject(name: string, o: { type?: string; region?: string; ready?: boolean; capabilities?: Record<string, unknown>; namespace?: string } = {}) {
  return {
    apiVersion: 'core.conductor.io/v1alpha1',
    kind: 'Provider',
    metadata: { name, namespace: o.namespace ?? SYS },
    spec: { type: o.type ?? 'kubernetes', ...(o.region ? { region: o.region } : {}), ...(o.capabilities ? { capabilities: o.capabilities } : {}) },
    status: { conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

const target = (name: string, o: Parameters<typeof providerObject>[1] = {}): ProviderTarget => providerTargetFromObject(providerObject(name, o));

interface Placed {
  target: string | undefined;
  provider: string | undefined;
  region: string | undefined;
  cost: string | undefined;
  storage: string | undefined;
  unavailable: string | undefined;
}

const view = (cs: ClassCandidate[]): Placed[] =>
  cs.map((c) => ({
    target: c.target,
    provider: c.provider,
    region: c.capabilities.region,
    cost: c.capabilities.cost,
    storage: c.capabilities.capacity['storage']?.toString(),
    unavailable: c.unavailable,
  }));

describe('placedClassCandidates: a class naming no Provider, on each Provider of its type', () => {
  const cls = resourceClass({ name: 'pg' });
  const cases: { reason: string; cls?: ClassCandidate; providers: ProviderTarget[]; want: Placed[] }[] = [
    {
      reason: 'no Provider of the type: one candidate that says so',
      providers: [target('s3', { type: 'local' })],
      want: [
        { target: undefined, provider: undefined, region: undefined, cost: undefined, storage: undefined, unavailable: `no kubernetes Provider in ${SYS}` },
      ],
    },
    {
      reason: 'one candidate per Provider, in name order, with its region; one not Ready is rejected as such',
      providers: [target('west', { region: 'eu-west-1' }), target('east', { region: 'us-east-1', ready: false }), target('other', { namespace: 'team-a' })],
      want: [
        { target: 'east', provider: `${SYS}/east`, region: 'us-east-1', cost: undefined, storage: undefined, unavailable: TARGET_NOT_READY },
        { target: 'west', provider: `${SYS}/west`, region: 'eu-west-1', cost: undefined, storage: undefined, unavailable: undefined },
      ],
    },
    {
      reason: "the Provider's capabilities, narrowed by the class's: the smaller capacity, the class's region and cost where it states them",
      cls: resourceClass({ name: 'pg', capacity: { storage: '100Gi' }, cost: 'standard' }),
      providers: [
        target('big', { region: 'us-east-1', capabilities: { capacity: { storage: '1Ti' }, cost: 'premium' } }),
        target('small', { region: 'us-east-1', capabilities: { capacity: { storage: '50Gi' }, region: 'us-east-2' } }),
      ],
      want: [
        { target: 'big', provider: `${SYS}/big`, region: 'us-east-1', cost: 'standard', storage: '100Gi', unavailable: undefined },
        { target: 'small', provider: `${SYS}/small`, region: 'us-east-2', cost: 'standard', storage: '50Gi', unavailable: undefined },
      ],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(view(placedClassCandidates(c.cls ?? cls, 'kubernetes', c.providers, SYS)), c.want));
  }

  test('a Provider with an unreadable capacity is refused with the field named', () => {
    assert.throws(() => target('bad', { capabilities: { capacity: { storage: 'lots' } } }), /spec\.capabilities\.capacity\.storage/);
  });
});

describe('scheduling a class placed across Providers', () => {
  const CONFIG = { regions: { europe: ['eu-west-1'], 'north-america': ['us-east-1'] } };
  const placed = (providers: ProviderTarget[]) => {
    const s = new Scheduler({ config: CONFIG });
    for (const c of placedClassCandidates(resourceClass({ name: 'pg', isDefault: true }), 'kubernetes', providers, SYS)) s.upsert(c);
    return s;
  };

  test("the claim's region chooses the cluster, and the message names it and its region", () => {
    const s = placed([target('east', { region: 'us-east-1' }), target('west', { region: 'eu-west-1' })]);
    const r = s.scheduleSync(claim({ region: 'europe' }));
    assert.equal(r.decision.type, 'class');
    assert.equal(r.decision.type === 'class' && r.decision.candidate.target, 'west');
    assert.match(r.explanation.message, /^1\/2 candidates fit; chose class conductor-system\/pg on Provider west \(eu-west-1\) \(creates RDSInstance\)/);
    assert.match(r.explanation.message, /rejected: 1 region mismatch/);
  });

  test('clusters that fit as well are named, and one not Ready is counted', () => {
    const s = placed([target('a', { region: 'us-east-1' }), target('b', { region: 'us-east-1' }), target('c', { region: 'us-east-1', ready: false })]);
    const r = s.scheduleSync(claim({}));
    assert.equal(r.decision.type, 'class');
    const chosen = r.decision.type === 'class' ? r.decision.candidate.target : undefined;
    const other = chosen === 'a' ? 'b' : 'a';
    assert.match(r.explanation.message, new RegExp(`other Providers that fit: ${other} \\(us-east-1\\)`));
    assert.match(r.explanation.message, /rejected: 1 Provider not Ready/);
  });

  test('a claim asking more than every cluster offers stays pending, with the largest offered', () => {
    const s = placed([target('a', { region: 'us-east-1', capabilities: { capacity: { storage: '500Gi' } } })]);
    const r = s.scheduleSync(claim({ capacity: { storage: '2Ti' } }));
    assert.equal(r.decision.type, 'none');
    assert.match(r.explanation.message, /insufficient storage/);
  });

  test('no Provider of the type: pending, saying so', () => {
    const s = placed([]);
    const r = s.scheduleSync(claim({}));
    assert.equal(r.decision.type, 'none');
    assert.match(r.explanation.message, /0\/1 candidates: 1 no kubernetes Provider in conductor-system/);
  });
});
