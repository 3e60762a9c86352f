/**
 * The early stop (SchedulerConfig.feasibleCandidatesToFind): a decision stops running filters
 * once enough feasible resources are found, in key order, and keeps every guarantee.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FILTERS, feasibleToFind, resolveConfig } from './config.js';
import { candidateKey } from './keys.js';
import { Scheduler } from './scheduler.js';
import { claim, resource, resourceClass } from './testing/index.js';
import type { Candidate, ScheduleResult, SchedulerConfig } from './types.js';

function build(cs: readonly Candidate[], config: SchedulerConfig): Scheduler {
  const s = new Scheduler({ config });
  for (const c of cs) s.upsert(c);
  return s;
}

function chosen(r: ScheduleResult): string {
  return r.decision.type === 'none' ? 'none' : `${r.decision.type}:${r.decision.candidate.name}`;
}

function failed(r: ScheduleResult): number {
  return r.explanation.failures.reduce((n, f) => n + f.count, 0);
}

/** r-00 … r-(n-1), all free and 100Gi, except where `storage` says otherwise. */
function numbered(n: number, storage: (i: number) => string = () => '100Gi'): Candidate[] {
  return Array.from({ length: n }, (_, i) => resource({ name: `r-${String(i).padStart(2, '0')}`, capacity: { storage: storage(i) } }));
}

describe('feasibleToFind', () => {
  const cases: { reason: string; configured: number | undefined; searchable: number; want: number }[] = [
    { reason: 'the default looks for at least 100', configured: undefined, searchable: 10, want: 100 },
    { reason: 'the default is 100 up to 2,000 candidates', configured: undefined, searchable: 2000, want: 100 },
    { reason: 'the default is 5% above, rounded up', configured: undefined, searchable: 2001, want: 101 },
    { reason: 'the default is 5% of 10,000', configured: undefined, searchable: 10000, want: 500 },
    { reason: '0 checks everything', configured: 0, searchable: 10000, want: Infinity },
    { reason: 'a configured number is taken as it is', configured: 7, searchable: 10000, want: 7 },
  ];
  for (const c of cases) {
    test(c.reason, () => assert.equal(feasibleToFind(c.configured, c.searchable), c.want));
  }

  for (const bad of [-1, 1.5, Number.NaN, Infinity]) {
    test(`resolveConfig refuses feasibleCandidatesToFind ${bad}`, () => {
      assert.throws(() => resolveConfig({ feasibleCandidatesToFind: bad }), /feasibleCandidatesToFind is .*: expected a whole number ≥ 0/);
    });
  }
});

