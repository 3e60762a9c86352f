import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { labelSelectorFromObject } from '../machinery/selectors/index.js';
import { candidateKey } from './keys.js';
import type { CandidateFilter, FilterPlugin, PluginContext } from './plugin.js';
import { defaultRegistry } from './registry.js';
import { Scheduler, compareCandidates } from './scheduler.js';
import { POSTGRES, claim, resource, resourceClass } from './testing/index.js';
import type { Candidate, ClaimInfo, ScheduleResult, SchedulerConfig } from './types.js';

const CONFIG: SchedulerConfig = {
  regions: { 'north-america': ['us-east-1', 'us-west-2'], europe: ['eu-west-1'] },
  costTiers: ['free-tier', 'standard', 'premium'],
  performanceTiers: ['standard', 'performance', 'extreme'],
};

function schedulerWith(candidates: Candidate[], config: SchedulerConfig = CONFIG): Scheduler {
  const s = new Scheduler({ config });
  for (const c of candidates) s.upsert(c);
  return s;
}

/** decide schedules with the index and by a scan, checks both agree, and returns the indexed result. */
function decide(s: Scheduler, c: ClaimInfo): ScheduleResult {
  const indexed = s.scheduleSync(c);
  const scanned = s.scheduleSync(c, { scan: true });
  assert.deepEqual(indexed.explanation, scanned.explanation, 'the index and a scan explain the same way');
  assert.equal(chosen(indexed), chosen(scanned), 'the index and a scan choose the same candidate');
  return indexed;
}

/** The chosen candidate's name, `class:<name>` for a class, or 'none'. */
function chosen(r: ScheduleResult): string {
  const d = r.decision;
  return d.type === 'none' ? 'none' : d.type === 'class' ? `class:${d.candidate.name}` : d.candidate.name;
}

describe('explanations', () => {
  test('rejections are counted by reason, most frequent first', () => {
    const cs: Candidate[] = [];
    for (let i = 0; i < 5; i++) cs.push(resource({ name: `small-${i}`, profile: 'performance', region: 'us-east-1', capacity: { storage: '10Gi' } }));
    for (let i = 0; i < 4; i++) cs.push(resource({ name: `eu-${i}`, profile: 'performance', region: 'eu-west-1', capacity: { storage: '50Gi' } }));
    for (let i = 0; i < 3; i++) cs.push(resource({ name: `std-${i}`, profile: 'standard', region: 'us-east-1', capacity: { storage: '50Gi' } }));
    const r = decide(schedulerWith(cs), claim({ resourceClass: 'performance', region: 'north-america', capacity: { storage: '25Gi' } }));
    assert.equal(r.decision.type, 'none');
    assert.equal(
      r.explanation.message,
      '0/12 candidates: 5 insufficient storage (want 25Gi), 4 region mismatch (want north-america), 3 not in profile "performance"',
    );
    assert.deepEqual(
      r.explanation.failures.map((f) => [f.plugin, f.count]),
      [
        ['Capacity', 5],
        ['Region', 4],
        ['ProfileMatch', 3],
      ],
    );
  });

  test('a candidate failing several filters is counted once, under the first', () => {
    // Bound (Phase) and too small (Capacity) and in the wrong region (Region): Phase runs first.
    const r = decide(
      schedulerWith([resource({ name: 'r', phase: 'Bound', boundCount: 1, region: 'eu-west-1', capacity: { storage: '1Gi' } })]),
      claim({ region: 'us-east-1', capacity: { storage: '5Gi' } }),
    );
    assert.equal(r.explanation.message, '0/1 candidates: 1 already bound');
  });

  test("a decision says what was chosen, the winner's scores and why the others were rejected", () => {
    const r = decide(
      schedulerWith([
        resource({ name: 'fit', region: 'us-east-1', cost: 'free-tier', capacity: { storage: '50Gi' } }),
        resource({ name: 'tiny', capacity: { storage: '1Gi' } }),
      ]),
      claim({ region: 'us-east-1', capacity: { storage: '25Gi' } }),
    );
    assert.equal(chosen(r), 'fit');
    assert.equal(r.explanation.feasible, 1);
    assert.equal(
      r.explanation.message,
      '1/2 candidates fit; chose RDSInstance conductor-system/fit: LeastWaste 50×3, Locality 100×2, LowestCost 100×2, Spread 100×1, StaticFirst 100×100 = 10650; rejected: 1 region mismatch (want us-east-1)',
    );
    assert.equal(r.explanation.totalScore, 10650);
  });

  test('a kind nothing serves says so', () => {
    const r = decide(schedulerWith([resource({ name: 'r' })]), claim({ kind: POSTGRES }));
    assert.equal(r.explanation.message, '0/0 candidates: no resource implements PostgreSQLInstance.storage.conductor.io and no class supports it');
  });

  test('many reasons are cut after eight', () => {
    // Candidate i has 5 of every dimension but 1 of dim<i>, so each fails for its own reason.
    const wants: Record<string, string> = {};
    for (let i = 0; i < 10; i++) wants[`dim${i}`] = '2';
    const cs = Array.from({ length: 10 }, (_, i) =>
      resource({ name: `r${i}`, profile: 'p', capacity: { ...Object.fromEntries(Object.keys(wants).map((d) => [d, '5'])), [`dim${i}`]: '1' } }),
    );
    const r = decide(schedulerWith(cs), claim({ resourceClass: 'p', capacity: wants }));
    assert.match(r.explanation.message, /^0\/10 candidates: (1 insufficient dim\d \(want 2\), ){8}2 for 2 other reasons$/);
  });
});

