import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { renderKubeconfig, serverUrl, writeKubeconfig, yamlScalar, type KubeconfigOptions } from './kubeconfig.js';

const opts: KubeconfigOptions = {
  server: 'https://127.0.0.1:6443',
  caPem: '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n',
  token: 'tok_en-123',
  clientCertPem: '-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n',
  clientKeyPem: '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n',
};

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('renderKubeconfig', () => {
  test('has the cluster, both users, both contexts and the token context as current', () => {
    const config = parse(renderKubeconfig(opts)) as unknown;
    assert.deepEqual(config, {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'conductor', cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caPem) } }],
      users: [
        { name: 'admin', user: { token: opts.token } },
        {
          name: 'admin-cert',
          user: { 'client-certificate-data': b64(opts.clientCertPem), 'client-key-data': b64(opts.clientKeyPem) },
        },
      ],
      contexts: [
        { name: 'conductor', context: { cluster: 'conductor', user: 'admin' } },
        { name: 'conductor-cert', context: { cluster: 'conductor', user: 'admin-cert' } },
      ],
      'current-context': 'conductor',
      preferences: {},
    });
  });

  test('long base64 values stay on one line', () => {
    const long = { ...opts, caPem: 'x'.repeat(3000) };
    const line = renderKubeconfig(long)
      .split('\n')
      .find((l) => l.includes('certificate-authority-data'));
    assert.equal(line?.trim(), `certificate-authority-data: ${b64(long.caPem)}`);
  });
});

describe('yamlScalar', () => {
  const cases: Array<{ reason: string; input: string; want: string }> = [
    { reason: 'a URL stays plain', input: 'https://127.0.0.1:6443', want: 'https://127.0.0.1:6443' },
    { reason: 'base64 stays plain', input: 'LS0tLS1CRUdJTi+/=', want: 'LS0tLS1CRUdJTi+/=' },
    { reason: 'a leading digit is quoted (it could read as a number)', input: '0123', want: '"0123"' },
    { reason: 'a leading dash is quoted', input: '-abc', want: '"-abc"' },
    { reason: 'a YAML 1.1 boolean word is quoted', input: 'On', want: '"On"' },
    { reason: 'a bare exponent is quoted (YAML 1.1 reads it as a float)', input: 'e1', want: '"e1"' },
    { reason: 'a bare exponent with a sign is quoted', input: 'E-10', want: '"E-10"' },
    { reason: 'a trailing colon is quoted', input: 'abc:', want: '"abc:"' },
    { reason: 'a space is quoted', input: 'a b', want: '"a b"' },
    { reason: 'the empty string is quoted', input: '', want: '""' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.equal(yamlScalar(c.input), c.want);
    });
  }

  test('every string reads back the same under YAML 1.1 and 1.2', () => {
    const str = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: fc.constantFrom('a', '1', ':', '-', '.', '/', '=', '+', '#', ' ', 'y', 'e', '_') }),
    );
    fc.assert(
      fc.property(str, (s) => {
        for (const version of ['1.1', '1.2'] as const) {
          assert.deepEqual(parse(`k: ${yamlScalar(s)}\n`, { version }), { k: s }, `version ${version}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a kubeconfig with arbitrary server and token parses back to them', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (server, token) => {
        const config = parse(renderKubeconfig({ ...opts, server, token })) as {
          clusters: Array<{ cluster: { server: unknown } }>;
          users: Array<{ user: { token?: unknown } }>;
        };
        assert.equal(config.clusters[0]?.cluster.server, server);
        assert.equal(config.users[0]?.user.token, token);
      }),
    );
  });
});

describe('writeKubeconfig', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conductor-kubeconfig-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('writes dataDir/kubeconfig with mode 0600, leaves it alone when unchanged, rewrites it when the port changes', async () => {
    const path = await writeKubeconfig(dir, opts);
    assert.equal(path, join(dir, 'kubeconfig'));
    const first = await stat(path);
    assert.equal(first.mode & 0o777, 0o600);

    assert.equal(await writeKubeconfig(dir, opts), path);
    const same = await stat(path);
    assert.deepEqual([same.ino, same.mtimeMs], [first.ino, first.mtimeMs], 'an unchanged kubeconfig is not rewritten');

    await writeKubeconfig(dir, { ...opts, server: 'https://127.0.0.1:7443' });
    const moved = await stat(path);
    assert.notEqual(moved.ino, first.ino, 'replaced by rename');
    assert.equal(moved.mode & 0o777, 0o600);
    const config = parse(await readFile(path, 'utf8')) as { clusters: Array<{ cluster: { server: string } }> };
    assert.equal(config.clusters[0]?.cluster.server, 'https://127.0.0.1:7443');
  });
});

describe('serverUrl', () => {
  const cases: Array<{ reason: string; host: string; port: number; want: string }> = [
    { reason: 'an IPv4 address is used as is', host: '10.0.0.5', port: 6443, want: 'https://10.0.0.5:6443' },
    { reason: 'a DNS name is used as is', host: 'api.example.com', port: 443, want: 'https://api.example.com:443' },
    { reason: 'the IPv4 wildcard becomes loopback', host: '0.0.0.0', port: 6443, want: 'https://127.0.0.1:6443' },
    { reason: 'the IPv6 wildcard becomes loopback', host: '::', port: 6443, want: 'https://[::1]:6443' },
    { reason: 'an IPv6 address gets brackets', host: 'fd00::2', port: 8443, want: 'https://[fd00::2]:8443' },
    { reason: 'an already bracketed IPv6 address keeps one pair', host: '[::1]', port: 1, want: 'https://[::1]:1' },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.equal(serverUrl(c.host, c.port), c.want);
    });
  }
});
