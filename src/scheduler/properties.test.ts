/**
 * Invariants of the scheduler over random candidate sets and claims: it never picks a
 * candidate a filter rejects, its result does not depend on insertion order, the index
 * agrees with a scan of every candidate, incremental maintenance equals a rebuild, and no
 * Exclusive resource is handed out twice.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { labelSelectorFromObject } from '../machinery/selectors/index.js';
import { reservedFor } from './availability.js';
import { DEFAULT_FILTERS } from './config.js';
import { candidateKey } from './keys.js';
import { Scheduler } from './scheduler.js';
import { CLOUDSQL, MYSQL, POSTGRES, RDS, claim, resource, resourceClass } from './testing/index.js';
import type { Candidate, ClaimInfo, ResourceCandidate, ResourcePhase, ScheduleResult, SchedulerConfig } from './types.js';

const REGIONS = { 'north-america': ['us-east-1', 'us-west-2'], europe: ['eu-west-1'], world: ['north-america', 'europe'] };
const TIERS = { costTiers: ['free-tier', 'standard', 'premium'], performanceTiers: ['standard', 'performance', 'extreme'] };
const BASE: SchedulerConfig = { regions: REGIONS, ...TIERS };

const opt = <T>(...values: T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });
/** Claims ask for each thing half the time, so that some claims fit. */
const often = <T>(...values: T[]) => fc.option(fc.constantFrom(...values), { nil: undefined, freq: 2 });
const storage = opt('1Gi', '10Gi', '25Gi', '50Gi');
const region = opt('north-america', 'us-east-1', 'us-west-2', 'eu-west-1', 'europe', 'world');
const cost = opt('free-tier', 'standard', 'premium', 'spot');
const performance = opt('standard', 'performance', 'extreme');
const version = opt<string | number>('5.7', '8.0.35', 'MYSQL_5_6', 15);
const claimKinds = fc.subarray([MYSQL, POSTGRES]);
const teamA = labelSelectorFromObject({ matchLabels: { team: 'a' } });
const devOnly = labelSelectorFromObject({ matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] });

const resourceArb = fc
  .record({
    name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'),
    namespace: fc.constantFrom('ops-1', 'ops-2'),
    kind: fc.constantFrom(RDS, CLOUDSQL),
    implements: claimKinds,
    profile: opt('fast', 'slow'),
    phase: fc.constantFrom<ResourcePhase>('Pending', 'Available', 'Available', 'Available', 'Bound', 'Released', 'Failed'),
    shared: fc.boolean(),
    maxClaims: opt(1, 2, 3),
    boundCount: fc.integer({ min: 0, max: 3 }),
    claimRef: opt(
      { namespace: 'app', name: 'db' },
      { namespace: 'app', name: 'db', uid: 'uid-app-db' },
      { namespace: 'app', name: 'db', uid: 'stale' },
      { namespace: 'app', name: 'other' },
    ),
    storage,
    allocatable: storage,
    region,
    cost,
    performance,
    env: opt('dev', 'prod'),
    version,
    provider: opt('p/a', 'p/b'),
  })
  .map((r) =>
    resource({
      name: r.name,
      namespace: r.namespace,
      kind: r.kind,
      implements: r.implements,
      ...(r.profile === undefined ? {} : { profile: r.profile }),
      phase: r.phase,
      sharing: r.shared ? (r.maxClaims === undefined ? { mode: 'Shared' } : { mode: 'Shared', maxClaims: r.maxClaims }) : { mode: 'Exclusive' },
      boundCount: r.shared ? r.boundCount : r.phase === 'Bound' ? 1 : 0,
      ...(r.claimRef === undefined ? {} : { claimRef: r.claimRef }),
      capacity: r.storage === undefined ? {} : { storage: r.storage },
      ...(r.shared && r.allocatable !== undefined ? { allocatable: { storage: r.allocatable } } : {}),
      ...(r.region === undefined ? {} : { region: r.region }),
      ...(r.cost === undefined ? {} : { cost: r.cost }),
      ...(r.performance === undefined ? {} : { performance: r.performance }),
      labels: r.env === undefined ? {} : { env: r.env },
      portable: r.version === undefined ? {} : { version: r.version },
      ...(r.provider === undefined ? {} : { provider: r.provider }),
    }),
  );

const classArb = fc
  .record({
    name: fc.constantFrom('c1', 'c2', 'c3', 'a'),
    profile: fc.constantFrom('fast', 'slow', 'std'),
    isDefault: fc.boolean(),
    supported: claimKinds,
    maxInstances: fc.integer({ min: 0, max: 2 }),
    instanceCount: fc.integer({ min: 0, max: 2 }),
    storage,
    region,
    cost,
    performance,
    restricted: fc.boolean(),
    version,
    provider: opt('p/a', 'p/b'),
  })
  .map((c) =>
    resourceClass({
      name: c.name,
      profile: c.profile,
      isDefault: c.isDefault,
      supportedResources: c.supported,
      maxInstances: c.maxInstances,
      instanceCount: c.instanceCount,
      capacity: c.storage === undefined ? {} : { storage: c.storage },
      ...(c.region === undefined ? {} : { region: c.region }),
      ...(c.cost === undefined ? {} : { cost: c.cost }),
      ...(c.performance === undefined ? {} : { performance: c.performance }),
      ...(c.restricted ? { allowedNamespaces: teamA } : {}),
      portable: c.version === undefined ? {} : { version: c.version },
      ...(c.provider === undefined ? {} : { provider: c.provider }),
    }),
  );

