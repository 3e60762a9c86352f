/**
 * The target cluster a `kubernetes` Provider's credentials Secret describes: either a
 * `kubeconfig` key (its current context, files embedded), or the fields `endpoint`,
 * `clusterCA`, `clientCert`, `clientKey`, `token`, `username` and `password`. Reading them
 * checks their shape only; whether they authenticate is the check's business.
 */
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../../machinery/object.js';

/** A TargetCluster says how to reach and authenticate to one Kubernetes API server. */
export interface TargetCluster {
  /** The API server's base URL, always https. */
  server: string;
  /** PEM certificates trusted for the server; absent means the system's roots. */
  ca?: string;
  /** The name to verify the server's certificate against, when it differs from the URL's host. */
  tlsServerName?: string;
  token?: string;
  /** A PEM client certificate and its key, for mutual TLS. */
  clientCert?: string;
  clientKey?: string;
  username?: string;
  password?: string;
}

/** A CredentialsError says what is wrong with a credentials Secret's keys (never quoting a value). */
export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

/** The keys of the field form of the credentials. */
export const CREDENTIAL_FIELDS = ['endpoint', 'clusterCA', 'clientCert', 'clientKey', 'token', 'username', 'password'] as const;

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

/** pem reads a PEM value written as it is or base64-encoded once more (as kubeconfig `*-data` fields are). */
function pem(value: string, what: string): string {
  if (PEM.test(value)) return value;
  const decoded = Buffer.from(value.trim(), 'base64').toString('utf8');
  if (PEM.test(decoded)) return decoded;
  throw new CredentialsError(`${what} is neither PEM nor base64-encoded PEM: want "-----BEGIN …-----" text`);
}

/** serverUrl reads an endpoint: `https://host:port`, or `host[:port]` (https implied); plain http is refused. */
function serverUrl(endpoint: string, what: string): string {
  const text = endpoint.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new CredentialsError(`${what} is not a URL: want https://host:port`);
  }
  if (url.protocol !== 'https:') throw new CredentialsError(`${what} uses ${url.protocol.slice(0, -1)}: want https (credentials are never sent in clear)`);
  // The server URL is shown in statuses and messages, so it must hold no credential.
  if (url.username !== '' || url.password !== '') {
    throw new CredentialsError(`${what} has user info (user:password@host): give username and password (or a token) as their own keys, never in the URL`);
  }
  if (url.search !== '' || url.hash !== '') throw new CredentialsError(`${what} has a query or fragment: want https://host:port (and a path, for a proxy)`);
  return url.toString().replace(/\/$/, '');
}

function checkPairs(c: TargetCluster, where: string): TargetCluster {
  if (c.clientCert && !c.clientKey) throw new CredentialsError(`${where} has a client certificate but no client key`);
  if (c.clientKey && !c.clientCert) throw new CredentialsError(`${where} has a client key but no client certificate`);
  if (c.username !== undefined && c.password === undefined) throw new CredentialsError(`${where} has a username but no password`);
  if (c.password !== undefined && c.username === undefined) throw new CredentialsError(`${where} has a password but no username`);
  return c;
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v);

/** fromFields reads the field form of the credentials. */
function fromFields(data: Record<string, string>): TargetCluster {
  const endpoint = nonEmpty(data.endpoint);
  if (!endpoint)
    throw new CredentialsError(
      `the credentials Secret has neither a kubeconfig key nor an endpoint key: want kubeconfig, or endpoint with clusterCA and token, clientCert/clientKey or username/password`,
    );
  const ca = nonEmpty(data.clusterCA);
  const cert = nonEmpty(data.clientCert);
  const key = nonEmpty(data.clientKey);
  const token = nonEmpty(data.token);
  const username = nonEmpty(data.username);
  const password = data.password === undefined || data.password === '' ? undefined : data.password;
  return checkPairs(
    {
      server: serverUrl(endpoint, 'key endpoint'),
      ...(ca ? { ca: pem(ca, 'key clusterCA') } : {}),
      ...(cert ? { clientCert: pem(cert, 'key clientCert') } : {}),
      ...(key ? { clientKey: pem(key, 'key clientKey') } : {}),
      ...(token ? { token: token.trim() } : {}),
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
    },
    'the credentials Secret',
  );
}

type Entry = Record<string, unknown>;

function named(list: unknown, name: string, section: string): Entry {
  const entries = Array.isArray(list) ? list : [];
  const found = entries.find((e): e is Entry => isPlainObject(e) && e.name === name);
  if (!found) throw new CredentialsError(`key kubeconfig: ${section} has no entry named "${name}"`);
  const inner = found[section === 'clusters' ? 'cluster' : section === 'users' ? 'user' : 'context'];
  if (!isPlainObject(inner)) throw new CredentialsError(`key kubeconfig: ${section} entry "${name}" has no ${section.slice(0, -1)} object`);
  return inner;
}

