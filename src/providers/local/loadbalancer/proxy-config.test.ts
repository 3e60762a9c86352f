import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { configHash, parseProxyConfig, renderProxyConfig } from './proxy-config.js';

describe('proxy config', () => {
  test('render and parse round-trip', () => {
    const port = fc.integer({ min: 1, max: 65535 });
    const backend = fc.record({ host: fc.oneof(fc.ipV4(), fc.domain()), port });
    fc.assert(
      fc.property(fc.record({ listen: fc.record({ host: fc.ipV4(), port }), backends: fc.array(backend, { maxLength: 5 }) }), (config) => {
        assert.deepEqual(parseProxyConfig(renderProxyConfig(config)), JSON.parse(JSON.stringify(config)));
      }),
    );
  });

  const bad: { reason: string; text: string; want: RegExp }[] = [
    { reason: 'not JSON', text: '{', want: /not JSON/ },
    { reason: 'no listen', text: '{"backends": []}', want: /lacks "listen"/ },
    { reason: 'listen port out of range', text: '{"listen": {"host": "h", "port": 0}, "backends": []}', want: /"listen" needs a host string and a port/ },
    { reason: 'backends not a list', text: '{"listen": {"host": "h", "port": 1}, "backends": {}}', want: /"backends" must be a list/ },
    { reason: 'a backend without host', text: '{"listen": {"host": "h", "port": 1}, "backends": [{"port": 2}]}', want: /backends\[0\] needs a host/ },
  ];
  for (const c of bad) test(`rejects ${c.reason}`, () => assert.throws(() => parseProxyConfig(c.text), c.want));

  test('the hash changes with the text', () => {
    assert.equal(configHash('a'), configHash('a'));
    assert.notEqual(configHash('a'), configHash('b'));
  });
});
