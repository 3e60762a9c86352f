import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import { brokenShareOf, describeBrokenShares, withBrokenShares } from './broken-shares.js';

const at = new Date('2026-11-21T10:00:00Z');
const broken = [
  { claim: { namespace: 'app', name: 'orders', uid: 'u1' }, missing: 'database app_orders' },
  { claim: { namespace: 'app', name: 'cache' }, missing: 'ACL user app_cache' },
];

describe('broken shares', () => {
  test('withBrokenShares adds the list and the time to atProvider, and leaves it alone when there are none', () => {
    const atProvider = { version: '16' };
    assert.equal(withBrokenShares(atProvider, [], at), atProvider);
    assert.equal(withBrokenShares(atProvider, undefined, at), atProvider);
    assert.equal(withBrokenShares(undefined, [], at), undefined);
    assert.deepEqual(withBrokenShares(atProvider, broken, at), {
      version: '16',
      brokenShares: [
        { claim: 'app/orders', uid: 'u1', missing: 'database app_orders' },
        { claim: 'app/cache', missing: 'ACL user app_cache' },
      ],
      brokenSharesObservedAt: '2026-11-21T10:00:00.000Z',
    });
    assert.deepEqual(atProvider, { version: '16' }, 'the observation is not changed');
  });

  test('describeBrokenShares names each claim and what it lacks', () => {
    assert.equal(describeBrokenShares(broken), 'claim app/orders: database app_orders missing; claim app/cache: ACL user app_cache missing');
  });

  test('brokenShareOf finds a claim by namespace/name, and by uid when one is recorded', () => {
    const resource: KObject = { apiVersion: 'v', kind: 'K', metadata: { name: 'r' }, status: { atProvider: withBrokenShares({}, broken, at)! } };
    const claim = (name: string, uid: string): KObject => ({ apiVersion: 'v', kind: 'C', metadata: { namespace: 'app', name, uid } });
    assert.equal(brokenShareOf(resource, claim('orders', 'u1'))?.missing, 'database app_orders');
    assert.equal(brokenShareOf(resource, claim('orders', 'another')), undefined, 'a claim of the same name recreated since');
    assert.equal(brokenShareOf(resource, claim('cache', 'any'))?.missing, 'ACL user app_cache');
    assert.equal(brokenShareOf(resource, claim('other', 'u3')), undefined);
    assert.equal(brokenShareOf({ apiVersion: 'v', kind: 'K', metadata: { name: 'r' } }, claim('orders', 'u1')), undefined);
    assert.equal(
      brokenShareOf({ apiVersion: 'v', kind: 'K', metadata: { name: 'r' }, status: { atProvider: { brokenShares: 'garbage' } } }, claim('orders', 'u1')),
      undefined,
    );
  });
});