function str(o: Entry, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new CredentialsError(`key kubeconfig: ${where}.${key} is not a string`);
  return v;
}

/** fromKubeconfig reads a kubeconfig's current context (or its only one); files must be embedded. */
function fromKubeconfig(text: string): TargetCluster {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    throw new CredentialsError('key kubeconfig is not YAML: want a kubeconfig file as kubectl reads it');
  }
  if (!isPlainObject(doc)) throw new CredentialsError('key kubeconfig is not a YAML mapping: want a kubeconfig file as kubectl reads it');
  const contexts = Array.isArray(doc.contexts) ? doc.contexts : [];
  const current = typeof doc['current-context'] === 'string' && doc['current-context'] !== '' ? doc['current-context'] : undefined;
  const onlyContext = contexts.length === 1 && isPlainObject(contexts[0]) && typeof contexts[0].name === 'string' ? contexts[0].name : undefined;
  const contextName = current ?? onlyContext;
  if (!contextName) throw new CredentialsError('key kubeconfig names no current-context and has more or fewer than one context: set current-context');
  const context = named(doc.contexts, contextName, 'contexts');
  const clusterName = str(context, 'cluster', `context "${contextName}"`);
  if (!clusterName) throw new CredentialsError(`key kubeconfig: context "${contextName}" names no cluster`);
  const cluster = named(doc.clusters, clusterName, 'clusters');
  const cw = `cluster "${clusterName}"`;
  if (cluster['insecure-skip-tls-verify'] === true) {
    throw new CredentialsError(`key kubeconfig: ${cw} sets insecure-skip-tls-verify, which Conductor never honours: give certificate-authority-data instead`);
  }
  for (const file of ['certificate-authority']) {
    if (str(cluster, file, cw)) throw new CredentialsError(`key kubeconfig: ${cw} names a file (${file}): embed it as ${file}-data`);
  }
  const server = str(cluster, 'server', cw);
  if (!server) throw new CredentialsError(`key kubeconfig: ${cw} has no server`);
  const caData = str(cluster, 'certificate-authority-data', cw);
  const tlsServerName = str(cluster, 'tls-server-name', cw);

  const userName = str(context, 'user', `context "${contextName}"`);
  const user: Entry = userName ? named(doc.users, userName, 'users') : {};
  const uw = `user "${userName ?? ''}"`;
  for (const file of ['client-certificate', 'client-key', 'tokenFile']) {
    if (str(user, file, uw))
      throw new CredentialsError(`key kubeconfig: ${uw} names a file (${file}): embed it (client-certificate-data, client-key-data, token)`);
  }
  if (user.exec !== undefined || user['auth-provider'] !== undefined) {
    throw new CredentialsError(
      `key kubeconfig: ${uw} runs a credential plugin (exec or auth-provider), which the kubernetes provider does not run: give a token or a client certificate`,
    );
  }
  const cert = str(user, 'client-certificate-data', uw);
  const key = str(user, 'client-key-data', uw);
  const token = str(user, 'token', uw);
  const username = str(user, 'username', uw);
  const password = str(user, 'password', uw);
  return checkPairs(
    {
      server: serverUrl(server, `key kubeconfig: ${cw}'s server`),
      ...(caData ? { ca: pem(caData, `key kubeconfig: ${cw}'s certificate-authority-data`) } : {}),
      ...(tlsServerName ? { tlsServerName } : {}),
      ...(cert ? { clientCert: pem(cert, `key kubeconfig: ${uw}'s client-certificate-data`) } : {}),
      ...(key ? { clientKey: pem(key, `key kubeconfig: ${uw}'s client-key-data`) } : {}),
      ...(token ? { token } : {}),
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
    },
    `key kubeconfig: ${uw}`,
  );
}

/**
 * targetClusterFrom reads the decoded data of a credentials Secret: the `kubeconfig` key when
 * present, else the fields. It throws a CredentialsError naming the key that is missing or
 * malformed; it never quotes a value.
 */
export function targetClusterFrom(credentials: Record<string, string> | undefined): TargetCluster {
  if (!credentials || Object.keys(credentials).length === 0) {
    throw new CredentialsError(
      'the Provider names no credentials Secret, or it is empty: want a Secret with a kubeconfig key, or endpoint, clusterCA and token (or clientCert/clientKey, username/password)',
    );
  }
  const kubeconfig = nonEmpty(credentials.kubeconfig);
  return kubeconfig ? fromKubeconfig(kubeconfig) : fromFields(credentials);
}
