/**
 * Kubeconfig loading: a kubeconfig file (the format kubectl reads) is reduced to the one
 * ClientConfig its chosen context describes — the server, how to trust it, and how to
 * authenticate — which is what HttpClient needs.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../machinery/object.js';

/** A ClientConfig says how to reach and authenticate to one API server. */
export interface ClientConfig {
  /** Base URL of the API server, e.g. `https://127.0.0.1:6443` (http: is allowed too). */
  server: string;
  /** PEM certificates trusted for the server; absent means the system's roots. */
  ca?: string;
  insecureSkipTlsVerify?: boolean;
  /** The name to verify the server's certificate against (SNI), when it differs from the host. */
  tlsServerName?: string;
  /** A bearer token. */
  token?: string;
  /** A file holding a bearer token, re-read periodically (rotated service-account tokens). */
  tokenFile?: string;
  /** PEM client certificate and key for mutual TLS. */
  clientCertificate?: string;
  clientKey?: string;
  /** HTTP basic authentication. */
  username?: string;
  password?: string;
  /** The context's default namespace, if it names one. */
  namespace?: string;
  /** The name of the kubeconfig context this came from. */
  context?: string;
}

/** A KubeconfigError says which kubeconfig (and which part of it) could not be used. */
export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

/** A NamedCluster is one `clusters[]` entry of a kubeconfig, with its keys as written. */
export interface KubeconfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

export interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  /** Present when the user runs a credential plugin (not supported; reported clearly). */
  exec?: unknown;
  'auth-provider'?: unknown;
}

