import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failureDetail } from './plugin.js';
import { CostFilter } from './plugins/cost.js';
import { LowestCostScore } from './plugins/lowest-cost.js';
import { PriceMemo, pricesMessage } from './prices.js';
import { Scheduler } from './scheduler.js';
import { claim, pluginContext, resource, resourceClass } from './testing/index.js';
import type { Candidate, CandidatePrice, CandidatePricer, ClaimInfo } from './types.js';

const USD = (amount: number): CandidatePrice => ({ amount, currency: 'USD' });

/** A pricer from a table of candidate names (a class's price may depend on the claim's storage: `perGi`). */
function tablePricer(table: Record<string, CandidatePrice | { perGi: number }>, calls: string[] = []): CandidatePricer {
  return (cl: ClaimInfo, c: Candidate) => {
    calls.push(`${c.name}:${cl.requirements.capacity['storage']?.toString() ?? ''}`);
    const p = table[c.name];
    if (p === undefined) return { note: `${c.name} has no price` };
    if ('perGi' in p) return USD((p.perGi * (cl.requirements.capacity['storage']?.toNumber() ?? 0)) / 2 ** 30);
    return p;
  };
}

const limit = (amount: number, currency = 'USD') => ({ amount, currency });

describe('PriceMemo', () => {
  test('asks once per candidate and claim size, and lists what a claim compared, chosen first then cheapest first', () => {
    const calls: string[] = [];
    const memo = new PriceMemo(tablePricer({ a: USD(5), b: { perGi: 1 }, c: USD(1) }, calls));
    const [a, b, c] = [resourceClass({ name: 'a' }), resourceClass({ name: 'b' }), resourceClass({ name: 'c' })];
    const small = claim({ capacity: { storage: '2Gi' } });
    const again = claim({ capacity: { storage: '2Gi' }, name: 'other' });
    const big = claim({ capacity: { storage: '10Gi' } });
    for (const x of [a, b, c]) memo.priceOf(small, x);
    for (const x of [a, b, c]) memo.priceOf(again, x);
    assert.equal(memo.priceOf(big, b).amount, 10);
    assert.deepEqual(calls, ['a:2Gi', 'b:2Gi', 'c:2Gi', 'b:10Gi'], 'a second claim of the same size is priced from memory');
    assert.deepEqual(
      memo.compared(small, a).listed.map((p) => `${p.candidate} ${p.price.amount ?? '-'}${p.chosen ? ' chosen' : ''}`),
      ['conductor-system/a 5 chosen', 'conductor-system/c 1', 'conductor-system/b 2'],
    );
  });

  test('compared lists the chosen and the cheapest few of many, counts the rest, and forgets them', () => {
    const table: Record<string, CandidatePrice> = {};
    const classes = Array.from({ length: 20 }, (_, i) => resourceClass({ name: `c${String(i).padStart(2, '0')}` }));
    // c19 is the cheapest, c00 the dearest; c05 and c06 cost the same; c10 has no price.
    classes.forEach((c, i) => (table[c.name] = i === 10 ? { note: 'none' } : USD(i === 6 ? 100 - 5 : 100 - i)));
    const memo = new PriceMemo(tablePricer(table));
    const cl = claim();
    for (const c of classes) memo.priceOf(cl, c);
    const { listed, total } = memo.compared(cl, classes[0]);
    assert.equal(total, 20);
    assert.deepEqual(
      listed.map((p) => `${p.candidate.replace('conductor-system/', '')} ${p.price.amount ?? '-'}${p.chosen ? ' chosen' : ''}`),
      ['c00 100 chosen', 'c19 81', 'c18 82', 'c17 83', 'c16 84', 'c15 85', 'c14 86', 'c13 87', 'c12 88'],
    );
    assert.match(pricesMessage(listed, undefined, total), /, 11 more$/);
    assert.deepEqual(memo.compared(cl, classes[0]), { listed: [], total: 0 }, "a decision's prices are forgotten once listed");
    // Of equal prices, the first priced is listed; the unpriced come last.
    const few = claim({ name: 'few' });
    for (const c of [classes[10], classes[6], classes[5]]) memo.priceOf(few, c);
    assert.deepEqual(
      memo.compared(few, undefined, 1).listed.map((p) => p.candidate),
      ['conductor-system/c06'],
    );
    assert.deepEqual(
      memo.compared(few).listed.map((p) => p.candidate),
      [],
      'forgotten after the first listing',
    );
  });

  test('a pricer that throws gives a note, not a crash; without a pricer nothing has a price', () => {
    const memo = new PriceMemo(() => {
      throw new Error('table unreadable');
    });
    assert.deepEqual(memo.priceOf(claim(), resourceClass({ name: 'a' })), { note: 'cannot be priced: table unreadable' });
    assert.equal(new PriceMemo().priceOf(claim(), resourceClass({ name: 'a' })).amount, undefined);
  });

  test('pricesMessage names the chosen price, the others and which are over the limit', () => {
    const words = pricesMessage(
      [
        { candidate: 'ns/s3', type: 'class', price: USD(0.25), chosen: true },
        { candidate: 'ns/local', type: 'class', price: USD(0) },
        { candidate: 'ns/spanner', type: 'class', price: USD(65.7) },
        { candidate: 'ns/sqs', type: 'class', price: { note: 'per request' } },
      ],
      limit(50),
    );
    assert.equal(words, "monthly prices: chose ns/s3 0.25 USD; compared: ns/local 0.00 USD, ns/spanner 65.70 USD (over the claim's 50 USD), ns/sqs no price");
    assert.equal(pricesMessage([], undefined), '');
  });
});

