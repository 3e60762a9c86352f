import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { availabilityGroup, availabilitySummary, isClaimSpecific, reservedFor } from './availability.js';
import { CandidateIndex, lookupCandidates, type Lookup, type Narrowing } from './candidate-index.js';
import { candidateKey } from './keys.js';
import { factsOf, type KindView } from './kind-facts.js';
import { claimProfile, resourceProfile, resourceProfileMismatch } from './profiles.js';
import { RegionHierarchy, normalizeRegion, regionMismatch } from './region-hierarchy.js';
import { MYSQL, POSTGRES, claim, resource, resourceClass } from './testing/index.js';
import type { Candidate, ClaimInfo, ResourcePhase } from './types.js';

const REGIONS = new RegionHierarchy({ 'north-america': ['us-east-1', 'us-west-2'], europe: ['eu-west-1'] });

function narrowingFor(c: ClaimInfo): Narrowing {
  const asked = c.requirements.region;
  return {
    profile: 'ProfileMatch',
    availability: 'Phase',
    ...(asked === undefined ? {} : { region: { plugin: 'Region', accepted: REGIONS.accepted(asked, 'contained'), summary: regionMismatch(asked) } }),
  };
}

function names(l: Lookup): string[] {
  return lookupCandidates(l)
    .map((c) => `${c.type}:${c.name}`)
    .sort();
}

function excluded(l: Lookup): Record<string, number> {
  return Object.fromEntries(l.excluded.map((e) => [`${e.plugin}: ${e.summary}`, e.count]));
}

