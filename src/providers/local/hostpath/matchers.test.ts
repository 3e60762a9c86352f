import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../../machinery/object.js';
import { configureHostPathPool, matchHostPathPool } from './matchers.js';
import type { HostPathPool } from './kinds.js';
import { fixture } from '../../testing.js';

const claim = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'Volume',
  metadata: { namespace: 'a', name: 'b' },
  spec,
});
const pool = (spec: Record<string, unknown> = {}): HostPathPool =>
  fixture<HostPathPool>({
    apiVersion: 'storage.local.conductor.io/v1alpha1',
    kind: 'HostPathPool',
    metadata: { namespace: 's', name: 'p' },
    spec: { root: '/srv', ...spec },
  });

describe('matchHostPathPool', () => {
  const cases: { reason: string; claim: Record<string, unknown>; pool: HostPathPool; want: true | RegExp }[] = [
    { reason: 'a plain claim fits', claim: {}, pool: pool(), want: true },
    { reason: 'either access mode fits', claim: { accessMode: 'ReadWriteMany' }, pool: pool(), want: true },
    { reason: 'the same filesystem fits, case aside', claim: { filesystem: 'EXT4' }, pool: pool({ filesystem: 'ext4' }), want: true },
    { reason: 'another filesystem does not', claim: { filesystem: 'xfs' }, pool: pool({ filesystem: 'ext4' }), want: /pool filesystem is "ext4"/ },
    { reason: 'a pool declaring no filesystem does not fit a claim naming one', claim: { filesystem: 'xfs' }, pool: pool(), want: /declares none/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const got = matchHostPathPool(claim(c.claim), { type: 'resource', resource: c.pool });
      if (c.want === true) assert.equal(got.fits, true);
      else assert.match(got.fits ? '' : got.reason, c.want);
    });
  }

  test('a class is never a candidate', () => {
    const got = matchHostPathPool(claim({}), { type: 'class', resourceClass: pool(), template: { apiVersion: 'v', kind: 'HostPathPool' } });
    assert.equal(got.fits, false);
    assert.throws(() => configureHostPathPool(), /cannot be provisioned/);
  });
});
