import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { targetClusterFrom, type TargetCluster } from './credentials.js';

const CA = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');

function kubeconfig(user: string, cluster = `server: https://10.0.0.1:6443\n    certificate-authority-data: ${b64(CA)}`): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    ${cluster}
users:
- name: u
  user:
    ${user}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`;
}

describe('targetClusterFrom', () => {
  const cases: { reason: string; data: Record<string, string> | undefined; want: TargetCluster | RegExp }[] = [
    {
      reason: 'endpoint, CA and token',
      data: { endpoint: 'https://10.0.0.1:6443', clusterCA: CA, token: 'abc' },
      want: { server: 'https://10.0.0.1:6443', ca: CA, token: 'abc' },
    },
    {
      reason: 'an endpoint without a scheme is https; PEM given base64-encoded is read',
      data: { endpoint: 'k8s.example:6443', clusterCA: b64(CA), clientCert: b64(CERT), clientKey: KEY },
      want: { server: 'https://k8s.example:6443', ca: CA, clientCert: CERT, clientKey: KEY },
    },
    {
      reason: 'username and password',
      data: { endpoint: 'https://10.0.0.1', username: 'admin', password: 'pw' },
      want: { server: 'https://10.0.0.1', username: 'admin', password: 'pw' },
    },
    { reason: 'nothing at all', data: undefined, want: /names no credentials Secret, or it is empty/ },
    { reason: 'no endpoint and no kubeconfig', data: { token: 'abc' }, want: /neither a kubeconfig key nor an endpoint key/ },
    { reason: 'plain http', data: { endpoint: 'http://10.0.0.1' }, want: /key endpoint uses http: want https/ },
    { reason: 'a CA that is not PEM', data: { endpoint: 'https://a', clusterCA: 'hello' }, want: /key clusterCA is neither PEM nor base64-encoded PEM/ },
    { reason: 'a certificate without its key', data: { endpoint: 'https://a', clientCert: CERT }, want: /client certificate but no client key/ },
    { reason: 'a username without a password', data: { endpoint: 'https://a', username: 'x' }, want: /username but no password/ },
    {
      reason: 'a kubeconfig with a token',
      data: { kubeconfig: kubeconfig('token: t0k') },
      want: { server: 'https://10.0.0.1:6443', ca: CA, token: 't0k' },
    },
    {
      reason: 'a kubeconfig with a client certificate',
      data: { kubeconfig: kubeconfig(`client-certificate-data: ${b64(CERT)}\n    client-key-data: ${b64(KEY)}`) },
      want: { server: 'https://10.0.0.1:6443', ca: CA, clientCert: CERT, clientKey: KEY },
    },
    {
      reason: 'a kubeconfig that skips TLS verification is refused',
      data: { kubeconfig: kubeconfig('token: t', 'server: https://a\n    insecure-skip-tls-verify: true') },
      want: /sets insecure-skip-tls-verify, which Conductor never honours/,
    },
    {
      reason: 'a kubeconfig naming files is refused',
      data: { kubeconfig: kubeconfig('client-certificate: /etc/cert.pem\n    client-key: /etc/key.pem') },
      want: /names a file \(client-certificate\)/,
    },
    {
      reason: 'a kubeconfig running a credential plugin is refused',
      data: { kubeconfig: kubeconfig('exec: {command: aws}') },
      want: /runs a credential plugin/,
    },
    {
      reason: 'an endpoint with user info is refused (the URL is shown in statuses)',
      data: { endpoint: 'https://admin:hunter22@10.0.0.1:6443', token: 't' },
      want: /^CredentialsError: key endpoint has user info \(user:password@host\): give username and password \(or a token\) as their own keys, never in the URL$/,
    },
    {
      reason: 'a kubeconfig server with a token in its user info or query is refused',
      data: { kubeconfig: kubeconfig('token: t', 'server: https://t0ken@10.0.0.1:6443') },
      want: /cluster "c"'s server has user info/,
    },
    {
      reason: 'an endpoint with a query is refused',
      data: { endpoint: 'https://10.0.0.1:6443/?token=abcdef', token: 't' },
      want: /^CredentialsError: key endpoint has a query or fragment: want https:\/\/host:port/,
    },
    { reason: 'a kubeconfig that is not YAML', data: { kubeconfig: 'a: [' }, want: /key kubeconfig is not YAML/ },
    {
      reason: 'a kubeconfig whose context names an unknown cluster',
      data: { kubeconfig: kubeconfig('token: t').replace('cluster: c,', 'cluster: nope,') },
      want: /clusters has no entry named "nope"/,
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      if (c.want instanceof RegExp)
        assert.throws(
          () => targetClusterFrom(c.data),
          (err: Error) => c.want instanceof RegExp && c.want.test(`${err.name}: ${err.message}`),
        );
      else assert.deepEqual(targetClusterFrom(c.data), c.want);
    });
  }

  test('messages never quote a value of the Secret', () => {
    const secret = 'sup3r-s3cret-value';
    const inputs: Record<string, string>[] = [
      { endpoint: `http://${secret}` },
      { endpoint: 'https://a', clusterCA: secret },
      { kubeconfig: `${secret}: [` },
      { endpoint: `https://user:${secret}@a` },
      { endpoint: `https://a/?token=${secret}` },
    ];
    for (const data of inputs) {
      assert.throws(
        () => targetClusterFrom(data),
        (err: Error) => !err.message.includes(secret),
      );
    }
  });
});
