import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RegionHierarchy } from './region-hierarchy.js';
import { TierOrder } from './tier-order.js';

describe('RegionHierarchy', () => {
  const h = new RegionHierarchy({
    world: ['north-america', 'Europe'],
    'north-america': ['us-east-1', 'us-west-2'],
    europe: ['eu-west-1'],
    // A region listed under two parents, and a cycle, are tolerated.
    'us-west-2': ['north-america'],
  });

  const accepted: { reason: string; asked: string; mode: 'contained' | 'overlapping'; want: Record<string, number> }[] = [
    { reason: 'a leaf accepts itself only', asked: 'eu-west-1', mode: 'contained', want: { 'eu-west-1': 0 } },
    { reason: 'a continent accepts its regions', asked: 'Europe', mode: 'contained', want: { europe: 0, 'eu-west-1': 1 } },
    {
      reason: 'the top accepts everything below with depths',
      asked: 'world',
      mode: 'contained',
      want: { world: 0, 'north-america': 1, europe: 1, 'us-east-1': 2, 'us-west-2': 2, 'eu-west-1': 2 },
    },
    { reason: 'overlapping adds ancestors as negative distances', asked: 'eu-west-1', mode: 'overlapping', want: { 'eu-west-1': 0, europe: -1, world: -2 } },
    { reason: 'an unknown region accepts itself', asked: 'mars', mode: 'overlapping', want: { mars: 0 } },
  ];
  for (const c of accepted) test(c.reason, () => assert.deepEqual(Object.fromEntries(h.accepted(c.asked, c.mode)), c.want));

  test('a cycle ends: us-west-2 → north-america → us-west-2', () => {
    assert.deepEqual(Object.fromEntries(h.descendants('us-west-2')), { 'north-america': 1, 'us-east-1': 2 });
  });
});

describe('TierOrder', () => {
  const t = new TierOrder(['free-tier', 'Standard', 'premium']);
  const cases: { reason: string; offered: string | undefined; asked: string; want: number | undefined }[] = [
    { reason: 'earlier is negative', offered: 'free-tier', asked: 'premium', want: -2 },
    { reason: 'same is 0, case-insensitively', offered: 'standard', asked: 'STANDARD', want: 0 },
    { reason: 'later is positive', offered: 'premium', asked: 'standard', want: 1 },
    { reason: 'unknown names equal to each other compare as same', offered: 'spot', asked: 'Spot', want: 0 },
    { reason: 'an unknown name is not comparable', offered: 'spot', asked: 'standard', want: undefined },
    { reason: 'nothing offered is not comparable', offered: undefined, asked: 'standard', want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(t.compare(c.offered, c.asked), c.want));
});