describe('resources being deleted', () => {
  // Deleting a resource waits for every claim bound to it: one more claim would hold it up.
  test('a Shared resource being deleted takes no claim, even with free slots, and the explanation says why', () => {
    const shared = { mode: 'Shared', maxClaims: 10 } as const;
    const r = decide(schedulerWith([resource({ name: 'going', sharing: shared, boundCount: 1, deleting: true, capacity: { storage: '50Gi' } })]), claim());
    assert.equal(chosen(r), 'none');
    assert.equal(r.explanation.message, '0/1 candidates: 1 being deleted');
  });

  test('another resource or a class is chosen instead', () => {
    const shared = { mode: 'Shared' } as const;
    const r = decide(
      schedulerWith([
        resource({ name: 'going', sharing: shared, deleting: true }),
        resource({ name: 'staying', sharing: shared, phase: 'Bound', boundCount: 3 }),
        resourceClass({ name: 'k', isDefault: true }),
      ]),
      claim(),
    );
    assert.equal(chosen(r), 'staying');
    assert.match(r.explanation.message, /rejected: 1 being deleted$/);
  });

  test('an Exclusive resource reserved for the claim but being deleted is not taken either', () => {
    const r = decide(
      schedulerWith([
        resource({ name: 'held', phase: 'Pending', claimRef: { namespace: 'app', name: 'db', uid: 'uid-app-db' }, deleting: true }),
        resourceClass({ name: 'k', isDefault: true }),
      ]),
      claim(),
    );
    assert.equal(chosen(r), 'class:k');
    assert.match(r.explanation.message, /rejected: 1 being deleted$/);
  });

  test('a class being deleted provisions nothing more', () => {
    const r = decide(
      schedulerWith([resourceClass({ name: 'going', isDefault: true, deleting: true }), resourceClass({ name: 'staying', isDefault: true })]),
      claim(),
    );
    assert.equal(chosen(r), 'class:staying');
    assert.match(r.explanation.message, /rejected: 1 being deleted$/);
  });

  test('an Available Exclusive resource being deleted is not taken', () => {
    const r = decide(schedulerWith([resource({ name: 'going', deleting: true })]), claim());
    assert.equal(r.explanation.message, '0/1 candidates: 1 being deleted');
  });
});

