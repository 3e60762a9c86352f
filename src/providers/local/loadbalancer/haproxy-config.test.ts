import { describe, test } from 'node:test';
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderHAProxyConfig, type HAProxyConfig } from './haproxy-config.js';
import { defaultHAProxyBin, parseHAProxyVersion } from './haproxy-binary.js';

const base: HAProxyConfig = { owner: 'sys/lb', address: '127.0.0.1', port: 8080, protocol: 'HTTP', backends: [] };

describe('renderHAProxyConfig', () => {
  const cases: { reason: string; config: HAProxyConfig; want: RegExp[]; not?: RegExp[] }[] = [
    { reason: 'HTTP uses mode http', config: base, want: [/^\s+mode http$/m, /^\s+bind 127\.0\.0\.1:8080$/m, /^\s+balance roundrobin$/m] },
    { reason: 'TCP uses mode tcp without http options', config: { ...base, protocol: 'TCP' }, want: [/^\s+mode tcp$/m], not: [/http-server-close/] },
    {
      reason: 'one server line per backend, IPv6 in brackets',
      config: {
        ...base,
        backends: [
          { host: '10.0.0.1', port: 80 },
          { host: '::1', port: 81 },
        ],
      },
      want: [/^\s+server target1 10\.0\.0\.1:80 check/m, /^\s+server target2 \[::1\]:81 check/m],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const text = renderHAProxyConfig(c.config);
      for (const w of c.want) assert.match(text, w);
      for (const n of c.not ?? []) assert.doesNotMatch(text, n);
    });
  }

  test('haproxy itself accepts what is rendered', (t) => {
    let available = true;
    try {
      execFileSync(defaultHAProxyBin, ['-v']);
    } catch {
      available = false;
    }
    if (!available) return t.skip('haproxy is not installed');
    const dir = mkdtempSync(join(tmpdir(), 'conductor-haproxy-'));
    try {
      for (const config of [base, { ...base, protocol: 'TCP' as const, backends: [{ host: '127.0.0.1', port: 9 }] }]) {
        const file = join(dir, 'haproxy.cfg');
        writeFileSync(file, renderHAProxyConfig(config));
        execFileSync(defaultHAProxyBin, ['-c', '-q', '-f', file]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('renderHAProxyConfig refuses what HAProxy would read otherwise (issue 10 item 2)', () => {
  const hostile = ['unix@/var/run/mysqld/mysqld.sock#', 'a b', 'a\nserver evil 10.0.0.1', '"${HOME}"', 'ipv4@1.2.3.4', '', 'abns@x'];
  for (const host of hostile) {
    test(`a backend host ${JSON.stringify(host)} throws instead of being written`, () => {
      assert.throws(() => renderHAProxyConfig({ ...base, backends: [{ host, port: 3306 }] }), /is not a DNS hostname or an IP address/);
    });
  }
  test('a port that is not an integer from 1 to 65535 throws', () => {
    for (const port of [0, 65536, 1.5, Number.NaN]) {
      assert.throws(() => renderHAProxyConfig({ ...base, backends: [{ host: '10.0.0.1', port }] }), /not an integer from 1 to 65535/);
    }
  });
  test('the owner comment stays one comment line whatever it holds', () => {
    assert.equal(renderHAProxyConfig({ ...base, owner: 'x\nbackend evil' }).split('\n')[1], 'global');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (owner) => {
        const text = renderHAProxyConfig({ ...base, owner });
        assert.equal(text.split('\n')[0].startsWith('# Written by Conductor for '), true);
        assert.equal(text.split('\n')[1], 'global');
      }),
    );
  });
  test('every rendered server line is exactly the checked address', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.domain()), fc.integer({ min: 1, max: 65535 }), (host, port) => {
        const text = renderHAProxyConfig({ ...base, backends: [{ host, port }] });
        const line = text.split('\n').find((l) => l.includes('server target1'))!;
        assert.deepEqual(line.trim().split(/\s+/), ['server', 'target1', host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`, 'check', 'inter', '2s']);
      }),
    );
  });
});

describe('parseHAProxyVersion', () => {
  const cases = [
    { reason: 'Debian build', input: 'HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/', want: '2.6.12-1+deb12u4' },
    { reason: 'older spelling', input: 'HA-Proxy version 1.8.19 2019/02/11', want: '1.8.19' },
    { reason: 'something else', input: 'nginx version: nginx/1.22', want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(parseHAProxyVersion(c.input), c.want));
});