describe('Cost filter: requirements.maxMonthlyPrice', () => {
  const ctx = pluginContext({ pricer: tablePricer({ cheap: USD(20), dear: USD(73), euro: { amount: 10, currency: 'EUR' }, exact: USD(50) }) });
  const cases: { reason: string; candidate: string; limit: { amount: number; currency: string }; want?: { summary: string; detail: string } }[] = [
    { reason: 'under the limit fits', candidate: 'cheap', limit: limit(50) },
    { reason: 'exactly the limit fits', candidate: 'exact', limit: limit(50) },
    {
      reason: "above the limit, said in the claim's terms",
      candidate: 'dear',
      limit: limit(50),
      want: { summary: 'monthly price above 50 USD', detail: 'costs 73.00 USD/month; the claim allows 50 USD' },
    },
    {
      reason: 'another currency is not compared',
      candidate: 'euro',
      limit: limit(50),
      want: { summary: "priced in EUR, the claim's limit is in USD", detail: 'costs 10.00 EUR/month; prices are compared in one currency only' },
    },
    { reason: 'a limit in the same currency compares', candidate: 'euro', limit: limit(12, 'EUR') },
    {
      reason: 'no price does not fit a claim with a limit',
      candidate: 'unknown',
      limit: limit(50),
      want: { summary: 'no monthly price (the claim allows 50 USD)', detail: 'unknown has no price' },
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const f = new CostFilter(ctx).prepare(claim({ maxMonthlyPrice: c.limit }))!;
      const got = f(resourceClass({ name: c.candidate }));
      assert.deepEqual(got === undefined ? undefined : { summary: got.summary, detail: failureDetail(got) }, c.want);
    });
  }

  test('a tier and a limit both apply; neither asked: no filter', () => {
    const both = new CostFilter(pluginContext({ costTiers: ['free', 'paid'], pricer: tablePricer({ cheap: USD(1) }) })).prepare(
      claim({ cost: 'free', maxMonthlyPrice: limit(5) }),
    )!;
    assert.equal(both(resourceClass({ name: 'cheap', cost: 'free' })), undefined);
    assert.equal(both(resourceClass({ name: 'cheap', cost: 'paid' }))?.summary, 'cost above free');
    assert.equal(new CostFilter(ctx).prepare(claim()), undefined);
  });
});

