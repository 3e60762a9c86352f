/**
 * The options every AWS SDK client of the provider shares, the identity its calls are made
 * as, and the temporary keys handed to claims:
 * - a client's region, endpoint override (from the credentials Secret), one attempt per call
 *   (the reconciler retries with its own backoff) and bounded connect and request times;
 * - with `roleArn`, calls are made as that role: STS AssumeRole with the Secret's keys, the
 *   result kept until 5 minutes before it expires;
 * - `claimKeys`: what a claim's Secret gets — in `federated` mode temporary keys whose session
 *   policy allows only its own bucket or queue (STS AssumeRole of `roleArn` with that policy,
 *   or GetFederationToken for an IAM user's keys), kept and re-published unchanged until a
 *   third of their life has passed; in `provider` mode the Provider's own keys.
 */
import { createHash } from 'node:crypto';
import { Agent } from 'node:https';
import { Agent as HttpAgent } from 'node:http';
import { AssumeRoleCommand, GetFederationTokenCommand, STSClient, type Credentials } from '@aws-sdk/client-sts';
import { checksWithoutSts, CredentialsError, type AwsCredentials, type AwsService } from './credentials.js';
import { AwsError, awsError, isAbort } from './errors.js';

/** Keys as the SDK takes them. */
export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

const DEFAULT_REGION_FOR_STS = 'us-east-1';

/**
 * Every SDK call makes one attempt: the managed reconciler retries with its own backoff (or
 * the cloud's Retry-After) and bounds each call with its deadline, so a retry hidden inside the
 * SDK would only spend that deadline and hide a throttling answer's wait.
 */
export const ONE_ATTEMPT = 1;

/** clientConfig is the configuration of an SDK client of `service` in `region`. */
export function clientConfig(credentials: AwsCredentials, region: string, service: AwsService) {
  const endpoint = credentials.endpoints[service];
  return {
    region,
    credentials: identityOf(credentials, region),
    maxAttempts: ONE_ATTEMPT,
    ...(endpoint !== undefined ? { endpoint } : {}),
    // Made per reconcile and dropped: no idle keep-alive sockets left behind.
    requestHandler: {
      connectionTimeout: 5_000,
      requestTimeout: 30_000,
      httpAgent: new HttpAgent({ keepAlive: false }),
      httpsAgent: new Agent({ keepAlive: false }),
    },
  };
}

/** stsClient is an STS client signing with the Secret's own keys (never an assumed role's). */
export function stsClient(credentials: AwsCredentials, region: string): STSClient {
  const endpoint = credentials.endpoints.sts;
  return new STSClient({
    region: region || DEFAULT_REGION_FOR_STS,
    credentials: baseKeys(credentials),
    maxAttempts: ONE_ATTEMPT,
    ...(endpoint !== undefined ? { endpoint } : {}),
    requestHandler: {
      connectionTimeout: 5_000,
      requestTimeout: 30_000,
      httpAgent: new HttpAgent({ keepAlive: false }),
      httpsAgent: new Agent({ keepAlive: false }),
    },
  });
}

/** baseKeys are the Secret's keys. */
export function baseKeys(credentials: AwsCredentials): AwsKeys {
  return {
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    ...(credentials.sessionToken !== undefined ? { sessionToken: credentials.sessionToken } : {}),
  };
}

interface Cached {
  keys: AwsKeys;
  /** When it was issued and when it expires. */
  issuedAt: number;
  expiresAt: number;
}

/** Assumed-role and claim keys, by a fingerprint of who asked for what. Never written anywhere. */
const cache = new Map<string, Cached>();
const CACHE_LIMIT = 10_000;

function remember(key: string, value: Cached): void {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
}

/** forgetCachedKeys empties the cache (tests). */
export function forgetCachedKeys(): void {
  cache.clear();
}