describe('early stop', () => {
  test('only the first feasible resources in key order are scored; the rest are reported unchecked', () => {
    // The best fit (least waste) sorts last: a full search finds it, a search stopping after 3 does not.
    const cs = numbered(10, (i) => (i === 9 ? '20Gi' : '100Gi'));
    const c = claim({ capacity: { storage: '20Gi' } });
    const early = build(cs, { feasibleCandidatesToFind: 3 }).scheduleSync(c);
    assert.equal(chosen(early), 'resource:r-00');
    assert.equal(early.explanation.feasible, 3);
    assert.equal(early.explanation.unchecked, 7);
    assert.equal(early.explanation.total, 10);
    assert.match(early.explanation.message, /^3\/10 candidates fit \(7 unchecked\); chose RDSInstance conductor-system\/r-00/);
    const full = build(cs, { feasibleCandidatesToFind: 0 }).scheduleSync(c);
    assert.equal(chosen(full), 'resource:r-09');
    assert.equal(full.explanation.feasible, 10);
    assert.equal(full.explanation.unchecked, undefined);
  });

  test('rejected resources are counted and do not count towards the limit', () => {
    const cs = numbered(6, (i) => (i < 2 ? '1Gi' : '100Gi'));
    const r = build(cs, { feasibleCandidatesToFind: 2 }).scheduleSync(claim({ capacity: { storage: '20Gi' } }));
    assert.equal(chosen(r), 'resource:r-02');
    assert.equal(r.explanation.feasible, 2);
    assert.deepEqual(r.explanation.failures, [{ plugin: 'Capacity', summary: 'insufficient storage (want 20Gi)', count: 2 }]);
    assert.equal(r.explanation.unchecked, 2);
    assert.equal(r.explanation.total, r.explanation.feasible + failed(r) + (r.explanation.unchecked ?? 0));
  });

  test('when nothing fits every candidate is checked and counted', () => {
    const r = build(
      numbered(30, () => '1Gi'),
      { feasibleCandidatesToFind: 1 },
    ).scheduleSync(claim({ capacity: { storage: '20Gi' } }));
    assert.equal(chosen(r), 'none');
    assert.equal(r.explanation.message, '0/30 candidates: 30 insufficient storage (want 20Gi); to fit: storage: wants 20Gi; the largest offered is 1Gi');
    assert.equal(r.explanation.unchecked, undefined);
  });

  test("the hints follow the index: a larger resource added, or the largest removed, changes 'the largest offered'", () => {
    const s = build(
      numbered(3, (i) => `${i + 1}Gi`),
      { feasibleCandidatesToFind: 1 },
    );
    const ask = claim({ capacity: { storage: '20Gi' } });
    const largest = () => /the largest offered is (\S+)$/.exec(s.scheduleSync(ask).explanation.message)?.[1];
    assert.equal(largest(), '3Gi');
    assert.equal(largest(), '3Gi', 'asked again with nothing changed');
    s.upsert(resource({ name: 'big', capacity: { storage: '10Gi' } }));
    assert.equal(largest(), '10Gi');
    s.remove(candidateKey(resource({ name: 'big' })));
    assert.equal(largest(), '3Gi');
  });

  test('a feasible resource after the infeasible ones still beats a class (StaticFirst)', () => {
    const cs = [...numbered(8, (i) => (i < 7 ? '1Gi' : '100Gi')), resourceClass({ name: 'default', isDefault: true })];
    const r = build(cs, { feasibleCandidatesToFind: 1 }).scheduleSync(claim({ capacity: { storage: '20Gi' } }));
    assert.equal(chosen(r), 'resource:r-07');
    assert.equal(r.explanation.feasible, 2, 'the class is always evaluated, and counted');
  });

  // A profile without Phase does not narrow by availability: the reserved resource then sits among the others.
  const noPhase = DEFAULT_FILTERS.filter((f) => f !== 'Phase');
  for (const { reason, config } of [
    { reason: 'default filters', config: { feasibleCandidatesToFind: 1 } },
    { reason: 'a profile without Phase', config: { feasibleCandidatesToFind: 1, profile: { filters: noPhase } } },
  ]) {
    test(`a resource reserved for the claim wins even when it sorts last (${reason})`, () => {
      const cs = [...numbered(20), resource({ name: 'zz-mine', capacity: { storage: '100Gi' }, claimRef: { namespace: 'app', name: 'db' } })];
      const s = build(cs, config);
      const r = s.scheduleSync(claim({ capacity: { storage: '20Gi' } }));
      assert.equal(chosen(r), 'resource:zz-mine');
      assert.equal(r.explanation.reserved, true);
      assert.equal(r.explanation.total, r.explanation.feasible + failed(r) + (r.explanation.unchecked ?? 0));
      assert.deepEqual(s.scheduleSync(claim({ capacity: { storage: '20Gi' } }), { scan: true }).decision, r.decision);
    });
  }

  test('the same contents give the same decision whatever order they were added in, across regions', () => {
    const cs: Candidate[] = Array.from({ length: 40 }, (_, i) =>
      resource({
        name: `r-${String(i).padStart(2, '0')}`,
        capacity: { storage: i % 3 === 0 ? '1Gi' : `${30 + (i % 7)}Gi` },
        region: i % 2 === 0 ? 'us-east-1' : 'us-west-2',
      }),
    );
    const config: SchedulerConfig = { feasibleCandidatesToFind: 5, regions: { 'north-america': ['us-east-1', 'us-west-2'] } };
    const c = claim({ capacity: { storage: '20Gi' }, region: 'north-america' });
    const forward = build(cs, config).scheduleSync(c);
    const backward = build([...cs].reverse(), config).scheduleSync(c);
    assert.deepEqual(backward, forward);
    assert.equal(forward.explanation.feasible, 5);
    // Key order across both regions: r-01, r-02, r-04, r-05, r-07 are the first five that fit.
    const scanned = build(cs, config).scheduleSync(c, { scan: true });
    assert.equal(chosen(scanned), chosen(forward));
    assert.ok(['resource:r-01', 'resource:r-02', 'resource:r-04', 'resource:r-05', 'resource:r-07'].includes(chosen(forward)), chosen(forward));
  });

  test('bound resources drop out of the search: sequential decisions hand out distinct resources', () => {
    const s = build(numbered(50), { feasibleCandidatesToFind: 2 });
    const taken = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const c = claim({ name: `db-${i}`, uid: `u-${i}`, capacity: { storage: '20Gi' } });
      const d = s.scheduleSync(c).decision;
      assert.equal(d.type, 'resource');
      if (d.type !== 'resource') return;
      const key = candidateKey(d.candidate);
      assert.ok(!taken.has(key), `${key} chosen twice`);
      taken.add(key);
      s.upsert({ ...d.candidate, phase: 'Bound', boundCount: 1, claimRef: { namespace: c.namespace, name: c.name, uid: c.uid } });
    }
    assert.equal(chosen(s.scheduleSync(claim({ name: 'one-more', capacity: { storage: '20Gi' } }))), 'none');
  });
});
