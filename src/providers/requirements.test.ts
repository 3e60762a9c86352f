import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '../machinery/object.js';
import { capabilitiesWithRequirements } from './requirements.js';

describe('capabilitiesWithRequirements', () => {
  const cases: Array<{ reason: string; caps: JsonValue | undefined; reqs: Record<string, unknown> | undefined; want: JsonValue }> = [
    { reason: "no requirements: the template's capabilities (a copy)", caps: { region: 'us-east-1' }, reqs: undefined, want: { region: 'us-east-1' } },
    {
      reason: "capacity requests replace the template's, dimension by dimension",
      caps: { capacity: { storage: '50Gi', memory: '1Gi' } },
      reqs: { capacity: { storage: '10Gi' } },
      want: { capacity: { storage: '10Gi', memory: '1Gi' } },
    },
    {
      reason: 'region and tiers fill in what the template leaves open',
      caps: { cost: 'premium' },
      reqs: { region: 'north-america', cost: 'free-tier', performance: 'standard' },
      want: { cost: 'premium', region: 'north-america', performance: 'standard' },
    },
    { reason: 'non-string requirements are ignored', caps: undefined, reqs: { region: 5, capacity: { storage: true } }, want: { capacity: {} } },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const before = structuredClone(c.caps);
      assert.deepEqual(capabilitiesWithRequirements(c.caps, c.reqs), c.want);
      assert.deepEqual(c.caps, before, 'the template is not changed');
    });
  }
});