export interface KubeconfigContext {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/** A Kubeconfig is the parsed file: named clusters, users and contexts, and the current context. */
export interface Kubeconfig {
  currentContext?: string;
  clusters: Map<string, KubeconfigCluster>;
  users: Map<string, KubeconfigUser>;
  contexts: Map<string, KubeconfigContext>;
}

export interface ResolveOptions {
  /** Use this context instead of `current-context`. */
  context?: string;
  /** Directory that relative file paths in the kubeconfig resolve against. */
  baseDir: string;
  /** Names the kubeconfig in error messages (usually its path). */
  source?: string;
}

/**
 * Parses kubeconfig YAML into its named entries. It checks the shape (lists of named
 * entries, string fields) and reports what is wrong with where it is; it reads no files.
 */
export function parseKubeconfig(text: string, source = 'kubeconfig'): Kubeconfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new KubeconfigError(`${source}: cannot parse YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isPlainObject(doc)) throw new KubeconfigError(`${source}: expected a YAML mapping at the top level`);
  const currentContext = optionalString(doc, 'current-context', source);
  return {
    ...(currentContext ? { currentContext } : {}),
    clusters: namedEntries(doc, 'clusters', 'cluster', source, clusterKeys),
    users: namedEntries(doc, 'users', 'user', source, userKeys),
    contexts: namedEntries(doc, 'contexts', 'context', source, contextKeys),
  };
}

type FieldKinds = Record<string, 'string' | 'boolean' | 'unknown'>;
const clusterKeys: FieldKinds = {
  server: 'string',
  'certificate-authority': 'string',
  'certificate-authority-data': 'string',
  'insecure-skip-tls-verify': 'boolean',
  'tls-server-name': 'string',
};
const userKeys: FieldKinds = {
  token: 'string',
  tokenFile: 'string',
  'client-certificate': 'string',
  'client-certificate-data': 'string',
  'client-key': 'string',
  'client-key-data': 'string',
  username: 'string',
  password: 'string',
  exec: 'unknown',
  'auth-provider': 'unknown',
};
const contextKeys: FieldKinds = { cluster: 'string', user: 'string', namespace: 'string' };

function optionalString(obj: Record<string, unknown>, key: string, where: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new KubeconfigError(`${where}: ${key} must be a string, got ${typeof v}`);
  return v;
}

function namedEntries(
  doc: Record<string, unknown>,
  listKey: string,
  entryKey: string,
  source: string,
  kinds: FieldKinds,
): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const list = doc[listKey];
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new KubeconfigError(`${source}: ${listKey} must be a list`);
  list.forEach((item, i) => {
    const where = `${source}: ${listKey}[${i}]`;
    if (!isPlainObject(item)) throw new KubeconfigError(`${where} must be a mapping with name and ${entryKey}`);
    const name = item.name;
    if (typeof name !== 'string' || name === '') throw new KubeconfigError(`${where} has no name`);
    const body = item[entryKey] ?? {};
    if (!isPlainObject(body)) throw new KubeconfigError(`${where} (${JSON.stringify(name)}): ${entryKey} must be a mapping`);
    const entry: Record<string, unknown> = {};
    for (const [key, kind] of Object.entries(kinds)) {
      const v = body[key];
      if (v === undefined || v === null) continue;
      if (kind === 'string' && typeof v !== 'string') {
        throw new KubeconfigError(`${where} (${JSON.stringify(name)}): ${key} must be a string, got ${typeof v}`);
      }
      if (kind === 'boolean' && typeof v !== 'boolean') {
        throw new KubeconfigError(`${where} (${JSON.stringify(name)}): ${key} must be true or false`);
      }
      entry[key] = v;
    }
    out.set(name, entry);
  });
  return out;
}

/**
 * Resolves the chosen context of a parsed kubeconfig into a ClientConfig, reading the
 * certificate files it names (relative paths resolve against `baseDir`).
 */
export async function resolveKubeconfig(kc: Kubeconfig, options: ResolveOptions): Promise<ClientConfig> {
  const source = options.source ?? 'kubeconfig';
  const contextName = options.context ?? kc.currentContext;
  if (!contextName) {
    throw new KubeconfigError(`${source}: current-context is not set and no context was requested${known(kc.contexts)}`);
  }
  const context = kc.contexts.get(contextName);
  if (!context) throw new KubeconfigError(`${source}: context ${JSON.stringify(contextName)} not found${known(kc.contexts)}`);
  if (!context.cluster) throw new KubeconfigError(`${source}: context ${JSON.stringify(contextName)} names no cluster`);
  const cluster = kc.clusters.get(context.cluster);
  if (!cluster) {
    throw new KubeconfigError(
      `${source}: cluster ${JSON.stringify(context.cluster)} (used by context ${JSON.stringify(contextName)}) not found${known(kc.clusters)}`,
    );
  }
  const clusterWhere = `${source}: cluster ${JSON.stringify(context.cluster)}`;
  if (!cluster.server) throw new KubeconfigError(`${clusterWhere} has no server`);
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw new KubeconfigError(`${clusterWhere}: server ${JSON.stringify(cluster.server)} is not a URL`);
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') {
    throw new KubeconfigError(`${clusterWhere}: server ${JSON.stringify(cluster.server)} must be an http(s) URL`);
  }

  const config: ClientConfig = { server: cluster.server.replace(/\/+$/, ''), context: contextName };
  if (context.namespace) config.namespace = context.namespace;
  if (cluster['insecure-skip-tls-verify']) config.insecureSkipTlsVerify = true;
  if (cluster['tls-server-name']) config.tlsServerName = cluster['tls-server-name'];
  const ca = await material(cluster, 'certificate-authority', options.baseDir, clusterWhere);
  if (ca) config.ca = ca;

  if (context.user) {
    const user = kc.users.get(context.user);
    if (!user) {
      throw new KubeconfigError(`${source}: user ${JSON.stringify(context.user)} (used by context ${JSON.stringify(contextName)}) not found${known(kc.users)}`);
    }
    const userWhere = `${source}: user ${JSON.stringify(context.user)}`;
    if (user.token) config.token = user.token;
    else if (user.tokenFile) config.tokenFile = absolute(user.tokenFile, options.baseDir);
    const cert = await material(user, 'client-certificate', options.baseDir, userWhere);
    const key = await material(user, 'client-key', options.baseDir, userWhere);
    if (cert && !key) throw new KubeconfigError(`${userWhere} has a client certificate but no client-key or client-key-data`);
    if (key && !cert) throw new KubeconfigError(`${userWhere} has a client key but no client-certificate or client-certificate-data`);
    if (cert && key) {
      config.clientCertificate = cert;
      config.clientKey = key;
    }
    if (user.username !== undefined) {
      config.username = user.username;
      config.password = user.password ?? '';
    }
    const hasCredentials = config.token || config.tokenFile || config.clientCertificate || config.username !== undefined;
    if (!hasCredentials && (user.exec !== undefined || user['auth-provider'] !== undefined)) {
      const kind = user.exec !== undefined ? 'an exec credential plugin' : 'an auth-provider';
      throw new KubeconfigError(`${userWhere} uses ${kind}, which is not supported; expected a token or a client certificate`);
    }
  }
  return config;
}

function known(entries: Map<string, unknown>): string {
  const names = [...entries.keys()];
  return names.length ? ` (known: ${names.map((n) => JSON.stringify(n)).join(', ')})` : '';
}

function absolute(path: string, baseDir: string): string {
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/** Reads `<key>-data` (base64) or the file named by `<key>`, as text. */
async function material(
  entry: object,
  key: 'certificate-authority' | 'client-certificate' | 'client-key',
  baseDir: string,
  where: string,
): Promise<string | undefined> {
  const fields = entry as Record<string, string | undefined>;
  const data = fields[`${key}-data`];
  if (data) {
    const text = Buffer.from(data, 'base64').toString('utf8');
    if (!text.includes('-----BEGIN')) throw new KubeconfigError(`${where}: ${key}-data is not base64-encoded PEM`);
    return text;
  }
  const file = fields[key];
  if (!file) return undefined;
  const path = absolute(file, baseDir);
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`${where}: cannot read ${key} file ${path}: ${(err as Error).message}`);
  }
}

/** Loads the kubeconfig at `path` and resolves its current (or the named) context. */
export async function loadKubeconfig(path: string, options: { context?: string } = {}): Promise<ClientConfig> {
  const full = resolve(path);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`cannot read kubeconfig ${full}: ${(err as Error).message}`);
  }
  const kc = parseKubeconfig(text, full);
  return resolveKubeconfig(kc, { ...options, baseDir: dirname(full), source: full });
}

/**
 * The kubeconfig path the environment selects: the first entry of `KUBECONFIG` (a list
 * separated like PATH; later files are not merged), else `~/.kube/config`.
 */
export function kubeconfigPathFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const first = (env.KUBECONFIG ?? '').split(delimiter).find((p) => p.trim() !== '');
  return first ? first.trim() : join(env.HOME || homedir(), '.kube', 'config');
}

/** Loads the kubeconfig the environment selects (see kubeconfigPathFromEnv). */
export async function kubeconfigFromEnv(options: { context?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ClientConfig> {
  return loadKubeconfig(kubeconfigPathFromEnv(options.env), { context: options.context });
}

/** Where a pod's service-account credentials are mounted. */
export const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The config of a process running in a Kubernetes pod: the API server from
 * KUBERNETES_SERVICE_HOST/PORT, trusted with the mounted CA, authenticated by the mounted
 * (rotating) service-account token.
 */
export async function inClusterConfig(options: { env?: NodeJS.ProcessEnv; dir?: string } = {}): Promise<ClientConfig> {
  const env = options.env ?? process.env;
  const dir = options.dir ?? serviceAccountDir;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new KubeconfigError('not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set');
  }
  const read = async (name: string, required: boolean): Promise<string | undefined> => {
    try {
      return await readFile(join(dir, name), 'utf8');
    } catch (err) {
      if (!required) return undefined;
      throw new KubeconfigError(`cannot read service-account ${name} in ${dir}: ${(err as Error).message}`);
    }
  };
  const ca = await read('ca.crt', true);
  await read('token', true);
  const namespace = (await read('namespace', false))?.trim();
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    server: `https://${hostPart}:${port}`,
    ...(ca ? { ca } : {}),
    tokenFile: join(dir, 'token'),
    ...(namespace ? { namespace } : {}),
  };
}
