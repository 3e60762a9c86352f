import { isIP } from 'node:net';
import { readIfExists, SECRET_FILE_MODE, writeFileAtomic } from './files.js';
import { pkiPaths } from './pki.js';

/** The kubeconfig's cluster name. */
export const KUBECONFIG_CLUSTER = 'conductor';
/** The kubeconfig user that authenticates with the admin bearer token. */
export const KUBECONFIG_TOKEN_USER = 'admin';
/** The kubeconfig user that authenticates with the admin client certificate. */
export const KUBECONFIG_CERT_USER = 'admin-cert';
/** The context using the token (the current context). */
export const KUBECONFIG_TOKEN_CONTEXT = 'conductor';
/** The context using the client certificate. */
export const KUBECONFIG_CERT_CONTEXT = 'conductor-cert';

/** KubeconfigOptions is what the admin kubeconfig contains. */
export interface KubeconfigOptions {
  /** The API server URL, e.g. https://127.0.0.1:6443 (see serverUrl). */
  server: string;
  caPem: string;
  token: string;
  clientCertPem: string;
  clientKeyPem: string;
}

/**
 * serverUrl returns the https URL a client on this machine uses to reach a server listening on
 * host:port: wildcard addresses become the loopback address, IPv6 addresses get brackets.
 */
export function serverUrl(host: string, port: number): string {
  let h = host.trim();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h === '0.0.0.0' || h === '') h = '127.0.0.1';
  else if (h === '::') h = '::1';
  return `https://${isIP(h) === 6 ? `[${h}]` : h}:${port}`;
}

const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

/**
 * renderKubeconfig returns the admin kubeconfig as YAML. It is written out by hand rather than
 * with the yaml package, which takes ~30 ms to load and would double the cost of a warm start.
 */
export function renderKubeconfig(opts: KubeconfigOptions): string {
  return renderKubeconfigYaml({
    server: opts.server,
    caPem: opts.caPem,
    users: [
      { name: KUBECONFIG_TOKEN_USER, token: opts.token },
      { name: KUBECONFIG_CERT_USER, certPem: opts.clientCertPem, keyPem: opts.clientKeyPem },
    ],
    contexts: [
      { name: KUBECONFIG_TOKEN_CONTEXT, user: KUBECONFIG_TOKEN_USER },
      { name: KUBECONFIG_CERT_CONTEXT, user: KUBECONFIG_CERT_USER },
    ],
    currentContext: KUBECONFIG_TOKEN_CONTEXT,
  });
}

/** A user of a kubeconfig: a bearer token, or a client certificate and key (PEM). */
export type KubeconfigUserEntry = { name: string; token: string } | { name: string; certPem: string; keyPem: string };

/**
 * renderKubeconfigYaml writes a kubeconfig for the one cluster `conductor` (server and CA
 * inline), its users and their contexts, as YAML every kubeconfig reader takes.
 */
export function renderKubeconfigYaml(o: {
  server: string;
  caPem: string;
  users: KubeconfigUserEntry[];
  contexts: { name: string; user: string }[];
  currentContext: string;
}): string {
  const q = yamlScalar;
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${q(KUBECONFIG_CLUSTER)}`,
    '  cluster:',
    `    server: ${q(o.server)}`,
    `    certificate-authority-data: ${q(b64(o.caPem))}`,
    'users:',
  ];
  for (const u of o.users) {
    lines.push(`- name: ${q(u.name)}`, '  user:');
    if ('token' in u) lines.push(`    token: ${q(u.token)}`);
    else lines.push(`    client-certificate-data: ${q(b64(u.certPem))}`, `    client-key-data: ${q(b64(u.keyPem))}`);
  }
  lines.push('contexts:');
  for (const c of o.contexts) lines.push(`- name: ${q(c.name)}`, '  context:', `    cluster: ${q(KUBECONFIG_CLUSTER)}`, `    user: ${q(c.user)}`);
  lines.push(`current-context: ${q(o.currentContext)}`, 'preferences: {}', '');
  return lines.join('\n');
}

// Words YAML 1.1 (read by kubectl's go-yaml) or 1.2 would take for a boolean or null.
// Also a bare exponent such as `e1`, which YAML 1.1's float pattern (empty mantissa) reads as a number.
const RESERVED_WORDS = /^(y|n|yes|no|on|off|true|false|null|e[-+]?[0-9]+)$/i;

/**
 * yamlScalar writes s as a plain YAML scalar when that reads back as the same string (it starts
 * with a letter, holds no character YAML treats specially, and does not end
 * with a colon), else double-quoted; a JSON
 * string is a valid YAML double-quoted scalar.
 */
export function yamlScalar(s: string): string {
  return /^[A-Za-z]([A-Za-z0-9._/:=+-]*[A-Za-z0-9._/=+-])?$/.test(s) && !RESERVED_WORDS.test(s) ? s : JSON.stringify(s);
}

/**
 * writeKubeconfig writes the admin kubeconfig to dataDir/kubeconfig (mode 0600, atomically) and
 * returns its path. The file is left untouched when it already has this content, so a restart
 * rewrites it only when something (the port, a renewed certificate) changed.
 */
export async function writeKubeconfig(dataDir: string, opts: KubeconfigOptions): Promise<string> {
  const path = pkiPaths(dataDir).kubeconfig;
  const text = renderKubeconfig(opts);
  if ((await readIfExists(path)) !== text) await writeFileAtomic(path, text, SECRET_FILE_MODE);
  return path;
}
