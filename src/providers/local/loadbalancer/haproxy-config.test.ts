import { describe, test } from 'node:test';
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
      config: { ...base, backends: [{ host: '10.0.0.1', port: 80 }, { host: '::1', port: 81 }] },
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

describe('parseHAProxyVersion', () => {
  const cases = [
    { reason: 'Debian build', input: 'HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/', want: '2.6.12-1+deb12u4' },
    { reason: 'older spelling', input: 'HA-Proxy version 1.8.19 2019/02/11', want: '1.8.19' },
    { reason: 'something else', input: 'nginx version: nginx/1.22', want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(parseHAProxyVersion(c.input), c.want));
});
