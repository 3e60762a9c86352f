import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeconfigError, inClusterConfig, kubeconfigPathFromEnv, loadKubeconfig, parseKubeconfig, resolveKubeconfig } from './kubeconfig.js';
import type { ClientConfig } from './kubeconfig.js';

const caPem = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';
const certPem = '-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n';
const keyPem = '-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----\n';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeconfig-test-'));
  await mkdir(join(dir, 'certs'));
  await writeFile(join(dir, 'certs', 'ca.crt'), caPem);
  await writeFile(join(dir, 'certs', 'client.crt'), certPem);
  await writeFile(join(dir, 'certs', 'client.key'), keyPem);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A kubeconfig with two contexts: `files` (paths relative to the file) and `inline` (base64 data). */
function sample(extra = ''): string {
  return `
apiVersion: v1
kind: Config
current-context: files
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: certs/ca.crt
- name: remote
  cluster:
    server: https://k8s.example.com
    certificate-authority-data: ${b64(caPem)}
    tls-server-name: api.example.com
- name: insecure
  cluster:
    server: http://localhost:8080
    insecure-skip-tls-verify: true
users:
- name: certs
  user:
    client-certificate: certs/client.crt
    client-key: certs/client.key
- name: inline
  user:
    client-certificate-data: ${b64(certPem)}
    client-key-data: ${b64(keyPem)}
- name: token
  user:
    token: s3cret
- name: exec
  user:
    exec:
      command: aws
- name: half
  user:
    client-certificate-data: ${b64(certPem)}
- name: basic
  user:
    username: admin
    password: pw
- name: tokenfile
  user:
    tokenFile: token.txt
contexts:
- name: files
  context: {cluster: local, user: certs}
- name: inline
  context: {cluster: remote, user: inline, namespace: team-a}
- name: token
  context: {cluster: insecure, user: token}
- name: exec
  context: {cluster: local, user: exec}
- name: half
  context: {cluster: local, user: half}
- name: nouser
  context: {cluster: local, user: ghost}
- name: nocluster
  context: {cluster: ghost, user: token}
- name: anonymous
  context: {cluster: local}
- name: basic
  context: {cluster: local, user: basic}
- name: tokenfile
  context: {cluster: local, user: tokenfile}
${extra}`;
}

describe('resolveKubeconfig', () => {
  const cases: Array<{ reason: string; context?: string; want?: Partial<ClientConfig>; error?: RegExp }> = [
    {
      reason: 'the current context resolves file paths against the kubeconfig directory',
      want: { server: 'https://127.0.0.1:6443', ca: caPem, clientCertificate: certPem, clientKey: keyPem, context: 'files' },
    },
    {
      reason: 'inline base64 data is decoded; the context namespace and TLS server name carry over',
      context: 'inline',
      want: {
        server: 'https://k8s.example.com',
        ca: caPem,
        clientCertificate: certPem,
        clientKey: keyPem,
        namespace: 'team-a',
        tlsServerName: 'api.example.com',
      },
    },
    {
      reason: 'a token user and an insecure cluster',
      context: 'token',
      want: { server: 'http://localhost:8080', token: 's3cret', insecureSkipTlsVerify: true },
    },
    { reason: 'basic authentication', context: 'basic', want: { username: 'admin', password: 'pw' } },
    { reason: 'a token file resolves against the kubeconfig directory', context: 'tokenfile', want: { tokenFile: join('DIR', 'token.txt') } },
    { reason: 'a context without a user is anonymous', context: 'anonymous', want: { server: 'https://127.0.0.1:6443' } },
    { reason: 'an unknown context is named, with the known ones', context: 'nope', error: /context "nope" not found \(known: "files"/ },
    { reason: 'a missing user is named', context: 'nouser', error: /user "ghost" \(used by context "nouser"\) not found/ },
    { reason: 'a missing cluster is named', context: 'nocluster', error: /cluster "ghost" \(used by context "nocluster"\) not found/ },
    { reason: 'exec plugins are reported as unsupported', context: 'exec', error: /user "exec" uses an exec credential plugin, which is not supported/ },
    { reason: 'a certificate without a key is rejected', context: 'half', error: /has a client certificate but no client-key/ },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const kc = parseKubeconfig(sample(), 'test.yaml');
      const run = resolveKubeconfig(kc, { context: c.context, baseDir: dir, source: 'test.yaml' });
      if (c.error) {
        await assert.rejects(run, (err: Error) => err instanceof KubeconfigError && c.error!.test(err.message));
        return;
      }
      const got = await run;
      for (const [k, v] of Object.entries(c.want ?? {})) {
        const want = typeof v === 'string' ? v.replace('DIR', dir) : v;
        assert.deepEqual(got[k as keyof ClientConfig], want, `field ${k}`);
      }
    });
  }

  test('a config without current-context and no requested context says so', async () => {
    const kc = parseKubeconfig('clusters: []\ncontexts: []\n', 'empty.yaml');
    await assert.rejects(resolveKubeconfig(kc, { baseDir: dir, source: 'empty.yaml' }), /empty.yaml: current-context is not set/);
  });

  test('a cluster without a server is named', async () => {
    const kc = parseKubeconfig('current-context: c\nclusters: [{name: x, cluster: {}}]\ncontexts: [{name: c, context: {cluster: x}}]\n');
    await assert.rejects(resolveKubeconfig(kc, { baseDir: dir }), /cluster "x" has no server/);
  });

  test('an unreadable certificate file names the absolute path', async () => {
    const kc = parseKubeconfig(
      'current-context: c\nclusters: [{name: x, cluster: {server: "https://a", certificate-authority: missing.crt}}]\ncontexts: [{name: c, context: {cluster: x}}]\n',
    );
    await assert.rejects(resolveKubeconfig(kc, { baseDir: dir }), (err: Error) => err.message.includes(join(dir, 'missing.crt')));
  });
});

