import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listNames, withHints } from './fit-hints.js';
import { Scheduler } from './scheduler.js';
import { POSTGRES, claim, resource, resourceClass } from './testing/index.js';
import type { Candidate, ClaimInfo, SchedulerConfig } from './types.js';

const CONFIG: SchedulerConfig = {
  regions: { 'north-america': ['us-east-1', 'us-west-2'], europe: ['eu-west-1'] },
};

/** The hints of the decision for `c` among `cs`, by the index and by a scan (which must agree). */
function hintsFor(cs: Candidate[], c: ClaimInfo): readonly string[] {
  const s = new Scheduler({ config: CONFIG });
  for (const x of cs) s.upsert(x);
  const indexed = s.scheduleSync(c);
  const scanned = s.scheduleSync(c, { scan: true });
  assert.deepEqual(indexed.explanation, scanned.explanation, 'the index and a scan explain the same way');
  return indexed.decision.type === 'none' ? (indexed.explanation.hints ?? []) : ['(it fits)'];
}

const pg = (name: string, o: { storage?: string; region?: string; profile?: string } = {}) =>
  resource({
    name,
    kind: { group: 'database.example', kind: 'PG' },
    implements: [POSTGRES],
    capacity: o.storage === undefined ? {} : { storage: o.storage },
    region: o.region,
    profile: o.profile,
  });

describe('fit hints: what a claim that fits nowhere could change', () => {
  const cases: { reason: string; candidates: Candidate[]; claim: ClaimInfo; want: string[] }[] = [
    {
      reason: 'too much storage names the largest offered',
      candidates: [pg('a', { storage: '500Gi' }), pg('b', { storage: '10Gi' })],
      claim: claim({ kind: POSTGRES, capacity: { storage: '100Ti' } }),
      want: ['storage: wants 100Ti; the largest offered is 500Gi'],
    },
    {
      reason: 'no candidate states the dimension',
      candidates: [pg('a')],
      claim: claim({ kind: POSTGRES, capacity: { storage: '1Gi' } }),
      want: ['storage: wants 1Gi; no resource or class states any storage'],
    },
    {
      reason: 'a region nobody serves lists the regions served',
      candidates: [pg('a', { storage: '10Gi', region: 'eu-west-1' }), pg('b', { storage: '10Gi', region: 'us-east-1' })],
      claim: claim({ kind: POSTGRES, region: 'antarctica', capacity: { storage: '1Gi' } }),
      want: ['region antarctica: no class or resource serves it; regions served: eu-west-1, us-east-1'],
    },
    {
      reason: 'when the region rejects every candidate, only the region is hinted (their storage was never compared)',
      candidates: [pg('a', { storage: '10Gi', region: 'eu-west-1' })],
      claim: claim({ kind: POSTGRES, region: 'north-america', capacity: { storage: '20Gi' } }),
      want: ['region north-america: no class or resource serves it; regions served: eu-west-1'],
    },
    {
      reason: 'a served region and enough storage elsewhere give no hint (the rejections say it all)',
      candidates: [pg('small-us', { storage: '10Gi', region: 'us-east-1' }), pg('big-eu', { storage: '50Gi', region: 'eu-west-1' })],
      claim: claim({ kind: POSTGRES, region: 'north-america', capacity: { storage: '25Gi' } }),
      want: [],
    },
    {
      reason: 'an unknown profile lists the profiles offered',
      candidates: [pg('a', { storage: '10Gi', profile: 'gold' }), resourceClass({ name: 'silver', supportedResources: [POSTGRES] })],
      claim: claim({ kind: POSTGRES, resourceClass: 'platinum', capacity: { storage: '1Gi' } }),
      want: ['profile "platinum": no class or resource offers it; set spec.resourceClass to one of: gold, silver'],
    },
    {
      reason: 'no profile and no default class says so',
      candidates: [resourceClass({ name: 'fast', supportedResources: [POSTGRES] })],
      claim: claim({ kind: POSTGRES, capacity: { storage: '1Gi' } }),
      want: ['profile: the claim names none and no class is the default; set spec.resourceClass to one of: fast'],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.deepEqual(hintsFor(c.candidates, c.claim), c.want));
  }

  test('the message ends with the hints; without hints it is unchanged', () => {
    assert.equal(withHints('0/1 candidates: 1 x', ['a', 'b']), '0/1 candidates: 1 x; to fit: a; b');
    assert.equal(withHints('0/1 candidates: 1 x', []), '0/1 candidates: 1 x');
  });

  test('long lists of names are cut and counted', () => {
    assert.equal(listNames(['h', 'g', 'f', 'e', 'd', 'c', 'b', 'a', 'a']), 'a, b, c, d, e, f (and 2 more)');
  });
});
