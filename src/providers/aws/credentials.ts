/**
 * What an `aws` Provider's credentials Secret holds, read and checked for shape without the
 * SDK (whether the keys authenticate is the Provider check's business):
 * - `accessKeyId` and `secretAccessKey` (an IAM user's access key, or temporary keys with
 *   `sessionToken`);
 * - optional `roleArn` (and `externalId`): a role Conductor assumes with those keys (STS
 *   AssumeRole) for every call;
 * - optional per-service endpoints `s3Endpoint`, `sqsEndpoint`, `rdsEndpoint`,
 *   `elasticacheEndpoint`, `stsEndpoint` (how tests reach an emulator): https, or plain http
 *   only to a loopback address;
 * - optional `claimCredentials`: `federated` (default: each claim gets temporary keys scoped to
 *   its own bucket or queue, from STS) or `provider` (each claim gets the Provider's own keys —
 *   for an emulator, or an account that serves one tenant);
 * - optional `masterPasswordKey`: the key RDS master passwords are derived from (default the
 *   secretAccessKey; set it so rotating the access key does not change the passwords).
 *
 * Every error names the key at fault and never quotes a value.
 */

/** The services an endpoint may be overridden for. */
export const AWS_SERVICES = ['s3', 'sqs', 'rds', 'elasticache', 'sts'] as const;
export type AwsService = (typeof AWS_SERVICES)[number];

/** How a claim's Secret gets credentials. */
export type ClaimCredentialsMode = 'federated' | 'provider';

/** AwsCredentials are everything a credentials Secret held, checked. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  roleArn?: string;
  externalId?: string;
  /** Base URLs without a trailing slash, by service. */
  endpoints: Partial<Record<AwsService, string>>;
  claimCredentials: ClaimCredentialsMode;
  /** What RDS master passwords are derived from: never published, never logged. */
  masterPasswordKey: string;
}

/** A CredentialsError says what is wrong with a credentials Secret's keys (never quoting a value). */
export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

/** The keys a credentials Secret may have. */
export const CREDENTIAL_KEYS = [
  'accessKeyId',
  'secretAccessKey',
  'sessionToken',
  'roleArn',
  'externalId',
  ...AWS_SERVICES.map((s) => `${s}Endpoint`),
  'claimCredentials',
  'masterPasswordKey',
] as const;

const ACCESS_KEY_ID = /^[A-Z0-9]{16,128}$/;
const SECRET_KEY = /^[A-Za-z0-9/+=_-]{16,128}$/;
const ROLE_ARN = /^arn:aws:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

/**
 * serviceEndpoint reads a service's base URL: https, or plain http only to a loopback address
 * (an emulator on this machine: requests are signed, not sent with the key, but data would
 * travel in clear). No user, query or fragment.
 */
export function serviceEndpoint(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CredentialsError(`${where} is not a URL: want https://<host> or, for an emulator, http://127.0.0.1:<port>`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CredentialsError(`${where} is not an http(s) URL`);
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new CredentialsError(`${where} uses http to a host that is not this machine: want https (plain http only for an emulator on 127.0.0.1)`);
  }
  if (url.username || url.password || url.search || url.hash)
    throw new CredentialsError(`${where} has a user, query or fragment: want only scheme, host, port and path`);
  return url.toString().replace(/\/+$/, '');
}

/**
 * awsCredentialsFrom reads the decoded data of a credentials Secret. It throws a
 * CredentialsError naming the key that is missing or malformed; it never quotes a value.
 */
export function awsCredentialsFrom(data: Record<string, string> | undefined): AwsCredentials {
  if (!data || Object.keys(data).length === 0) {
    throw new CredentialsError('the Provider names no credentials Secret, or it is empty: want a Secret with accessKeyId and secretAccessKey');
  }
  const accessKeyId = nonEmpty(data.accessKeyId);
  const secretAccessKey = nonEmpty(data.secretAccessKey);
  if (accessKeyId === undefined && secretAccessKey === undefined)
    throw new CredentialsError('the credentials Secret has neither accessKeyId nor secretAccessKey: add both (an IAM access key)');
  if (accessKeyId === undefined) throw new CredentialsError('the credentials Secret has secretAccessKey but no accessKeyId: add accessKeyId');
  if (secretAccessKey === undefined) throw new CredentialsError('the credentials Secret has accessKeyId but no secretAccessKey: add secretAccessKey');
  if (!ACCESS_KEY_ID.test(accessKeyId))
    throw new CredentialsError('key accessKeyId is not an AWS access key ID: want 16 to 128 upper-case letters and digits (e.g. AKIA…)');
  if (!SECRET_KEY.test(secretAccessKey))
    throw new CredentialsError('key secretAccessKey is not an AWS secret access key: want 16 to 128 letters, digits and + / = _ - (40 for IAM keys)');
  const sessionToken = nonEmpty(data.sessionToken);
  if (sessionToken !== undefined && /\s/.test(sessionToken)) throw new CredentialsError('key sessionToken holds whitespace: want the token as STS issued it');
  const roleArn = nonEmpty(data.roleArn);
  if (roleArn !== undefined && !ROLE_ARN.test(roleArn))
    throw new CredentialsError('key roleArn is not an IAM role ARN: want arn:aws:iam::<12-digit account>:role/<name>');
  const externalId = nonEmpty(data.externalId);
  if (externalId !== undefined && roleArn === undefined)
    throw new CredentialsError('key externalId is set without roleArn: add roleArn (or remove externalId)');
  if (externalId !== undefined && !EXTERNAL_ID.test(externalId))
    throw new CredentialsError('key externalId is not an external ID: want 2 to 1224 letters, digits and +=,.@:/-');
  const endpoints: Partial<Record<AwsService, string>> = {};
  for (const service of AWS_SERVICES) {
    const key = `${service}Endpoint`;
    const given = nonEmpty(data[key]);
    if (given !== undefined) endpoints[service] = serviceEndpoint(given, `key ${key}`);
  }
  const mode = nonEmpty(data.claimCredentials) ?? 'federated';
  if (mode !== 'federated' && mode !== 'provider') throw new CredentialsError('key claimCredentials is neither federated nor provider');
  const masterPasswordKey = nonEmpty(data.masterPasswordKey) ?? secretAccessKey;
  if (masterPasswordKey.length < 16) throw new CredentialsError('key masterPasswordKey is shorter than 16 characters: want a long random string');
  return {
    accessKeyId,
    secretAccessKey,
    ...(sessionToken !== undefined ? { sessionToken } : {}),
    ...(roleArn !== undefined ? { roleArn } : {}),
    ...(externalId !== undefined ? { externalId } : {}),
    endpoints,
    claimCredentials: mode,
    masterPasswordKey,
  };
}

/** hasStsOnlyThroughEmulator: endpoints are given, but none for STS — an emulator without STS (the check lists buckets instead). */
export function checksWithoutSts(credentials: AwsCredentials): boolean {
  return credentials.endpoints.sts === undefined && credentials.endpoints.s3 !== undefined && credentials.roleArn === undefined;
}