/** Candidates with distinct keys (a repeated key would make the final set depend on order). */
const candidatesArb = fc.uniqueArray(fc.oneof({ weight: 4, arbitrary: resourceArb }, { weight: 1, arbitrary: classArb }), {
  selector: candidateKey,
  maxLength: 30,
});

const claimArb = fc
  .record({
    kind: fc.constantFrom(MYSQL, POSTGRES),
    resourceClass: often('fast', 'slow', 'std'),
    resourceName: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('a', 'b', 'zz') }),
    selector: fc.boolean(),
    storage: often('1Gi', '10Gi', '25Gi', '50Gi'),
    region: often('north-america', 'us-east-1', 'us-west-2', 'eu-west-1', 'europe', 'world'),
    cost: often('free-tier', 'standard', 'premium', 'spot'),
    performance: often('standard', 'performance', 'extreme'),
    version: often('>= 5.6', '5.7', '>= 8', '15', 'not a range'),
    team: fc.constantFrom('a', 'b'),
  })
  .map((c) =>
    claim({
      kind: c.kind,
      ...(c.resourceClass === undefined ? {} : { resourceClass: c.resourceClass }),
      ...(c.resourceName === undefined ? {} : { resourceName: c.resourceName }),
      ...(c.selector ? { resourceSelector: devOnly } : {}),
      capacity: c.storage === undefined ? {} : { storage: c.storage },
      ...(c.region === undefined ? {} : { region: c.region }),
      ...(c.cost === undefined ? {} : { cost: c.cost }),
      ...(c.performance === undefined ? {} : { performance: c.performance }),
      portable: c.version === undefined ? {} : { version: c.version },
      namespaceLabels: { team: c.team },
    }),
  );

/** Random profiles: any subset of the filters in any order, and either region matching. */
const configArb = fc
  .record({ filters: fc.shuffledSubarray([...DEFAULT_FILTERS]), overlapping: fc.boolean() })
  .map((x): SchedulerConfig => ({ ...BASE, regionMatch: x.overlapping ? 'overlapping' : 'contained', profile: { filters: x.filters } }));

function build(cs: readonly Candidate[], config: SchedulerConfig = BASE): Scheduler {
  const s = new Scheduler({ config });
  for (const c of cs) s.upsert(c);
  return s;
}

function chosenKey(r: ScheduleResult): string {
  return r.decision.type === 'none' ? 'none' : candidateKey(r.decision.candidate);
}

