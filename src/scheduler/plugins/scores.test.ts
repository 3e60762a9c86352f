import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScorePluginClass } from '../plugin.js';
import { claim, pluginContext, resource, resourceClass, type ContextSpec } from '../testing/index.js';
import type { Candidate, ClaimInfo } from '../types.js';
import { BinPackScore, LeastWasteScore, LocalityScore, LowestCostScore, SpreadScore, StaticFirstScore } from './index.js';

/** A Case is one score: want is 0–100, or undefined when the plugin does not score this claim. */
interface Case {
  reason: string;
  claim?: ClaimInfo;
  candidate: Candidate;
  /** The other candidates being ranked (for relative scores). */
  others?: Candidate[];
  want: number | undefined;
  ctx?: ContextSpec;
}

function run(plugin: ScorePluginClass, cases: Case[]): void {
  for (const c of cases) {
    test(c.reason, () => {
      const feasible = [c.candidate, ...(c.others ?? [])];
      const fn = new plugin(pluginContext(c.ctx)).prepare(c.claim ?? claim(), feasible);
      assert.equal(fn === undefined ? undefined : fn(c.candidate), c.want);
    });
  }
}

describe('StaticFirst', () => {
  run(StaticFirstScore, [
    { reason: 'an existing resource scores 100', candidate: resource({ name: 'r' }), want: 100 },
    { reason: 'a class scores 0', candidate: resourceClass({ name: 'c' }), want: 0 },
  ]);
});

describe('LeastWaste', () => {
  const c25 = claim({ capacity: { storage: '25Gi' } });
  run(LeastWasteScore, [
    { reason: 'an exact fit scores 100', claim: c25, candidate: resource({ name: 'r', capacity: { storage: '25Gi' } }), want: 100 },
    { reason: 'twice the size scores 50', claim: c25, candidate: resource({ name: 'r', capacity: { storage: '50Gi' } }), want: 50 },
    { reason: 'four times the size scores 25', claim: c25, candidate: resource({ name: 'r', capacity: { storage: '100Gi' } }), want: 25 },
    {
      reason: 'dimensions are averaged',
      claim: claim({ capacity: { storage: '25Gi', connections: '100' } }),
      candidate: resource({ name: 'r', capacity: { storage: '25Gi', connections: '400' } }),
      want: 63,
    },
    {
      reason: 'a Shared resource is measured against its allocatable',
      claim: c25,
      candidate: resource({ name: 'r', sharing: { mode: 'Shared' }, capacity: { storage: '1Ti' }, allocatable: { storage: '50Gi' } }),
      want: 50,
    },
    { reason: 'a class creates exactly what is asked', claim: c25, candidate: resourceClass({ name: 'c', capacity: { storage: '1Ti' } }), want: 100 },
    { reason: 'a claim asking no capacity is not scored', claim: claim(), candidate: resource({ name: 'r' }), want: undefined },
  ]);
});

describe('LowestCost', () => {
  const ctx = { costTiers: ['free-tier', 'standard', 'premium'] };
  run(LowestCostScore, [
    { reason: 'the cheapest tier scores 100', candidate: resource({ name: 'r', cost: 'free-tier' }), want: 100, ctx },
    { reason: 'the middle tier scores 50', candidate: resource({ name: 'r', cost: 'standard' }), want: 50, ctx },
    { reason: 'the dearest tier scores 0', candidate: resource({ name: 'r', cost: 'premium' }), want: 0, ctx },
    { reason: 'an unknown tier scores 0', candidate: resource({ name: 'r', cost: 'spot' }), want: 0, ctx },
    { reason: 'a single tier scores 100', candidate: resource({ name: 'r', cost: 'only' }), want: 100, ctx: { costTiers: ['only'] } },
    { reason: 'without tiers nothing is scored', candidate: resource({ name: 'r', cost: 'standard' }), want: undefined },
  ]);
});

describe('Locality', () => {
  const regions = { 'north-america': ['us-east-1'], 'us-east-1': ['us-east-1a'] };
  run(LocalityScore, [
    {
      reason: 'the exact region scores 100',
      claim: claim({ region: 'north-america' }),
      candidate: resource({ name: 'r', region: 'north-america' }),
      want: 100,
      ctx: { regions },
    },
    {
      reason: 'a child region scores 50',
      claim: claim({ region: 'north-america' }),
      candidate: resource({ name: 'r', region: 'us-east-1' }),
      want: 50,
      ctx: { regions },
    },
    {
      reason: 'a grandchild scores 33',
      claim: claim({ region: 'north-america' }),
      candidate: resource({ name: 'r', region: 'us-east-1a' }),
      want: 33,
      ctx: { regions },
    },
    {
      reason: 'with overlapping matching a parent scores 25',
      claim: claim({ region: 'us-east-1' }),
      candidate: resource({ name: 'r', region: 'north-america' }),
      want: 25,
      ctx: { regions, regionMatch: 'overlapping' },
    },
    {
      reason: 'an unrelated region scores 0',
      claim: claim({ region: 'north-america' }),
      candidate: resource({ name: 'r', region: 'eu-west-1' }),
      want: 0,
      ctx: { regions },
    },
    {
      reason: 'a claim asking no region is not scored',
      claim: claim(),
      candidate: resource({ name: 'r', region: 'eu-west-1' }),
      want: undefined,
      ctx: { regions },
    },
  ]);
});

describe('Spread and BinPack', () => {
  const usage = { providerUsage: { 'p/aws': 10, 'p/gcp': 5, 'p/idle': 0 } };
  const aws = resource({ name: 'a', provider: 'p/aws' });
  const gcp = resource({ name: 'g', provider: 'p/gcp' });
  const idle = resourceClass({ name: 'i', provider: 'p/idle' });
  describe('Spread', () => {
    run(SpreadScore, [
      { reason: 'the busiest provider scores 0', candidate: aws, others: [gcp, idle], want: 0, ctx: usage },
      { reason: 'half as busy scores 50', candidate: gcp, others: [aws, idle], want: 50, ctx: usage },
      { reason: 'an idle provider scores 100', candidate: idle, others: [aws, gcp], want: 100, ctx: usage },
      { reason: 'busyness is relative to the providers being ranked', candidate: gcp, others: [idle], want: 0, ctx: usage },
      { reason: 'all idle: all 100', candidate: idle, others: [resource({ name: 'x' })], want: 100 },
    ]);
  });
  describe('BinPack', () => {
    run(BinPackScore, [
      { reason: 'the busiest provider scores 100', candidate: aws, others: [gcp, idle], want: 100, ctx: usage },
      { reason: 'half as busy scores 50', candidate: gcp, others: [aws, idle], want: 50, ctx: usage },
      { reason: 'an idle provider scores 0', candidate: idle, others: [aws], want: 0, ctx: usage },
      { reason: 'all idle: all 0', candidate: idle, others: [resource({ name: 'x' })], want: 0 },
    ]);
  });
});
