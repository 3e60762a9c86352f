import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { healthAnswer, type HealthChecks } from './health.js';

const q = (s = '') => new URLSearchParams(s);
const passing: HealthChecks = [
  ['ping', () => undefined],
  ['etcd', () => Promise.resolve(undefined)],
];
const failing: HealthChecks = [
  ['ping', () => undefined],
  ['etcd', () => Promise.resolve('etcd is unreachable')],
  [
    'throws',
    () => {
      throw new Error('boom');
    },
  ],
];

describe('healthAnswer', () => {
  const cases: Array<{ reason: string; path: string; query?: string; checks: HealthChecks; code: number; body: string }> = [
    { reason: 'healthy, short', path: '/readyz', checks: passing, code: 200, body: 'ok' },
    { reason: 'healthy, verbose', path: '/readyz', query: 'verbose', checks: passing, code: 200, body: '[+]ping ok\n[+]etcd ok\nreadyz check passed\n' },
    { reason: 'verbose with a value', path: '/livez', query: 'verbose=1', checks: passing, code: 200, body: '[+]ping ok\n[+]etcd ok\nlivez check passed\n' },
    {
      reason: 'failing, short: the failures only',
      path: '/readyz',
      checks: failing,
      code: 503,
      body: '[-]etcd failed: etcd is unreachable\n[-]throws failed: boom\nreadyz check failed\n',
    },
    {
      reason: 'failing, verbose',
      path: '/readyz',
      query: 'verbose',
      checks: failing,
      code: 503,
      body: '[+]ping ok\n[-]etcd failed: etcd is unreachable\n[-]throws failed: boom\nreadyz check failed\n',
    },
    {
      reason: 'excluded checks are not run',
      path: '/readyz',
      query: 'verbose&exclude=etcd&exclude=throws',
      checks: failing,
      code: 200,
      body: '[+]ping ok\n[+]etcd excluded: ok\n[+]throws excluded: ok\nreadyz check passed\n',
    },
    { reason: 'one check, passing', path: '/readyz/ping', checks: failing, code: 200, body: 'ok' },
    { reason: 'one check, trailing slash', path: '/readyz/ping/', checks: failing, code: 200, body: 'ok' },
    { reason: 'one check, failing', path: '/readyz/etcd', checks: failing, code: 503, body: 'internal server error: etcd is unreachable' },
    { reason: 'an unknown check', path: '/readyz/nope', checks: passing, code: 404, body: 'no readyz check named "nope"; checks: ping, etcd' },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const endpoint = c.path.split('/')[1];
      assert.deepEqual(await healthAnswer(endpoint, c.path, q(c.query), c.checks), { code: c.code, body: c.body });
    });
  }
});
