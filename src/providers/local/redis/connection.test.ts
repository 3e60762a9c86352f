import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatRedisConnection, redisUri } from './connection.js';
import { parseRedisVersion } from './binaries.js';
import { aclRules, derivePassword, globEscape, parseInfo } from './admin.js';

describe('formatRedisConnection', () => {
  const cases: { reason: string; input: Record<string, string>; want: Record<string, string> }[] = [
    {
      reason: 'full details pass through with a uri',
      input: { host: 'h', port: '1', username: 'u', password: 'p', keyPrefix: 'u:' },
      want: { host: 'h', port: '1', username: 'u', password: 'p', keyPrefix: 'u:', uri: 'redis://u:p@h:1' },
    },
    {
      reason: 'no user means the default user; no prefix stays absent',
      input: { host: 'h', port: '2', password: 'p' },
      want: { host: 'h', port: '2', username: 'default', password: 'p', uri: 'redis://default:p@h:2' },
    },
    {
      reason: 'unknown keys are dropped',
      input: { host: 'h', port: '3', password: 'p', extra: 'x' },
      want: { host: 'h', port: '3', username: 'default', password: 'p', uri: 'redis://default:p@h:3' },
    },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(formatRedisConnection(c.input), c.want));
  test('a missing password or a bad port is an error', () => {
    assert.throws(() => formatRedisConnection({ host: 'h', port: '1' }), /lack password/);
    assert.throws(() => formatRedisConnection({ host: 'h', port: '70000', password: 'p' }), /port "70000"/);
  });
  test('property: the uri gives back user, password, host and port', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.integer({ min: 1, max: 65535 }), (user, password, port) => {
        const url = new URL(redisUri({ host: '127.0.0.1', port, username: user, password }));
        assert.equal(decodeURIComponent(url.username), user);
        assert.equal(decodeURIComponent(url.password), password);
        assert.equal(url.port, port === 80 ? '' : String(port));
      }),
    );
  });
});

describe('Redis admin helpers', () => {
  test('parseRedisVersion reads redis-server --version', () => {
    assert.equal(parseRedisVersion('Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64'), '7.0.15');
    assert.equal(parseRedisVersion('nothing here'), undefined);
  });
  test('parseInfo reads field:value lines and skips sections', () => {
    assert.deepEqual(
      [...parseInfo('# Server\r\nredis_version:7.0.15\r\nmode:standalone\r\n')],
      [
        ['redis_version', '7.0.15'],
        ['mode', 'standalone'],
      ],
    );
  });
  test('aclRules limit keys and channels to the prefix and drop commands that ignore key patterns', () => {
    const rules = aclRules('pw', 'ns_a_1:', '7.0.15');
    assert.deepEqual(rules.slice(0, 9), ['reset', 'on', '>pw', '~ns_a_1:*', '&ns_a_1:*', '+@all', '-@dangerous', '-@admin', '-@scripting']);
    for (const r of ['-scan', '-randomkey', '-dbsize', '-pubsub', '-client', '+eval_ro']) assert.ok(rules.includes(r), r);
    assert.ok(!rules.includes('+client|setinfo'), 'CLIENT SETINFO is unknown before Redis 7.2');
    assert.ok(aclRules('pw', 'p:', '7.2.4').includes('+client|setinfo'));
    assert.ok(!aclRules('pw', 'p:', '6.2.0').includes('+eval_ro'), 'EVAL_RO is unknown before Redis 7');
  });
  test('globEscape makes glob characters literal', () => assert.equal(globEscape('a*b?[c]\\'), 'a\\*b\\?\\[c\\]\\\\'));
  test('derivePassword is stable for the same inputs and differs otherwise', () => {
    assert.equal(derivePassword('s', 'x'), derivePassword('s', 'x'));
    assert.notEqual(derivePassword('s', 'x'), derivePassword('s', 'y'));
    assert.notEqual(derivePassword('s', 'x'), derivePassword('t', 'x'));
    assert.match(derivePassword('s', 'x'), /^[A-Za-z0-9_-]{32}$/);
  });
});