describe('scheduler properties', () => {
  test('the index and a scan of every candidate give the same decision and explanation, under any profile', () => {
    fc.assert(
      fc.property(candidatesArb, claimArb, configArb, (cs, c, config) => {
        const s = build(cs, config);
        const indexed = s.scheduleSync(c);
        const scanned = s.scheduleSync(c, { scan: true });
        assert.equal(chosenKey(indexed), chosenKey(scanned));
        assert.deepEqual(indexed.explanation, scanned.explanation);
      }),
      { numRuns: 300 },
    );
  });

  test('the chosen candidate passes every filter; when none is chosen, none passes; the counts add up', () => {
    fc.assert(
      fc.property(candidatesArb, claimArb, (cs, c) => {
        const s = build(cs);
        const r = s.scheduleSync(c);
        const fitting = cs.filter((x) => s.explain(c, candidateKey(x))?.fits === true);
        if (r.decision.type === 'none') assert.deepEqual(fitting, []);
        else assert.equal(s.explain(c, candidateKey(r.decision.candidate))?.fits, true);
        assert.equal(r.explanation.feasible, fitting.length);
        assert.equal(r.explanation.total, r.explanation.feasible + r.explanation.failures.reduce((n, f) => n + f.count, 0));
      }),
      { numRuns: 300 },
    );
  });

  test('stopping early (feasibleCandidatesToFind 1–3): the index agrees with a scan stopping by the same rule, insertion order does not matter, and the guarantees hold', () => {
    const early = fc.tuple(configArb, fc.integer({ min: 1, max: 3 })).map(([c, k]): SchedulerConfig => ({ ...c, feasibleCandidatesToFind: k }));
    fc.assert(
      fc.property(
        candidatesArb.chain((cs) => fc.tuple(fc.constant(cs), fc.shuffledSubarray(cs, { minLength: cs.length }))),
        claimArb,
        early,
        ([cs, shuffled], c, config) => {
          const s = build(cs, config);
          const r = s.scheduleSync(c);
          const scanned = s.scheduleSync(c, { scan: true });
          // The scan counts rejections only among what it checked, so only the decision and what was found must agree.
          assert.equal(chosenKey(r), chosenKey(scanned));
          assert.equal(r.explanation.feasible, scanned.explanation.feasible);
          assert.equal(r.explanation.total, scanned.explanation.total);
          assert.deepEqual(build(shuffled, config).scheduleSync(c).explanation, r.explanation);
          const failedCount = r.explanation.failures.reduce((n, f) => n + f.count, 0);
          assert.equal(r.explanation.total, r.explanation.feasible + failedCount + (r.explanation.unchecked ?? 0));
          const fitting = cs.filter((x) => s.explain(c, candidateKey(x))?.fits === true);
          if (r.decision.type === 'none') {
            assert.deepEqual(fitting, []);
            assert.equal(r.explanation.unchecked, undefined);
            return;
          }
          assert.equal(s.explain(c, candidateKey(r.decision.candidate))?.fits, true);
          const scored = config.profile?.scoreWeights === undefined;
          if (fitting.some((x) => x.type === 'resource' && reservedFor(x, c))) assert.equal(r.explanation.reserved, true);
          else if (scored && fitting.some((x) => x.type === 'resource'))
            assert.equal(r.decision.type, 'resource', 'StaticFirst: a fitting resource beats every class');
        },
      ),
      { numRuns: 300 },
    );
  });

  test('the result does not depend on the order candidates were added', () => {
    fc.assert(
      fc.property(
        candidatesArb.chain((cs) => fc.tuple(fc.constant(cs), fc.shuffledSubarray(cs, { minLength: cs.length }))),
        claimArb,
        ([cs, shuffled], c) => {
          const a = build(cs).scheduleSync(c);
          const b = build(shuffled).scheduleSync(c);
          assert.equal(chosenKey(a), chosenKey(b));
          assert.deepEqual(a.explanation, b.explanation);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('an index maintained by upserts and removes answers like one built from its final contents', () => {
    const op = fc.oneof(
      { weight: 3, arbitrary: fc.oneof(resourceArb, classArb).map((c) => ({ upsert: c })) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 40 }).map((i) => ({ removeAt: i })) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.array(claimArb, { minLength: 1, maxLength: 4 }), (ops, claims) => {
        const live = new Scheduler({ config: BASE });
        const model = new Map<string, Candidate>();
        for (const o of ops) {
          if ('upsert' in o) {
            live.upsert(o.upsert);
            model.set(candidateKey(o.upsert), o.upsert);
          } else {
            const keys = [...model.keys()];
            const key = keys[o.removeAt % Math.max(1, keys.length)];
            if (key === undefined) continue;
            assert.equal(live.remove(key), true);
            model.delete(key);
          }
        }
        const fresh = build([...model.values()]);
        assert.equal(live.size, model.size);
        for (const c of claims) {
          const a = live.scheduleSync(c);
          assert.equal(chosenKey(a), chosenKey(fresh.scheduleSync(c)));
          assert.deepEqual(a.explanation, fresh.scheduleSync(c).explanation);
          assert.deepEqual(a.explanation, live.scheduleSync(c, { scan: true }).explanation);
        }
        for (const p of ['p/a', 'p/b', '']) {
          const want = [...model.values()]
            .filter((x): x is ResourceCandidate => x.type === 'resource' && (x.provider ?? '') === p)
            .reduce((n, x) => n + x.boundCount, 0);
          assert.equal(live.providerUsage(p), want);
        }
      }),
      { numRuns: 200 },
    );
  });

  test('binding decisions one after another never hands an Exclusive resource out twice nor overfills a Shared one', () => {
    fc.assert(
      fc.property(candidatesArb, fc.array(claimArb, { minLength: 1, maxLength: 12 }), (cs, claims) => {
        const s = build(cs);
        const taken = new Set<string>();
        claims.forEach((c0, i) => {
          const c: ClaimInfo = { ...c0, name: `claim-${i}`, uid: `uid-${i}` };
          const d = s.scheduleSync(c).decision;
          if (d.type === 'resource') {
            const r = d.candidate;
            const key = candidateKey(r);
            if (r.sharing.mode === 'Exclusive') {
              assert.ok(!taken.has(key), `${key} chosen a second time`);
              taken.add(key);
              s.upsert({ ...r, phase: 'Bound', boundCount: 1, claimRef: { namespace: c.namespace, name: c.name, uid: c.uid } });
            } else {
              assert.ok(r.sharing.maxClaims === undefined || r.boundCount < r.sharing.maxClaims, `${key} is full`);
              s.upsert({ ...r, phase: 'Bound', boundCount: r.boundCount + 1 });
            }
          } else if (d.type === 'class') {
            const k = d.candidate;
            assert.ok(k.maxInstances === 0 || k.instanceCount < k.maxInstances, `${k.name} is at its limit`);
            s.upsert({ ...k, instanceCount: k.instanceCount + 1 });
          }
        });
      }),
      { numRuns: 200 },
    );
  });
});