describe('ExplicitName', () => {
  const dev = labelSelectorFromObject({ matchLabels: { environment: 'dev' } });
  const cs = [
    resource({ name: 'named', labels: { environment: 'prod' }, capacity: { storage: '100Gi' } }),
    resource({ name: 'better', labels: { environment: 'dev' }, capacity: { storage: '25Gi' } }),
    resourceClass({ name: 'default', isDefault: true }),
  ];

  test('only the named resource is a candidate, and the selector is not applied', () => {
    const r = decide(schedulerWith(cs), claim({ resourceName: 'named', resourceSelector: dev, capacity: { storage: '25Gi' } }));
    assert.equal(chosen(r), 'named');
    assert.equal(r.explanation.total, 1);
  });

  test('every other filter still applies: a named resource too small leaves the claim pending with the reason', () => {
    const r = decide(schedulerWith(cs), claim({ resourceName: 'named', capacity: { storage: '200Gi' } }));
    assert.equal(r.decision.type, 'none');
    assert.equal(r.explanation.message, '0/1 candidates: 1 insufficient storage (want 200Gi)');
  });

  // A name the claim may not use reads exactly like a name nothing has (issue 10, item 11):
  // resourceName must not tell a tenant what exists, of which kind, or who holds it.
  for (const c of [
    { reason: 'another kind', rs: [resource({ name: 'pg', implements: [POSTGRES] })] },
    { reason: 'bound to another claim', rs: [resource({ name: 'pg', phase: 'Bound', boundCount: 1 })] },
    { reason: 'reserved for another claim', rs: [resource({ name: 'pg', claimRef: { namespace: 'other', name: 'theirs', uid: 'uid-other' } })] },
    { reason: 'Released', rs: [resource({ name: 'pg', phase: 'Released' })] },
    { reason: 'another profile', rs: [resource({ name: 'pg', profile: 'gold' })] },
    { reason: 'a Shared resource with no free slot', rs: [resource({ name: 'pg', sharing: { mode: 'Shared', maxClaims: 1 }, boundCount: 1 })] },
  ]) {
    test(`a named resource the claim may not use (${c.reason}) reads as no resource of that name`, () => {
      const r = decide(schedulerWith(c.rs), claim({ resourceName: 'pg' }));
      const none = decide(schedulerWith([]), claim({ resourceName: 'pg' }));
      assert.equal(r.decision.type, 'none');
      assert.equal(r.explanation.message, '0/0 candidates: no resource named "pg"');
      assert.deepEqual({ ...r.explanation }, { ...none.explanation });
    });
  }

  test('a named resource the claim may use but that does not fit still says why', () => {
    const r = decide(schedulerWith([resource({ name: 'pg', capacity: { storage: '1Gi' } })]), claim({ resourceName: 'pg', capacity: { storage: '5Gi' } }));
    assert.equal(r.explanation.message, '0/1 candidates: 1 insufficient storage (want 5Gi)');
  });

  test('a name nothing has', () => {
    const r = decide(schedulerWith(cs), claim({ resourceName: 'nope' }));
    assert.equal(r.explanation.message, '0/0 candidates: no resource named "nope"');
  });

  test('no class is chosen for a claim naming its resource, even when the resource is bound', () => {
    const r = decide(
      schedulerWith([resource({ name: 'named', phase: 'Bound', boundCount: 1 }), resourceClass({ name: 'default', isDefault: true })]),
      claim({ resourceName: 'named' }),
    );
    assert.equal(r.decision.type, 'none');
    assert.equal(r.explanation.message, '0/0 candidates: no resource named "named"');
  });

  test('the same name in two namespaces: the first by namespace wins a tie', () => {
    const r = decide(
      schedulerWith([resource({ name: 'db', namespace: 'ops-b' }), resource({ name: 'db', namespace: 'ops-a' })]),
      claim({ resourceName: 'db' }),
    );
    assert.equal(r.decision.type === 'resource' && r.decision.candidate.namespace, 'ops-a');
  });
});