describe('parseKubeconfig', () => {
  const cases: Array<{ reason: string; text: string; error: RegExp }> = [
    { reason: 'not YAML', text: 'a: [', error: /cannot parse YAML/ },
    { reason: 'a list at the top level', text: '- a\n- b\n', error: /expected a YAML mapping/ },
    { reason: 'clusters is not a list', text: 'clusters: {a: 1}\n', error: /clusters must be a list/ },
    { reason: 'an entry without a name', text: 'users: [{user: {token: x}}]\n', error: /users\[0\] has no name/ },
    { reason: 'a token that is not a string', text: 'users: [{name: u, user: {token: 5}}]\n', error: /token must be a string/ },
    {
      reason: 'insecure-skip-tls-verify not a boolean',
      text: 'clusters: [{name: c, cluster: {insecure-skip-tls-verify: "yes"}}]\n',
      error: /must be true or false/,
    },
  ];
  for (const c of cases) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(
        () => parseKubeconfig(c.text, 'k.yaml'),
        (err: Error) => err instanceof KubeconfigError && c.error.test(err.message),
      );
    });
  }

  test('an empty file parses to no entries', () => {
    const kc = parseKubeconfig('');
    assert.equal(kc.contexts.size, 0);
    assert.equal(kc.currentContext, undefined);
  });
});

describe('loading', () => {
  test('loadKubeconfig reads the file and resolves relative paths against its directory', async () => {
    const path = join(dir, 'config');
    await writeFile(path, sample());
    const config = await loadKubeconfig(path);
    assert.equal(config.ca, caPem);
    const other = await loadKubeconfig(path, { context: 'token' });
    assert.equal(other.token, 's3cret');
  });

  test('loadKubeconfig names a missing file', async () => {
    await assert.rejects(loadKubeconfig(join(dir, 'absent')), /cannot read kubeconfig .*absent/);
  });

  const envCases: Array<{ reason: string; env: NodeJS.ProcessEnv; want: string }> = [
    { reason: 'KUBECONFIG with one file', env: { KUBECONFIG: '/a/config', HOME: '/home/u' }, want: '/a/config' },
    { reason: 'KUBECONFIG with several files uses the first', env: { KUBECONFIG: '/a/one:/b/two', HOME: '/home/u' }, want: '/a/one' },
    { reason: 'empty leading entries are skipped', env: { KUBECONFIG: '::/c/three', HOME: '/home/u' }, want: '/c/three' },
    { reason: 'no KUBECONFIG falls back to ~/.kube/config', env: { HOME: '/home/u' }, want: '/home/u/.kube/config' },
  ];
  for (const c of envCases) {
    test(`kubeconfigPathFromEnv: ${c.reason}`, () => {
      assert.equal(kubeconfigPathFromEnv(c.env), c.want);
    });
  }

  test('inClusterConfig reads the mounted service account', async () => {
    const sa = join(dir, 'sa');
    await mkdir(sa, { recursive: true });
    await writeFile(join(sa, 'ca.crt'), caPem);
    await writeFile(join(sa, 'token'), 'tok\n');
    await writeFile(join(sa, 'namespace'), 'conductor-system\n');
    const config = await inClusterConfig({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir: sa });
    assert.deepEqual(config, { server: 'https://10.0.0.1:443', ca: caPem, tokenFile: join(sa, 'token'), namespace: 'conductor-system' });
    await assert.rejects(inClusterConfig({ env: {}, dir: sa }), /KUBERNETES_SERVICE_HOST/);
  });
});