describe('LowestCost score by price', () => {
  const pricer = tablePricer({ a: USD(0), b: USD(50), c: USD(100), e: { amount: 1, currency: 'EUR' } });
  const score = (names: string[], tiers: string[] = []) => {
    const feasible = names.map((name) => resourceClass({ name, cost: 'standard' }));
    const fn = new LowestCostScore(pluginContext({ pricer, costTiers: tiers })).prepare(claim(), feasible);
    return fn === undefined ? undefined : feasible.map((c) => fn(c));
  };
  test('cheapest 100, dearest 0, linear between', () => assert.deepEqual(score(['a', 'b', 'c']), [100, 50, 0]));
  test('all the same price: all 100', () => assert.deepEqual(score(['b']), [100]));
  test('one without a price: tiers as before', () => assert.deepEqual(score(['a', 'x'], ['standard', 'premium']), [100, 100]));
  test('two currencies: tiers as before, or no score without tiers', () => {
    assert.deepEqual(score(['a', 'e'], ['free-tier', 'standard']), [0, 0]);
    assert.equal(score(['a', 'e']), undefined);
  });
});

describe('the scheduler with prices', () => {
  const pricer = tablePricer({ local: USD(0), s3: { perGi: 0.025 }, blob: { perGi: 0.02 }, spanner: USD(65.7) });
  const classes = ['local', 's3', 'blob', 'spanner'].map((name) =>
    resourceClass({ name, profile: 'bucket', region: name === 'local' ? 'on-prem' : 'us-east-1' }),
  );
  const scheduler = () => {
    const s = new Scheduler({ pricer, config: { costTiers: ['free-tier', 'standard'] } });
    for (const c of classes) s.upsert(c);
    return s;
  };

  test('the cheapest class wins and the Scheduled message lists the prices compared', () => {
    const r = scheduler().scheduleSync(claim({ resourceClass: 'bucket', capacity: { storage: '10Gi' } }));
    assert.equal(r.decision.type === 'class' && r.decision.candidate.name, 'local');
    assert.match(
      r.explanation.message,
      /; monthly prices: chose conductor-system\/local 0\.00 USD; compared: conductor-system\/blob 0\.20 USD, conductor-system\/s3 0\.25 USD, conductor-system\/spanner 65\.70 USD$/,
    );
    assert.equal(r.explanation.prices?.[0].chosen, true);
  });

  test('a region and a limit: the dearer in-region class over the limit is rejected with its price', () => {
    const r = scheduler().scheduleSync(claim({ resourceClass: 'bucket', region: 'us-east-1', capacity: { storage: '10Gi' }, maxMonthlyPrice: limit(0.22) }));
    assert.equal(r.decision.type === 'class' && r.decision.candidate.name, 'blob');
    assert.match(r.explanation.message, /rejected: .*2 monthly price above 0\.22 USD/);
    assert.match(r.explanation.message, /chose conductor-system\/blob 0\.20 USD; compared: conductor-system\/s3 0\.25 USD \(over the claim's 0\.22 USD\)/);
  });

  test('nothing affordable: pending, the message says the prices it compared', () => {
    const r = scheduler().scheduleSync(claim({ resourceClass: 'bucket', region: 'us-east-1', capacity: { storage: '10Gi' }, maxMonthlyPrice: limit(0.1) }));
    assert.equal(r.decision.type, 'none');
    assert.match(r.explanation.message, /^0\/4 candidates: 3 monthly price above 0\.10 USD, 1 region/);
    assert.match(r.explanation.message, /monthly prices: compared: conductor-system\/blob 0\.20 USD \(over the claim's 0\.10 USD\)/);
  });

  test('a resource still wins over cheaper classes (StaticFirst), and its price is listed', () => {
    const s = scheduler();
    s.upsert(resource({ name: 'existing', profile: 'bucket', region: 'us-east-1', capacity: { storage: '100Gi' } }));
    const r = s.scheduleSync(claim({ resourceClass: 'bucket', capacity: { storage: '10Gi' } }));
    assert.equal(r.decision.type === 'resource' && r.decision.candidate.name, 'existing');
    assert.match(r.explanation.message, /chose RDSInstance conductor-system\/existing no price/);
  });
});