describe('ProfileMatch and default classes', () => {
  test('a claim naming no profile uses the default class of its kind', () => {
    const r = decide(schedulerWith([resourceClass({ name: 'other' }), resourceClass({ name: 'std', isDefault: true })]), claim());
    assert.equal(chosen(r), 'class:std');
  });

  test('with no default class a claim naming no profile waits, and says why', () => {
    const r = decide(schedulerWith([resourceClass({ name: 'fast' }), resource({ name: 'r', profile: 'fast' })]), claim());
    assert.equal(
      r.explanation.message,
      '0/2 candidates: 1 in a profile (the claim names none), 1 not a default class (the claim names no profile); to fit: profile: the claim names none and no class is the default; set spec.resourceClass to one of: fast',
    );
  });

  test('a default class of another kind does not count', () => {
    const r = decide(schedulerWith([resourceClass({ name: 'pg', isDefault: true, supportedResources: [POSTGRES] })]), claim());
    assert.equal(r.decision.type, 'none');
  });

  test("a claim naming a profile uses that profile's classes, default or not", () => {
    const r = decide(
      schedulerWith([resourceClass({ name: 'std', isDefault: true }), resourceClass({ name: 'gcp-fast', profile: 'fast' })]),
      claim({ resourceClass: 'fast' }),
    );
    assert.equal(chosen(r), 'class:gcp-fast');
  });

  test('an existing resource without profile comes before the default class', () => {
    const r = decide(schedulerWith([resourceClass({ name: 'std', isDefault: true }), resource({ name: 'static' })]), claim());
    assert.equal(chosen(r), 'static');
  });

  test('several classes of one profile: the scheduler chooses by score', () => {
    const r = decide(
      schedulerWith([
        resourceClass({ name: 'aws-fast', profile: 'fast', cost: 'premium' }),
        resourceClass({ name: 'gcp-fast', profile: 'fast', cost: 'standard' }),
      ]),
      claim({ resourceClass: 'fast' }),
    );
    assert.equal(chosen(r), 'class:gcp-fast');
  });
});

describe('ties and weights', () => {
  test('ties break by namespace/name whatever the insertion order', () => {
    const a = resource({ name: 'a', namespace: 'ns' });
    const b = resource({ name: 'b', namespace: 'ns' });
    const c = resource({ name: 'a', namespace: 'mm' });
    for (const order of [
      [a, b, c],
      [c, b, a],
      [b, a, c],
    ]) {
      const d = decide(schedulerWith(order), claim()).decision;
      assert.equal(
        d.type === 'none' ? 'none' : candidateKey(d.candidate),
        candidateKey(c),
        `inserted as ${order.map((x) => `${x.namespace}/${x.name}`).join(', ')}`,
      );
    }
  });

  test('with the default weights an existing resource beats any class', () => {
    const r = decide(
      schedulerWith([
        resource({ name: 'far', region: 'us-west-2', cost: 'premium', capacity: { storage: '1Ti' } }),
        resourceClass({ name: 'perfect', isDefault: true, region: 'north-america', cost: 'free-tier' }),
      ]),
      claim({ region: 'north-america', capacity: { storage: '1Gi' } }),
    );
    assert.equal(chosen(r), 'far');
  });

  test('weights decide: without StaticFirst a cheaper class beats a dear resource', () => {
    const cs = [resource({ name: 'dear', cost: 'premium' }), resourceClass({ name: 'cheap', isDefault: true, cost: 'free-tier' })];
    const s = schedulerWith(cs, { ...CONFIG, profile: { scoreWeights: { LowestCost: 1 } } });
    assert.equal(chosen(decide(s, claim())), 'class:cheap');
    s.setConfig({ ...CONFIG, profile: { scoreWeights: { StaticFirst: 1 } } });
    assert.equal(chosen(decide(s, claim())), 'dear');
  });

  test('Spread and BinPack pull opposite ways', () => {
    const cs = [
      resource({ name: 'busy-1', provider: 'p/busy', phase: 'Bound', boundCount: 1, claimRef: { namespace: 'x', name: 'y' } }),
      resource({ name: 'busy-2', provider: 'p/busy' }),
      resource({ name: 'idle-1', provider: 'p/idle' }),
    ];
    assert.equal(chosen(decide(schedulerWith(cs, { profile: { scoreWeights: { Spread: 1 } } }), claim())), 'idle-1');
    assert.equal(chosen(decide(schedulerWith(cs, { profile: { scoreWeights: { BinPack: 1 } } }), claim())), 'busy-2');
  });
});