const fingerprint = (...parts: (string | undefined)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${Buffer.byteLength(p ?? '')}:${p ?? ''};`);
  return h.digest('hex');
};

function keysOf(c: Credentials | undefined, what: string): AwsKeys {
  if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error(`STS returned no credentials for ${what}`);
  return {
    accessKeyId: c.AccessKeyId,
    secretAccessKey: c.SecretAccessKey,
    ...(c.SessionToken ? { sessionToken: c.SessionToken } : {}),
    ...(c.Expiration ? { expiration: c.Expiration } : {}),
  };
}

/** identityOf is what the SDK signs with: the Secret's keys, or (with roleArn) the role assumed with them. */
function identityOf(credentials: AwsCredentials, region: string): AwsKeys | (() => Promise<AwsKeys>) {
  const roleArn = credentials.roleArn;
  if (roleArn === undefined) return baseKeys(credentials);
  return async () => {
    const id = fingerprint(
      'role',
      credentials.accessKeyId,
      credentials.secretAccessKey,
      credentials.sessionToken,
      roleArn,
      credentials.externalId,
      credentials.endpoints.sts,
    );
    const hit = cache.get(id);
    if (hit && hit.expiresAt - Date.now() > 5 * 60_000) return hit.keys;
    let out;
    try {
      out = await stsClient(credentials, region).send(
        new AssumeRoleCommand({
          RoleArn: roleArn,
          RoleSessionName: 'conductor',
          DurationSeconds: 3600,
          ...(credentials.externalId !== undefined ? { ExternalId: credentials.externalId } : {}),
        }),
      );
    } catch (err) {
      throw awsError(err, 'assume the role named by roleArn');
    }
    const keys = keysOf(out.Credentials, 'the role');
    remember(id, { keys, issuedAt: Date.now(), expiresAt: keys.expiration?.getTime() ?? Date.now() + 3_600_000 });
    return keys;
  };
}

/** What a claim's keys allow: a name for the session and an IAM policy document. */
export interface ClaimScope {
  /** A readable name of what is allowed ("bucket shop-photos-…"), for messages. */
  what: string;
  policy: object;
}

/** The keys handed to a claim, and when they expire ('' for keys that do not). */
export interface ClaimKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiresAt: string;
}

/** How long federated claim keys are asked for: GetFederationToken allows up to 36 h; role sessions default to at most 1 h. */
export const FEDERATION_TOKEN_SECONDS = 12 * 3600;
export const ROLE_SESSION_SECONDS = 3600;

/**
 * claimKeys returns the keys a claim's Secret gets for `scope` (see the module comment).
 * Keys issued less than a third of their life ago are returned again, so re-observing
 * publishes the same Secret.
 */
export async function claimKeys(
  credentials: AwsCredentials,
  region: string,
  scope: ClaimScope,
  signal?: AbortSignal,
  now: () => number = Date.now,
): Promise<ClaimKeys> {
  if (credentials.claimCredentials === 'provider') {
    return { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken ?? '', expiresAt: '' };
  }
  if (checksWithoutSts(credentials)) {
    throw new CredentialsError(
      `claimCredentials federated needs STS to issue keys for ${scope.what}, and the credentials Secret gives service endpoints but no stsEndpoint (an emulator without STS): add stsEndpoint, or set claimCredentials: provider to hand claims the Provider's own keys`,
    );
  }
  if (credentials.roleArn === undefined && credentials.sessionToken !== undefined) {
    throw new CredentialsError(
      `claimCredentials federated cannot issue keys for ${scope.what} with temporary keys (sessionToken): STS GetFederationToken needs an IAM user's long-term keys — add roleArn (a role whose sessions are scoped per claim) or use long-term keys`,
    );
  }
  const policy = JSON.stringify(scope.policy);
  const id = fingerprint('claim', credentials.accessKeyId, credentials.secretAccessKey, credentials.roleArn, credentials.endpoints.sts, policy);
  const hit = cache.get(id);
  const t = now();
  if (hit && t - hit.issuedAt < (hit.expiresAt - hit.issuedAt) / 3) return published(hit.keys);
  const sessionName = `conductor-${fingerprint(policy).slice(0, 16)}`;
  let out;
  try {
    const sts = stsClient(credentials, region);
    out =
      credentials.roleArn !== undefined
        ? await sts.send(
            new AssumeRoleCommand({
              RoleArn: credentials.roleArn,
              RoleSessionName: sessionName,
              Policy: policy,
              DurationSeconds: ROLE_SESSION_SECONDS,
              ...(credentials.externalId !== undefined ? { ExternalId: credentials.externalId } : {}),
            }),
            { abortSignal: signal },
          )
        : await sts.send(new GetFederationTokenCommand({ Name: sessionName, Policy: policy, DurationSeconds: FEDERATION_TOKEN_SECONDS }), {
            abortSignal: signal,
          });
  } catch (err) {
    throw awsError(err, `issue keys for ${scope.what}`);
  }
  const keys = keysOf(out.Credentials, scope.what);
  const seconds = credentials.roleArn !== undefined ? ROLE_SESSION_SECONDS : FEDERATION_TOKEN_SECONDS;
  remember(id, { keys, issuedAt: t, expiresAt: keys.expiration?.getTime() ?? t + seconds * 1000 });
  return published(keys);
}

function published(keys: AwsKeys): ClaimKeys {
  return {
    accessKeyId: keys.accessKeyId,
    secretAccessKey: keys.secretAccessKey,
    sessionToken: keys.sessionToken ?? '',
    expiresAt: keys.expiration ? keys.expiration.toISOString() : '',
  };
}

/** bucketPolicy allows the objects of one bucket and listing it — nothing else. */
export function bucketPolicy(bucket: string): object {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: [
          's3:GetObject',
          's3:PutObject',
          's3:DeleteObject',
          's3:GetObjectVersion',
          's3:DeleteObjectVersion',
          's3:AbortMultipartUpload',
          's3:ListMultipartUploadParts',
        ],
        Resource: `arn:aws:s3:::${bucket}/*`,
      },
      {
        Effect: 'Allow',
        Action: ['s3:ListBucket', 's3:ListBucketVersions', 's3:ListBucketMultipartUploads', 's3:GetBucketLocation'],
        Resource: `arn:aws:s3:::${bucket}`,
      },
    ],
  };
}

/** queuePolicy allows sending, receiving and deleting messages of one queue — nothing else. */
export function queuePolicy(queueArn: string): object {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        Resource: queueArn,
      },
    ],
  };
}

/**
 * claimDetails runs `details` for an observation: the connection details, or — when no keys
 * can be issued for the claim (no STS, temporary keys, STS refusing) — the resource reported
 * not ready with the reason, so the bucket or queue can still be observed and deleted.
 */
export async function claimDetails(
  details: () => Promise<Record<string, string>>,
): Promise<{ connectionDetails: Record<string, string> } | { notReady: { reason: string; message: string } }> {
  try {
    return { connectionDetails: await details() };
  } catch (err) {
    if (isAbort(err)) throw err;
    if (err instanceof CredentialsError) return { notReady: { reason: 'ClaimKeysUnavailable', message: err.message } };
    if (err instanceof AwsError) return { notReady: { reason: 'ClaimKeysUnavailable', message: `${err.message} (reason ${err.reason})` } };
    throw err;
  }
}
