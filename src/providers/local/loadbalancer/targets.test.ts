import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatBackend, parseAddress, resolveTargets, targetKey, type Backend } from './targets.js';

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
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(parseAddress(c.input), c.want));

  test('formatBackend and parseAddress round-trip', () => {
    const host = fc.oneof(
      fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?$/),
      fc.ipV4(),
      fc.ipV6(),
    );
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
    ]);
    assert.deepEqual(got.backends, [
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
    ]);
    assert.equal(got.unsupported.length, 3);
    assert.match(got.unsupported[0]!, /^claimRef PostgreSQLInstance app\/db: .*cannot read another claim's connection Secret/);
    assert.match(got.unsupported[1]!, /^serviceRef web:80: .*does not resolve Services/);
    assert.match(got.unsupported[2]!, /^address bad: not host:port/);
  });

  test('no targets resolve to no backends', () => assert.deepEqual(resolveTargets(undefined), { backends: [], unsupported: [] }));
});

describe('targetKey', () => {
  const cases = [
    { reason: 'a reference without namespace takes the given one', a: { claimRef: { kind: 'X', name: 'n' } }, b: { claimRef: { kind: 'x', namespace: 'app', name: 'n' } }, same: true },
    { reason: 'different namespaces differ', a: { serviceRef: { namespace: 'a', name: 's', port: 1 } }, b: { serviceRef: { namespace: 'b', name: 's', port: 1 } }, same: false },
    { reason: 'addresses compare as written', a: { address: 'h:1' }, b: { address: 'h:2' }, same: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(targetKey(c.a, 'app') === targetKey(c.b, 'app'), c.same));
});