describe('reservations', () => {
  test('a resource pre-bound to the claim wins over better-scoring ones', () => {
    const r = decide(
      schedulerWith([
        resource({ name: 'exact', capacity: { storage: '25Gi' } }),
        resource({ name: 'reserved', capacity: { storage: '1Ti' }, claimRef: { namespace: 'app', name: 'db', uid: 'uid-app-db' } }),
      ]),
      claim({ capacity: { storage: '25Gi' } }),
    );
    assert.equal(chosen(r), 'reserved');
    assert.equal(r.explanation.reserved, true);
    assert.match(r.explanation.message, /\(reserved for this claim\)/);
  });

  test('a resource reserved for the claim must still fit it', () => {
    const r = decide(
      schedulerWith([
        resource({ name: 'reserved', capacity: { storage: '1Gi' }, claimRef: { namespace: 'app', name: 'db' } }),
        resource({ name: 'other', capacity: { storage: '50Gi' } }),
      ]),
      claim({ capacity: { storage: '25Gi' } }),
    );
    assert.equal(chosen(r), 'other');
  });

  test('a resource reserved for another claim is not taken', () => {
    const r = decide(schedulerWith([resource({ name: 'r', claimRef: { namespace: 'app', name: 'other' } })]), claim());
    assert.equal(r.explanation.message, '0/1 candidates: 1 reserved for another claim');
  });
});

describe('configuration', () => {
  test('an unknown plugin is refused with the known names', () => {
    assert.throws(
      () => new Scheduler({ config: { profile: { filters: ['Capacity', 'Nope'] } } }),
      /unknown filter plugin "Nope": expected one of KindCompatible, /,
    );
    assert.throws(() => new Scheduler({ config: { profile: { scoreWeights: { Fastest: 1 } } } }), /unknown score plugin "Fastest"/);
    assert.throws(() => new Scheduler({ config: { profile: { scoreWeights: { StaticFirst: -1 } } } }), /expected a number ≥ 0/);
  });

  test('a disabled filter does not run', () => {
    const cs = [resource({ name: 'small', capacity: { storage: '1Gi' } })];
    assert.equal(decide(schedulerWith(cs), claim({ capacity: { storage: '5Gi' } })).decision.type, 'none');
    const without = CONFIG.profile?.filters ?? ['KindCompatible', 'ExplicitName', 'ProfileMatch', 'Phase', 'Region', 'Selector', 'Cost', 'Performance'];
    assert.equal(chosen(decide(schedulerWith(cs, { ...CONFIG, profile: { filters: without } }), claim({ capacity: { storage: '5Gi' } }))), 'small');
  });

  test("a profile listing Selector before Phase still counts the index's filters first", () => {
    const dev = labelSelectorFromObject({ matchLabels: { env: 'dev' } });
    const s = schedulerWith([resource({ name: 'r', phase: 'Pending', labels: { env: 'prod' } })], {
      profile: { filters: ['Selector', 'Capacity', 'Phase', 'ProfileMatch', 'KindCompatible'] },
    });
    assert.equal(decide(s, claim({ resourceSelector: dev })).explanation.message, '0/1 candidates: 1 not ready (phase Pending)');
  });

  test('without KindCompatible every candidate is considered', () => {
    const s = schedulerWith([resource({ name: 'pg', implements: [POSTGRES] })], { profile: { filters: ['Phase'] } });
    assert.equal(chosen(decide(s, claim())), 'pg');
  });

  test('a plugin registered by name is used', () => {
    class NoMondays implements FilterPlugin {
      static readonly pluginName = 'NoOddNames';
      readonly name = NoMondays.pluginName;
      constructor(_ctx: PluginContext) {}
      prepare(): CandidateFilter {
        return (c) => (c.name.length % 2 === 1 ? { summary: 'odd name' } : undefined);
      }
    }
    const registry = defaultRegistry().registerFilter(NoMondays);
    const s = new Scheduler({ registry, config: { profile: { filters: ['KindCompatible', 'NoOddNames'] } } });
    s.upsert(resource({ name: 'odd' }));
    s.upsert(resource({ name: 'even' }));
    const r = decide(s, claim());
    assert.equal(chosen(r), 'even');
    assert.deepEqual(r.explanation.failures, [{ plugin: 'NoOddNames', summary: 'odd name', count: 1 }]);
  });

  test('the quota callback vetoes classes', () => {
    const s = new Scheduler({ config: CONFIG, quota: (c, k) => (c.namespace === 'app' && k.name === 'std' ? 'claims 10 + 1 > 10' : undefined) });
    s.upsert(resourceClass({ name: 'std', isDefault: true }));
    assert.equal(decide(s, claim()).explanation.message, '0/1 candidates: 1 quota exceeded: claims 10 + 1 > 10');
    assert.equal(chosen(decide(s, claim({ namespace: 'other' }))), 'class:std');
  });
});

