import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { allocatable, resizeExclusive } from './capacity.js';

const resource = (capacity?: Record<string, string>): KObject => ({
  apiVersion: 'database.local.conductor.io/v1alpha1',
  kind: 'LocalPostgreSQLInstance',
  metadata: { name: 'r', namespace: 'conductor-system' },
  spec: capacity ? { capabilities: { capacity } } : {},
});

describe('allocatable', () => {
  const cases = [
    { reason: 'no bindings leaves the whole capacity', cap: { storage: '100Gi' }, bindings: [], want: { storage: '100Gi' } },
    {
      reason: 'requests are subtracted',
      cap: { storage: '100Gi' },
      bindings: [{ requests: { storage: '25Gi' } }, { requests: { storage: '5Gi' } }],
      want: { storage: '70Gi' },
    },
    { reason: 'bindings without requests take nothing', cap: { storage: '10Gi' }, bindings: [{}], want: { storage: '10Gi' } },
    { reason: 'over-commitment shows as negative', cap: { storage: '1Gi' }, bindings: [{ requests: { storage: '2Gi' } }], want: { storage: '-1Gi' } },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(allocatable(resource(c.cap), c.bindings), c.want));
  test('a resource without capacity has no allocatable', () => assert.equal(allocatable(resource(), []), undefined));
});

describe('resizeExclusive', () => {
  test('enough capacity needs nothing', () => {
    assert.deepEqual(resizeExclusive(resource({ storage: '50Gi' }), { storage: '20Gi' }, undefined, true), { type: 'none' });
  });
  test('a provisioned resource grows to the request', () => {
    assert.deepEqual(resizeExclusive(resource({ storage: '10Gi' }), { storage: '20Gi' }, { storage: '100Gi' }, true), {
      type: 'grow',
      capacity: { storage: '20Gi' },
    });
  });
  test('beyond the class limit it cannot grow, and says why', () => {
    const v = resizeExclusive(resource({ storage: '10Gi' }), { storage: '200Gi' }, { storage: '100Gi' }, true);
    assert.equal(v.type, 'cannot');
    assert.match((v as { reason: string }).reason, /class allows at most 100Gi/);
  });
  test('a static resource cannot grow', () => {
    const v = resizeExclusive(resource({ storage: '10Gi' }), { storage: '20Gi' }, undefined, false);
    assert.equal(v.type, 'cannot');
  });
});
