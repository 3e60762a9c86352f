/**
 * What a `gcp` Provider's credentials Secret holds, read and checked for shape without the
 * SDKs (whether the key authenticates is the Provider check's business):
 * - `credentials.json`: a service-account key as the Cloud console downloads it (JSON with
 *   `type: service_account`, `client_email`, `private_key`, `project_id`). Conductor signs its
 *   own calls with it; it is never handed to claims. Optional only when both services point
 *   at emulators.
 * - `projectId`: the project (default: the Provider's `spec.project`, then the key's `project_id`).
 * - `pubsubEndpoint`, `spannerEndpoint`, `sqlEndpoint`, `redisEndpoint`, `storageEndpoint`:
 *   optional per-service endpoints — `https://host[:port]` (TLS, with the key's tokens), or
 *   plain `http://` to a loopback address only: an emulator or a test's fake, reached without
 *   TLS and without tokens (the SDKs' emulator mode, set per client).
 * - `masterPasswordKey`: optional, what Cloud SQL passwords are derived from (default: the
 *   key's private_key); needed when no credentials.json is given and Cloud SQL is emulated.
 * - `hmacAccessId`, `hmacSecret`: optional, an HMAC key (of the application service account)
 *   published to Bucket claims as accessKeyId and secretAccessKey.
 * - `applicationCredentials.json`: optional, a second service-account key (with only the roles
 *   applications need) published to claims as their `credentials`.
 *
 * Every error names the key at fault and never quotes a value.
 */

/** A ServiceAccountKey is the part of a key file the SDKs use. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  project_id?: string;
}

/** A ServiceEndpoint is where one service is reached. */
export interface ServiceEndpoint {
  host: string;
  port: number;
  /** Plain http to this machine: an emulator, no TLS, no tokens. */
  emulator: boolean;
}

/** GcpCredentials are everything a credentials Secret held, checked. */
export interface GcpCredentials {
  projectId: string;
  /** Absent only when both services are emulators. */
  key?: ServiceAccountKey;
  pubsub: ServiceEndpoint;
  spanner: ServiceEndpoint;
  /** Cloud SQL Admin API v1 (REST). */
  sql: ServiceEndpoint;
  /** Memorystore for Redis API v1 (REST). */
  redis: ServiceEndpoint;
  /** Cloud Storage JSON API (and, on Google, its S3-compatible XML API). */
  storage: ServiceEndpoint;
  /** What Cloud SQL passwords are derived from: masterPasswordKey, else the key's private_key; absent: none can be made. */
  passwordKey?: string;
  /** The HMAC key handed to Bucket claims, when the Secret has one. */
  hmac?: { accessId: string; secret: string };
  /** The application key as given (JSON text), published to claims; absent: claims get none. */
  applicationCredentials?: string;
  applicationEmail?: string;
}

/** A CredentialsError says what is wrong with a credentials Secret's keys (never quoting a value). */
export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

export const CREDENTIAL_KEYS = [
  'credentials.json',
  'projectId',
  'pubsubEndpoint',
  'spannerEndpoint',
  'sqlEndpoint',
  'redisEndpoint',
  'storageEndpoint',
  'applicationCredentials.json',
  'masterPasswordKey',
  'hmacAccessId',
  'hmacSecret',
] as const;

/** Google's project id rule: 6 to 30 lower-case letters, digits and hyphens, beginning with a letter, not ending with a hyphen. */
export const PROJECT_ID_PATTERN = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** projectIdProblem says why `id` is not a Google Cloud project id. */
export function projectIdProblem(id: string): string | undefined {
  return PROJECT_ID_PATTERN.test(id)
    ? undefined
    : 'is not a Google Cloud project id: want 6 to 30 lower-case letters, digits and hyphens, beginning with a letter';
}

/** serviceAccountKey parses a key file's text; `where` names the Secret key. */
export function serviceAccountKey(text: string, where: string): ServiceAccountKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CredentialsError(`key ${where} does not parse as JSON: want the service-account key file the Cloud console downloads`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CredentialsError(`key ${where} is not a JSON object: want the service-account key file the Cloud console downloads`);
  }
  const o = parsed as Record<string, unknown>;
  if (o.type !== 'service_account') throw new CredentialsError(`key ${where} is not a service-account key: want "type": "service_account"`);
  if (typeof o.client_email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(o.client_email)) {
    throw new CredentialsError(`key ${where} has no client_email (an e-mail address)`);
  }
  if (typeof o.private_key !== 'string' || !o.private_key.includes('-----BEGIN PRIVATE KEY-----')) {
    throw new CredentialsError(`key ${where} has no private_key in PEM form ("-----BEGIN PRIVATE KEY-----…")`);
  }
  const project = typeof o.project_id === 'string' && o.project_id !== '' ? o.project_id : undefined;
  return { client_email: o.client_email, private_key: o.private_key, ...(project !== undefined ? { project_id: project } : {}) };
}

/**
 * serviceEndpoint reads an endpoint override: https://host[:port] (TLS), or plain http only to
 * a loopback address (an emulator on this machine). No user, path, query or fragment.
 */