describe('the candidate set', () => {
  test('upsert replaces and remove drops, and decisions follow', () => {
    const s = schedulerWith([resource({ name: 'a' }), resource({ name: 'b' })]);
    assert.equal(chosen(decide(s, claim())), 'a');
    s.upsert(resource({ name: 'a', phase: 'Bound', boundCount: 1, claimRef: { namespace: 'x', name: 'y' } }));
    assert.equal(chosen(decide(s, claim())), 'b');
    assert.equal(s.remove(candidateKey(resource({ name: 'b' }))), true);
    assert.equal(s.remove(candidateKey(resource({ name: 'b' }))), false);
    assert.equal(decide(s, claim()).explanation.message, '0/1 candidates: 1 already bound');
    assert.equal(s.size, 1);
  });

  test('explain tells why one candidate does not fit', () => {
    const s = schedulerWith([resource({ name: 'a', capacity: { storage: '10Gi' } })]);
    const key = candidateKey(resource({ name: 'a' }));
    assert.deepEqual(s.explain(claim({ capacity: { storage: '25Gi' } }), key), {
      fits: false,
      plugin: 'Capacity',
      summary: 'insufficient storage (want 25Gi)',
      detail: 'has 10Gi',
    });
    assert.deepEqual(s.explain(claim(), key), { fits: true });
    assert.equal(s.explain(claim(), 'nope'), undefined);
  });

  test('scheduleSync refuses a configuration with extenders', async () => {
    const s = new Scheduler({ config: { profile: { extenders: [{ name: 'x', filterUrl: 'http://127.0.0.1:1/filter' }] } } });
    assert.throws(() => s.scheduleSync(claim()), /use schedule\(\)/);
    s.close();
  });
});

describe('the tie-break order', () => {
  test('compareCandidates orders as the `namespace/name` strings would, then resources first, then by key', () => {
    const part = fc.string({ unit: fc.constantFrom('a', 'b', '-', '/', '.', 'é'), maxLength: 4 });
    const cand = fc
      .record({ namespace: part, name: part, isClass: fc.boolean() })
      .map(({ namespace, name, isClass }) => (isClass ? resourceClass({ name, namespace }) : resource({ name, namespace })));
    const reference = (a: Candidate, b: Candidate): number => {
      const an = `${a.namespace}/${a.name}`;
      const bn = `${b.namespace}/${b.name}`;
      if (an !== bn) return an < bn ? -1 : 1;
      if (a.type !== b.type) return a.type === 'resource' ? -1 : 1;
      const ak = candidateKey(a);
      const bk = candidateKey(b);
      return ak < bk ? -1 : ak > bk ? 1 : 0;
    };
    fc.assert(
      fc.property(cand, cand, (a, b) => {
        assert.equal(compareCandidates(a, b), reference(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  const cases: { reason: string; a: [string, string]; b: [string, string]; want: number }[] = [
    { reason: 'same namespace: by name', a: ['ops', 'b'], b: ['ops', 'a'], want: 1 },
    { reason: 'a namespace that starts another: "-" sorts before "/"', a: ['a', 'x'], b: ['a-b', 'x'], want: 1 },
    { reason: 'namespaces differing inside', a: ['ab', 'z'], b: ['ac', 'a'], want: -1 },
    { reason: 'equal namespace/name strings tie on the name part', a: ['a', 'b'], b: ['a', 'b'], want: 0 },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const a = resource({ namespace: c.a[0], name: c.a[1] });
      const b = resource({ namespace: c.b[0], name: c.b[1] });
      assert.equal(compareCandidates(a, b), c.want);
      assert.equal(compareCandidates(b, a), -c.want || 0);
    });
  }
});

describe('run candidates skip the filters their bucket stands for', () => {
  test('a resource stating no region is still rejected when the hierarchy lists an empty region under the asked one', () => {
    const s = schedulerWith([resource({ name: 'nowhere' }), resource({ name: 'east', region: 'us-east-1' })], {
      regions: { 'north-america': ['us-east-1', ''] },
    });
    const r = decide(s, claim({ region: 'north-america' }));
    assert.equal(chosen(r), 'east');
    assert.equal(r.explanation.feasible, 1);
    assert.deepEqual(r.explanation.failures, [{ plugin: 'Region', summary: 'region mismatch (want north-america)', count: 1 }]);
  });
});
