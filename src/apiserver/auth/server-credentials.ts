import type { TlsOptions } from 'node:tls';
import { ensureAdminCredentials, type AdminCredentials } from './admin-credentials.js';
import { Authenticator } from './authenticator.js';
import { serverUrl, writeKubeconfig } from './kubeconfig.js';
import { ensurePki, tlsServerOptions, type Pki } from './pki.js';
import { adminUser } from './user-info.js';

/** ServerCredentialsOptions are the `conductor server` flags that shape its credentials. */
export interface ServerCredentialsOptions {
  dataDir: string;
  /** The host the server listens on and is reached by (--host). */
  host: string;
  /** The port it listens on; it goes into the kubeconfig. */
  port: number;
  /** More names for the serving certificate. */
  extraSans?: string[];
  /** A Kubernetes-style static token file (--token-auth-file). */
  tokenFile?: string;
}

/** ServerCredentials are everything the API server needs for TLS and authentication. */
export interface ServerCredentials {
  pki: Pki;
  admin: AdminCredentials;
  kubeconfigPath: string;
  tlsOptions: TlsOptions;
  authenticator: Authenticator;
}

/**
 * ensureServerCredentials does what `conductor server` does on start: ensurePki,
 * ensureAdminCredentials, writeKubeconfig (server URL from host and port), and builds the TLS
 * options and an Authenticator that accepts the admin token and the token file.
 */
export async function ensureServerCredentials(opts: ServerCredentialsOptions): Promise<ServerCredentials> {
  const pki = await ensurePki(opts.dataDir, opts.host, { extraSans: opts.extraSans });
  const admin = await ensureAdminCredentials(opts.dataDir, pki);
  const kubeconfigPath = await writeKubeconfig(opts.dataDir, {
    server: serverUrl(opts.host, opts.port),
    caPem: pki.caCertPem,
    token: admin.token,
    clientCertPem: admin.certPem,
    clientKeyPem: admin.keyPem,
  });
  const authenticator = new Authenticator({ tokens: new Map([[admin.token, adminUser()]]), tokenFile: opts.tokenFile });
  return { pki, admin, kubeconfigPath, tlsOptions: tlsServerOptions(pki), authenticator };
}