export function serviceEndpoint(value: string, where: string): ServiceEndpoint {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CredentialsError(`key ${where} is not a URL: want https://<host> or, for an emulator, http://127.0.0.1:<port>`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CredentialsError(`key ${where} is not an http(s) URL`);
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new CredentialsError(`key ${where} uses http to a host that is not this machine: want https (plain http only for an emulator on 127.0.0.1)`);
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new CredentialsError(`key ${where} has a user, path, query or fragment: want only scheme, host and port`);
  }
  const emulator = url.protocol === 'http:';
  const port = url.port !== '' ? Number(url.port) : emulator ? 80 : 443;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port, emulator };
}

const DEFAULT_HOSTS = {
  pubsub: 'pubsub.googleapis.com',
  spanner: 'spanner.googleapis.com',
  sql: 'sqladmin.googleapis.com',
  redis: 'redis.googleapis.com',
  storage: 'storage.googleapis.com',
} as const;
type ServiceName = keyof typeof DEFAULT_HOSTS;

/**
 * gcpCredentialsFrom reads the decoded data of a credentials Secret (and the Provider's
 * spec.project). It throws a CredentialsError naming the key that is missing or malformed.
 */
export function gcpCredentialsFrom(data: Record<string, string> | undefined, specProject?: string): GcpCredentials {
  if (!data || Object.keys(data).length === 0) {
    throw new CredentialsError(
      'the Provider names no credentials Secret, or it is empty: want a Secret with credentials.json (a service-account key) and projectId',
    );
  }
  const endpoint = (name: ServiceName): ServiceEndpoint => {
    const given = nonEmpty(data[`${name}Endpoint`]);
    return given !== undefined ? serviceEndpoint(given, `${name}Endpoint`) : { host: DEFAULT_HOSTS[name], port: 443, emulator: false };
  };
  const pubsub = endpoint('pubsub');
  const spanner = endpoint('spanner');
  const sql = endpoint('sql');
  const redis = endpoint('redis');
  const storage = endpoint('storage');
  const keyText = nonEmpty(data['credentials.json']);
  let key: ServiceAccountKey | undefined;
  if (keyText !== undefined) key = serviceAccountKey(keyText, 'credentials.json');
  else if (!(pubsub.emulator && spanner.emulator)) {
    throw new CredentialsError(
      'the credentials Secret has no credentials.json: add the service-account key (only emulators, on both pubsubEndpoint and spannerEndpoint, need none)',
    );
  }
  const given = nonEmpty(data.projectId);
  const fromSpec = specProject !== undefined && specProject !== '' ? specProject : undefined;
  const projectId = given ?? fromSpec ?? key?.project_id;
  if (projectId === undefined)
    throw new CredentialsError('the credentials Secret has no projectId, the Provider no spec.project and the key no project_id: add projectId');
  const problem = projectIdProblem(projectId);
  if (problem)
    throw new CredentialsError(
      `${given !== undefined ? 'key projectId' : fromSpec !== undefined ? 'spec.project' : 'the project_id of credentials.json'} ${problem}`,
    );
  const appText = nonEmpty(data['applicationCredentials.json']);
  const app = appText !== undefined ? serviceAccountKey(appText, 'applicationCredentials.json') : undefined;
  const passwordKey = nonEmpty(data.masterPasswordKey) ?? key?.private_key;
  if (passwordKey !== undefined && passwordKey.length < 16)
    throw new CredentialsError('key masterPasswordKey is too short: want at least 16 random characters');
  const hmacId = nonEmpty(data.hmacAccessId);
  const hmacSecret = nonEmpty(data.hmacSecret);
  if ((hmacId === undefined) !== (hmacSecret === undefined)) throw new CredentialsError('keys hmacAccessId and hmacSecret go together: give both or neither');
  return {
    projectId,
    ...(key ? { key } : {}),
    pubsub,
    spanner,
    sql,
    redis,
    storage,
    ...(passwordKey !== undefined ? { passwordKey } : {}),
    ...(hmacId !== undefined && hmacSecret !== undefined ? { hmac: { accessId: hmacId, secret: hmacSecret } } : {}),
    ...(app && appText !== undefined ? { applicationCredentials: appText, applicationEmail: app.client_email } : {}),
  };
}

/**
 * keyFor is the service-account key a client of `endpoint` signs with: none for an emulator,
 * else the Secret's credentials.json (a CredentialsError naming the Secret key when it has none).
 */
export function keyFor(c: GcpCredentials, endpoint: ServiceEndpoint, secretKey: string): ServiceAccountKey | undefined {
  if (endpoint.emulator) return undefined;
  if (!c.key)
    throw new CredentialsError(
      `the credentials Secret has no credentials.json, and ${secretKey} is not an emulator on this machine: add the service-account key`,
    );
  return c.key;
}

/** endpointText is how an endpoint is published: `host:port`. */
export const endpointText = (e: ServiceEndpoint): string => `${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
