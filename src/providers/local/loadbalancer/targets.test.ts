import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatBackend, parseAddress, refusedByResolution, resolveTargets, targetKey, type Backend } from './targets.js';

describe('parseAddress', () => {
  const cases: { reason: string; input: string; want: Backend | undefined }[] = [
    { reason: 'host name and port', input: 'db.example:5432', want: { host: 'db.example', port: 5432 } },
    { reason: 'IPv4 and port', input: '127.0.0.1:80', want: { host: '127.0.0.1', port: 80 } },
    { reason: 'bracketed IPv6', input: '[::1]:8080', want: { host: '::1', port: 8080 } },
    { reason: 'no port', input: 'example', want: undefined },
    { reason: 'port 0', input: 'a:0', want: undefined },
    { reason: 'port above 65535', input: 'a:70000', want: undefined },
    { reason: 'bare IPv6 is ambiguous', input: '::1:80', want: undefined },
    { reason: 'whitespace', input: 'a b:80', want: undefined },
    { reason: 'issue 10 item 2: a Unix socket with the port commented out', input: 'unix@/var/run/mysqld/mysqld.sock#:3306', want: undefined },
    { reason: 'a comment character in a hostname', input: 'db#x:3306', want: undefined },
    { reason: 'an abstract socket', input: 'abns@x:1', want: undefined },
    { reason: 'a path', input: '/tmp/sock:1', want: undefined },
    { reason: 'an IPv6 zone id', input: '[fe80::1%eth0]:80', want: undefined },
    { reason: 'a quote', input: 'a"b:80', want: undefined },
    { reason: 'a newline before the port', input: 'a\nserver x 1.2.3.4:1:80', want: undefined },
    { reason: 'a leading zero in the port', input: 'a:080', want: undefined },
    { reason: 'an IPv4 literal out of range', input: '256.1.1.1:80', want: undefined },
    { reason: 'a hostname is lower-cased', input: 'DB.Example:5432', want: { host: 'db.example', port: 5432 } },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(parseAddress(c.input), c.want));

  test('formatBackend and parseAddress round-trip', () => {
    const host = fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6());
    fc.assert(
      fc.property(host, fc.integer({ min: 1, max: 65535 }), (h, port) => {
        assert.deepEqual(parseAddress(formatBackend({ host: h, port })), { host: h, port });
      }),
    );
  });
});

describe('resolveTargets', () => {
  test('keeps address targets in order and explains the others', () => {
    const got = resolveTargets([
      { address: 'a:1' },
      { claimRef: { kind: 'PostgreSQLInstance', namespace: 'app', name: 'db' } },
      { serviceRef: { name: 'web', port: 80 } },
      { address: 'b:2' },
      { address: 'bad' },
      { address: '169.254.169.254:80' },
      { address: '[::ffff:169.254.169.254]:80' },
    ]);
    assert.deepEqual(got.backends, [
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
    ]);
    assert.equal(got.unsupported.length, 2);
    assert.match(got.unsupported[0], /^claimRef PostgreSQLInstance app\/db: .*cannot read another claim's connection Secret/);
    assert.match(got.unsupported[1], /^serviceRef web:80: .*does not resolve Services/);
    assert.equal(got.refused.length, 3);
    assert.match(got.refused[0], /^spec\.targets\[4\]\.address "bad": want host:port/);
    assert.match(got.refused[1], /^spec\.targets\[5\]\.address "169\.254\.169\.254:80": .*link-local/);
    assert.match(got.refused[2], /^spec\.targets\[6\]\.address .*embeds an IPv4 address/);
  });

  test('allowLinkLocal accepts link-local and metadata addresses, never a bad grammar', () => {
    const got = resolveTargets([{ address: '169.254.169.254:80' }, { address: 'unix@/x#:1' }], { allowLinkLocal: true });
    assert.deepEqual(got.backends, [{ host: '169.254.169.254', port: 80 }]);
    assert.equal(got.refused.length, 1);
  });

  test('no targets resolve to no backends', () => assert.deepEqual(resolveTargets(undefined), { backends: [], unsupported: [], refused: [] }));
});

describe('refusedByResolution', () => {
  test('a hostname that resolves to a metadata address is refused; IP literals and other names are not looked up', async () => {
    const looked: string[] = [];
    const lookup = async (host: string) => {
      looked.push(host);
      return host === 'evil.example' ? ['203.0.113.1', '169.254.169.254'] : ['203.0.113.2'];
    };
    const got = await refusedByResolution(
      [
        { host: 'evil.example', port: 80 },
        { host: 'good.example', port: 80 },
        { host: '10.0.0.1', port: 1 },
      ],
      lookup,
    );
    assert.deepEqual(looked, ['evil.example', 'good.example']);
    assert.equal(got.length, 1);
    assert.match(got[0], /evil\.example:80 resolves to 169\.254\.169\.254/);
  });
});

describe('targetKey', () => {
  const cases = [
    {
      reason: 'a reference without namespace takes the given one',
      a: { claimRef: { kind: 'X', name: 'n' } },
      b: { claimRef: { kind: 'x', namespace: 'app', name: 'n' } },
      same: true,
    },
    {
      reason: 'different namespaces differ',
      a: { serviceRef: { namespace: 'a', name: 's', port: 1 } },
      b: { serviceRef: { namespace: 'b', name: 's', port: 1 } },
      same: false,
    },
    { reason: 'addresses compare as written', a: { address: 'h:1' }, b: { address: 'h:2' }, same: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(targetKey(c.a, 'app') === targetKey(c.b, 'app'), c.same));
});