describe('CandidateIndex', () => {
  test("a lookup walks only the claim's kind, profile, availability and region, and counts the rest", () => {
    const ix = new CandidateIndex();
    ix.upsert(resource({ name: 'fit', profile: 'fast', region: 'us-east-1' }));
    ix.upsert(resource({ name: 'fit-too', profile: 'fast', region: 'north-america' }));
    ix.upsert(resource({ name: 'eu', profile: 'fast', region: 'eu-west-1' }));
    ix.upsert(resource({ name: 'none', profile: 'fast' }));
    ix.upsert(resource({ name: 'bound', profile: 'fast', phase: 'Bound', boundCount: 1, region: 'us-east-1' }));
    ix.upsert(resource({ name: 'pending', profile: 'fast', phase: 'Pending' }));
    ix.upsert(resource({ name: 'slow', profile: 'slow', region: 'us-east-1' }));
    ix.upsert(resource({ name: 'pg', implements: [POSTGRES], profile: 'fast' }));
    ix.upsert(resourceClass({ name: 'cls', profile: 'other' }));
    const c = claim({ resourceClass: 'fast', region: 'north-america' });
    const l = ix.lookup(c, narrowingFor(c));
    assert.equal(l.total, 8, '7 resources implement MySQLInstance, plus one class');
    assert.deepEqual(names(l), ['class:cls', 'resource:fit', 'resource:fit-too'], 'classes are always evaluated in full');
    assert.deepEqual(excluded(l), {
      'ProfileMatch: not in profile "fast"': 1,
      'Phase: already bound': 1,
      'Phase: not ready (phase Pending)': 1,
      'Region: region mismatch (want north-america)': 2,
    });
  });

  test('a resource reserved for the claim is let through availability narrowing', () => {
    const ix = new CandidateIndex();
    ix.upsert(resource({ name: 'mine', phase: 'Bound', boundCount: 1, claimRef: { namespace: 'app', name: 'db' } }));
    ix.upsert(resource({ name: 'theirs', phase: 'Bound', boundCount: 1, claimRef: { namespace: 'app', name: 'other' } }));
    const c = claim();
    const l = ix.lookup(c, narrowingFor(c));
    assert.deepEqual(names(l), ['resource:mine']);
    assert.deepEqual(excluded(l), { 'Phase: already bound': 1 });
  });

  test('removing everything leaves nothing behind', () => {
    const ix = new CandidateIndex();
    const cs = [
      resource({ name: 'a', provider: 'p', boundCount: 2, sharing: { mode: 'Shared' } }),
      resource({ name: 'b', claimRef: { namespace: 'app', name: 'db' } }),
      resourceClass({ name: 'c' }),
    ];
    for (const c of cs) ix.upsert(c);
    assert.equal(ix.providerUsage('p'), 2);
    for (const c of cs) assert.equal(ix.remove(candidateKey(c)), true);
    assert.equal(ix.size, 0);
    assert.equal(ix.providerUsage('p'), 0);
    const c = claim();
    assert.deepEqual(ix.lookup(c, narrowingFor(c)), { total: 0, candidates: [], runs: [], excluded: [] });
    assert.deepEqual(ix.scan(claim({ resourceName: 'b' }), 'named'), { total: 0, candidates: [], runs: [], excluded: [] });
  });

  test('an upsert moves a resource between buckets', () => {
    const ix = new CandidateIndex();
    ix.upsert(resource({ name: 'r', region: 'us-east-1' }));
    ix.upsert(resource({ name: 'r', region: 'eu-west-1', profile: 'p' }));
    const c = claim({ resourceClass: 'p', region: 'europe' });
    assert.deepEqual(names(ix.lookup(c, narrowingFor(c))), ['resource:r']);
    assert.equal(ix.size, 1);
  });

  test("lookups equal a brute-force scan of the claim's kind", () => {
    const opt = <T>(...v: T[]) => fc.option(fc.constantFrom(...v), { nil: undefined });
    const cand = fc.oneof(
      fc
        .record({
          name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
          namespace: fc.constantFrom('x', 'y'),
          implements: fc.subarray([MYSQL, POSTGRES]),
          profile: opt('p', 'q'),
          phase: fc.constantFrom<ResourcePhase>('Pending', 'Available', 'Bound', 'Released', 'Failed'),
          shared: fc.boolean(),
          boundCount: fc.integer({ min: 0, max: 2 }),
          deleting: fc.boolean(),
          claimRef: opt({ namespace: 'app', name: 'db' }, { namespace: 'app', name: 'zz' }),
          region: opt('north-america', 'us-east-1', 'eu-west-1', 'europe', 'US-EAST-1'),
        })
        .map((r): Candidate => resource({ ...r, sharing: r.shared ? { mode: 'Shared', maxClaims: 2 } : { mode: 'Exclusive' } })),
      fc.constantFrom('k1', 'k2').map((name): Candidate => resourceClass({ name })),
    );
    const claimArb = fc
      .record({ kind: fc.constantFrom(MYSQL, POSTGRES), resourceClass: opt('p', 'q'), region: opt('north-america', 'us-east-1', 'europe', 'mars') })
      .map((c) =>
        claim({
          kind: c.kind,
          ...(c.resourceClass === undefined ? {} : { resourceClass: c.resourceClass }),
          ...(c.region === undefined ? {} : { region: c.region }),
        }),
      );
    fc.assert(
      fc.property(fc.array(cand, { maxLength: 40 }), claimArb, (cs, c) => {
        const ix = new CandidateIndex();
        for (const x of cs) ix.upsert(x);
        const n = narrowingFor(c);
        const got = ix.lookup(c, n);
        // The brute force: every candidate of the kind, through the same three tests in order.
        const scan = ix.scan(c, 'kind');
        const want: Candidate[] = [];
        const counts: Record<string, number> = {};
        const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
        for (const x of lookupCandidates(scan)) {
          if (x.type === 'class') want.push(x);
          else if (resourceProfile(x) !== claimProfile(c)) count(`ProfileMatch: ${resourceProfileMismatch(c)}`);
          else if (availabilityGroup(x) !== 'open' && !(isClaimSpecific(availabilityGroup(x)) && reservedFor(x, c))) {
            count(`Phase: ${availabilitySummary(availabilityGroup(x) as Exclude<ReturnType<typeof availabilityGroup>, 'open'>)}`);
          } else if (n.region !== undefined && availabilityGroup(x) === 'open' && !n.region.accepted.has(normalizeRegion(x.capabilities.region ?? ''))) {
            count(`Region: ${n.region.summary}`);
          } else want.push(x);
        }
        assert.equal(got.total, scan.total);
        assert.deepEqual(names(got), names({ total: 0, candidates: want, runs: [], excluded: [] }));
        assert.deepEqual(excluded(got), counts);
      }),
      { numRuns: 300 },
    );
  });

  test('kindFacts stays what the candidates of the kind offer through upserts, in-place updates and removals (property)', () => {
    const cand = fc.oneof(
      fc
        .record({
          name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
          namespace: fc.constantFrom('x', 'y'),
          implements: fc.subarray([MYSQL, POSTGRES]),
          profile: fc.option(fc.constantFrom('p', 'q'), { nil: undefined }),
          phase: fc.constantFrom<ResourcePhase>('Pending', 'Available', 'Bound'),
          region: fc.option(fc.constantFrom('us-east-1', 'eu-west-1', ''), { nil: undefined }),
          storage: fc.option(fc.constantFrom('1Gi', '10Gi', '10240Mi', '100Gi'), { nil: undefined }),
          shared: fc.boolean(),
        })
        .map((r): Candidate =>
          resource({
            ...r,
            capacity: r.storage === undefined ? {} : { storage: r.storage },
            ...(r.shared ? { sharing: { mode: 'Shared', maxClaims: 2 }, allocatable: { storage: '5Gi' } } : {}),
          }),
        ),
      fc
        .record({ name: fc.constantFrom('k1', 'k2', 'k3'), isDefault: fc.boolean(), storage: fc.option(fc.constantFrom('50Gi', '100Gi'), { nil: undefined }) })
        .map((r): Candidate =>
          resourceClass({ name: r.name, isDefault: r.isDefault, ...(r.storage === undefined ? {} : { capacity: { storage: r.storage } }) }),
        ),
    );
    const op = fc.oneof(
      cand.map((c) => ({ upsert: c })),
      fc.nat(39).map((i) => ({ remove: i })),
    );
    const view = (v: KindView) => ({
      regions: [...v.regions()].sort(),
      profiles: [...v.profiles()].sort(),
      defaultClass: v.hasDefaultClass(),
      storage: ((a) => ({ largest: a.largest?.format(), unlimited: a.unlimited }))(v.amount('storage')),
      cpu: ((a) => ({ largest: a.largest?.format(), unlimited: a.unlimited }))(v.amount('cpu')),
    });
    fc.assert(
      fc.property(fc.array(cand, { maxLength: 30 }), fc.array(op, { maxLength: 30 }), (initial, ops) => {
        const ix = new CandidateIndex();
        for (const x of initial) ix.upsert(x);
        for (const kind of [MYSQL, POSTGRES]) view(ix.kindFacts(kind)); // amounts asked, so later changes update them
        for (const o of ops) {
          if ('upsert' in o) ix.upsert(o.upsert);
          else if (initial[o.remove]) ix.remove(candidateKey(initial[o.remove]));
        }
        for (const kind of [MYSQL, POSTGRES]) {
          const all = lookupCandidates(ix.scan(claim({ kind }), 'kind'));
          assert.deepEqual(view(ix.kindFacts(kind)), view(factsOf(all)));
        }
      }),
      { numRuns: 400 },
    );
  });

  test('an upsert that keeps a resource in its buckets replaces it where it sits', () => {
    const ix = new CandidateIndex();
    ix.upsert(resource({ name: 'a', region: 'us-east-1' }));
    ix.upsert(resource({ name: 'b', region: 'us-east-1' }));
    const newer = resource({ name: 'a', region: 'us-east-1', capacity: { storage: '10Gi' }, provider: 'p/x', labels: { v: '2' } });
    ix.upsert(newer);
    const c = claim({ region: 'north-america' });
    const got = lookupCandidates(ix.lookup(c, narrowingFor(c)));
    assert.equal(got.length, 2);
    assert.equal(got[0], newer, 'the lookup hands out the new object, first in key order');
    assert.equal(ix.get(candidateKey(newer)), newer);
    assert.equal(ix.providerUsage('p/x'), 0);
    ix.upsert(resource({ name: 'a', region: 'us-east-1', provider: 'p/x', phase: 'Bound', boundCount: 1, claimRef: { namespace: 'app', name: 'db' } }));
    assert.equal(ix.providerUsage('p/x'), 1);
    assert.deepEqual(names(ix.lookup(c, narrowingFor(c))), ['resource:a', 'resource:b'], 'bound to this claim: reserved for it');
    ix.upsert(resource({ name: 'a', region: 'us-east-1', provider: 'p/x', phase: 'Bound', boundCount: 1, claimRef: { namespace: 'app', name: 'other' } }));
    assert.deepEqual(names(ix.lookup(c, narrowingFor(c))), ['resource:b'], 'bound to another claim: no longer reserved for this one');
    assert.equal(ix.providerUsage('p/x'), 1);
    assert.equal(ix.size, 2);
  });

  test('a resource whose key collides with another name (a "/" in namespace or name) replaces it cleanly', () => {
    const ix = new CandidateIndex();
    const a = resource({ namespace: 'ops/x', name: 'y' });
    const b = resource({ namespace: 'ops', name: 'x/y' });
    assert.equal(candidateKey(a), candidateKey(b));
    ix.upsert(a);
    ix.upsert(b);
    assert.equal(ix.size, 1);
    assert.equal(ix.get(candidateKey(b)), b);
    assert.deepEqual(ix.scan(claim({ resourceName: 'y' }), 'named').candidates, []);
    assert.deepEqual(ix.scan(claim({ resourceName: 'x/y' }), 'named').candidates, [b]);
  });
});
