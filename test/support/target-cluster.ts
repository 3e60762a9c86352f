/**
 * Test support: a target cluster for the kubernetes provider — a second `conductor server`
 * process, a real Kubernetes-compatible API over HTTPS with its own CA and credentials — and
 * the credentials to reach it, read from the kubeconfig it writes (CA, admin token, admin
 * client certificate and key).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ensurePki } from '../../src/apiserver/auth/pki.js';
import { kubectlOk, removeDir, startServer, type ServerProcess, type StartOptions } from './server.js';

/** The credentials of a target cluster, as PEM text and strings. */
export interface TargetCredentials {
  endpoint: string;
  clusterCA: string;
  token: string;
  clientCert: string;
  clientKey: string;
  /** The kubeconfig as written, its current context the token user's. */
  kubeconfig: string;
}

/** A TargetCluster is a running target server and its credentials. */
export interface TargetCluster {
  server: ServerProcess;
  credentials: TargetCredentials;
  /** The target's version as its /version says (gitVersion). */
  version: string;
  /** The kubeconfig with the client-certificate user as its current context. */
  certKubeconfig(): string;
  stop(): Promise<void>;
}

const b64decode = (s: string) => Buffer.from(s, 'base64').toString('utf8');

/** readTargetCredentials reads the CA, token and client certificate of a server's kubeconfig. */
export function readTargetCredentials(kubeconfigPath: string): TargetCredentials {
  const text = readFileSync(kubeconfigPath, 'utf8');
  const kc = parse(text) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { name: string; user: { token?: string; 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
  };
  const cluster = kc.clusters[0].cluster;
  const tokenUser = kc.users.find((u) => u.user.token)!.user;
  const certUser = kc.users.find((u) => u.user['client-certificate-data'])!.user;
  return {
    endpoint: cluster.server,
    clusterCA: b64decode(cluster['certificate-authority-data']),
    token: tokenUser.token!,
    clientCert: b64decode(certUser['client-certificate-data']!),
    clientKey: b64decode(certUser['client-key-data']!),
    kubeconfig: text,
  };
}

/** startTargetCluster starts a target server; `stop` kills it and removes its data. */
export async function startTargetCluster(opts: StartOptions = {}): Promise<TargetCluster> {
  const server = await startServer(opts);
  const credentials = readTargetCredentials(server.kubeconfig);
  const { apiFromKubeconfig } = await import('./api.js');
  const api = apiFromKubeconfig(server.kubeconfig);
  const version = String((await api.request('GET', '/version')).json().gitVersion);
  api.close();
  return {
    server,
    credentials,
    version,
    certKubeconfig() {
      const kc = parse(credentials.kubeconfig) as { contexts: { name: string; context: { user: string } }[]; users: { name: string; user: object }[] };
      const certUser = kc.users.find((u) => 'client-certificate-data' in u.user)!.name;
      const context = kc.contexts.find((c) => c.context.user === certUser)!.name;
      return stringify({ ...kc, 'current-context': context });
    },
    async stop() {
      await server.kill();
      removeDir(server.dataDir);
    },
  };
}

/** kubernetesProviderKindsEstablished waits until `server` serves Providers and KubernetesObjects (their CRDs Established). */
export async function kubernetesProviderKindsEstablished(server: ServerProcess): Promise<void> {
  await kubectlOk(server, [
    'wait',
    '--for=condition=Established',
    'crd/providers.core.conductor.io',
    'crd/kubernetesobjects.kubernetes.conductor.io',
    '--timeout=60s',
  ]);
}

/** secretYaml writes a Secret manifest with `stringData` (kubectl apply takes it). */
export function secretYaml(namespace: string, name: string, data: Record<string, string>): string {
  return stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', stringData: data });
}

/**
 * targetProviderYaml writes a kubernetes Provider `name` in `namespace` and its credentials
 * Secret of the same name (endpoint, CA and token of `c`), as two documents for kubectl apply.
 */
export function targetProviderYaml(
  namespace: string,
  name: string,
  c: Pick<TargetCredentials, 'endpoint' | 'clusterCA' | 'token'>,
  /** More of the Provider's spec: `region`, `capabilities`. */
  spec: Record<string, unknown> = {},
): string {
  const provider = stringify({
    apiVersion: 'core.conductor.io/v1alpha1',
    kind: 'Provider',
    metadata: { name, namespace },
    spec: { type: 'kubernetes', credentialsSecretRef: { name }, ...spec },
  });
  return [secretYaml(namespace, name, { endpoint: c.endpoint, clusterCA: c.clusterCA, token: c.token }), provider].join('---\n');
}

/** A StandInTarget is an HTTPS server on 127.0.0.1 answering as a test says (mocked: a target cluster that misbehaves). */
export interface StandInTarget {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The CA (PEM) that signed its certificate. */
  ca: string;
  stop(): Promise<void>;
}

/** startStandInTarget serves `handler` over TLS with a certificate for 127.0.0.1 from a CA of its own. */
export async function startStandInTarget(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<StandInTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-stand-in-target-'));
  const pki = await ensurePki(dir, '127.0.0.1');
  const server = createHttpsServer({ key: pki.serverKeyPem, cert: pki.serverCertPem }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca: pki.caCertPem,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
