import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../../machinery/object.js';
import type { MatchCandidate } from '../../spi.js';
import type { LocalRedisInstance, RedisServer } from './kinds.js';
import { configureLocalRedis, localRedisMatcher, matchRedisServer } from './matchers.js';
import { fixture } from '../../testing.js';

const claim = (spec: Record<string, unknown>): KObject => ({
  apiVersion: 'cache.conductor.io/v1alpha1',
  kind: 'RedisCluster',
  metadata: { name: 'c', namespace: 'n' },
  spec,
});
const server = (atProvider?: Record<string, string>, version?: string): MatchCandidate<RedisServer> => ({
  type: 'resource',
  resource: fixture<RedisServer>({
    apiVersion: 'x',
    kind: 'RedisServer',
    metadata: { name: 's' },
    spec: { host: 'h', ...(version ? { version } : {}) },
    ...(atProvider ? { status: { atProvider } } : {}),
  }),
});
const instance = (spec: Record<string, unknown>): MatchCandidate<LocalRedisInstance> => ({
  type: 'resource',
  resource: fixture<LocalRedisInstance>({ apiVersion: 'x', kind: 'LocalRedisInstance', metadata: { name: 'i' }, spec }),
});
const cls = (spec: Record<string, unknown> = {}): MatchCandidate<LocalRedisInstance> => ({
  type: 'class',
  resourceClass: { apiVersion: 'x', kind: 'ResourceClass', metadata: { name: 'c' } },
  template: { apiVersion: 'x', kind: 'LocalRedisInstance', spec: spec as never },
});

describe('matchRedisServer', () => {
  const cases = [
    { reason: 'no wishes fit', claim: {}, candidate: server({ version: '7.0.15' }), fits: true },
    { reason: 'observed version satisfies the range', claim: { version: '>= 7' }, candidate: server({ version: '7.0.15' }), fits: true },
    { reason: 'observed version below the range', claim: { version: '>= 8' }, candidate: server({ version: '7.0.15' }), fits: false },
    { reason: 'unknown version cannot satisfy a range', claim: { version: '7' }, candidate: server(), fits: false },
    { reason: "the admin's version is used before observation", claim: { version: '7' }, candidate: server(undefined, '7'), fits: true },
    {
      reason: "eviction policy must equal the server's",
      claim: { evictionPolicy: 'allkeys-lru' },
      candidate: server({ evictionPolicy: 'noeviction' }),
      fits: false,
    },
    { reason: 'the same eviction policy fits', claim: { evictionPolicy: 'allkeys-lru' }, candidate: server({ evictionPolicy: 'allkeys-lru' }), fits: true },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(matchRedisServer(claim(c.claim), c.candidate).fits, c.fits));
  test('a class cannot provide a registered server', () => {
    assert.equal(matchRedisServer(claim({}), cls() as unknown as MatchCandidate<RedisServer>).fits, false);
  });
});

describe('localRedisMatcher', () => {
  const match = localRedisMatcher('7.0.15');
  const cases = [
    { reason: 'a class fits a range the binary satisfies', claim: { version: '7' }, candidate: cls(), fits: true },
    { reason: 'a class does not fit a range the binary misses', claim: { version: '>= 8' }, candidate: cls(), fits: false },
    { reason: 'a class pinning another version does not fit', claim: {}, candidate: cls({ version: '6' }), fits: false },
    { reason: 'an instance with another eviction policy does not fit', claim: { evictionPolicy: 'allkeys-lru' }, candidate: instance({}), fits: false },
    {
      reason: 'an instance with that policy fits',
      claim: { evictionPolicy: 'allkeys-lru' },
      candidate: instance({ evictionPolicy: 'allkeys-lru' }),
      fits: true,
    },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(match(claim(c.claim), c.candidate).fits, c.fits));
  test('without redis-server no class fits', () => assert.equal(localRedisMatcher(undefined)(claim({}), cls()).fits, false));
});

describe('configureLocalRedis', () => {
  test("the claim's policy, range and requests go over the template, which is not changed", () => {
    const template = { apiVersion: 'x', kind: 'LocalRedisInstance', spec: { evictionPolicy: 'noeviction', capabilities: { region: 'eu' } } };
    const spec = configureLocalRedis(
      claim({ evictionPolicy: 'allkeys-lru', version: '>= 7', requirements: { capacity: { memory: '1Gi' }, region: 'us', cost: 'free' } }),
      template,
    );
    assert.deepEqual(spec, { evictionPolicy: 'allkeys-lru', version: '>= 7', capabilities: { region: 'eu', capacity: { memory: '1Gi' }, cost: 'free' } });
    assert.equal(template.spec.evictionPolicy, 'noeviction');
  });
});
