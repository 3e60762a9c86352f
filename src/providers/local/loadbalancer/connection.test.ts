import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLoadBalancerConnection, listenerDetails } from './connection.js';

describe('load balancer connection details', () => {
  test('listenerDetails gives address, port and an http url', () => {
    assert.deepEqual(listenerDetails('127.0.0.1', 8080), { address: '127.0.0.1', port: '8080', url: 'http://127.0.0.1:8080' });
    assert.equal(listenerDetails('::1', 80).url, 'http://[::1]:80');
  });

  const cases: { reason: string; input: Record<string, string>; want: Record<string, string> | RegExp }[] = [
    {
      reason: 'keeps exactly the documented keys',
      input: { address: 'a', port: '1', url: 'http://a:1', extra: 'x' },
      want: { address: 'a', port: '1', url: 'http://a:1' },
    },
    { reason: 'builds a missing url', input: { address: 'a', port: '2' }, want: { address: 'a', port: '2', url: 'http://a:2' } },
    { reason: 'a missing port fails', input: { address: 'a' }, want: /lack port/ },
    { reason: 'a bad port fails', input: { address: 'a', port: 'x' }, want: /port "x": want an integer/ },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.want instanceof RegExp) assert.throws(() => formatLoadBalancerConnection(c.input), c.want);
      else assert.deepEqual(formatLoadBalancerConnection(c.input), c.want);
    });
  }
});
