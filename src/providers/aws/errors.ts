/**
 * What a failed AWS call means, for conditions and the Provider's Ready reason. SDK v3 errors
 * carry the service's error code as `name` and the HTTP status in `$metadata`; a request
 * that got no answer carries a network code. Messages keep the first line of AWS's message
 * and never hold a key: the SDK signs requests and never puts credentials in an error. A
 * throttling answer's wait (`Retry-After`, or `x-amz-retry-after` in milliseconds, on the
 * error's `$response`) becomes `retryAfterSeconds`: the reconciler retries then.
 */
import { boundedRetryAfter, headerOf, retryAfterHeaderSeconds, retryingIn } from '../retry-after.js';

/** The reasons a Provider's Ready condition or a resource's message may give. */
export type AwsFailureReason =
  | 'Unreachable'
  | 'AuthenticationFailed'
  | 'Forbidden'
  | 'Throttled'
  | 'QuotaExceeded'
  | 'InsufficientCapacity'
  | 'InvalidParameter'
  | 'AlreadyExists'
  | 'NotFound'
  | 'RequestFailed';

/** An AwsError is a failed AWS call, classified; `retryAfterSeconds` is AWS's Retry-After (bounded) when it sent one. */
export class AwsError extends Error {
  constructor(
    readonly reason: AwsFailureReason,
    message: string,
    readonly code?: string,
    readonly statusCode?: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AwsError';
  }
}

interface SdkErrorLike {
  name?: string;
  message?: string;
  code?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: unknown };
}

const AUTH = new Set([
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'InvalidAccessKeyId',
  'AuthFailure',
  'UnrecognizedClientException',
  'ExpiredToken',
  'ExpiredTokenException',
  'IncompleteSignature',
  'InvalidToken',
]);
const FORBIDDEN = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'AuthorizationError', 'AllAccessDisabled']);
const THROTTLED = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
  'RequestThrottled',
  'RequestThrottledException',
  'APICallRateForCustomerExceeded',
  'APICallRateForCustomerExceededFault',
]);
const QUOTA = new Set([
  'InstanceQuotaExceeded',
  'InstanceQuotaExceededFault',
  'StorageQuotaExceeded',
  'StorageQuotaExceededFault',
  'TooManyBuckets',
  'OverLimit',
  'QuotaExceeded',
  'ServiceQuotaExceededException',
  // ElastiCache: clusters (and so replication groups) per account, nodes per account and per cluster, shards per group.
  'ClusterQuotaForCustomerExceeded',
  'ClusterQuotaForCustomerExceededFault',
  'NodeQuotaForCustomerExceeded',
  'NodeQuotaForCustomerExceededFault',
  'NodeQuotaForClusterExceeded',
  'NodeQuotaForClusterExceededFault',
  'NodeGroupsPerReplicationGroupQuotaExceeded',
  'NodeGroupsPerReplicationGroupQuotaExceededFault',
]);
/** AWS has no capacity for the asked size in the zone right now: said, and retried (the reconciler's backoff). */
const CAPACITY = new Set(['InsufficientCacheClusterCapacity', 'InsufficientCacheClusterCapacityFault']);
const INVALID = new Set([
  'InvalidParameterValue',
  'InvalidParameterCombination',
  'ValidationError',
  'InvalidBucketName',
  'InvalidAttributeName',
  'InvalidAttributeValue',
  'InvalidParameterValueException',
  'InvalidParameterCombinationException',
  'InvalidLocationConstraint',
  'IllegalLocationConstraintException',
  'InvalidDBInstanceClass',
  'StorageTypeNotSupported',
  'StorageTypeNotSupportedFault',
  'InsufficientDBInstanceCapacity',
]);
const ALREADY = new Set([
  'DBInstanceAlreadyExists',
  'DBInstanceAlreadyExistsFault',
  'BucketAlreadyExists',
  'QueueNameExists',
  'QueueAlreadyExists',
  'ReplicationGroupAlreadyExists',
  'ReplicationGroupAlreadyExistsFault',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'TimeoutError', 'EPIPE']);

/** codeOf is the AWS error code of an SDK error (its name), or a network error's code. */
export function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as SdkErrorLike;
  if (typeof e.Code === 'string') return e.Code;
  if (typeof e.code === 'string' && e.code !== '') return e.code;
  return typeof e.name === 'string' && e.name !== 'Error' ? e.name : undefined;
}

/** statusOf is the HTTP status of an SDK error, if an answer came. */
export function statusOf(err: unknown): number | undefined {
  const status = typeof err === 'object' && err !== null ? (err as SdkErrorLike).$metadata?.httpStatusCode : undefined;
  return typeof status === 'number' && status > 0 ? status : undefined;
}

/** retryAfterOf is how long an answer asks to wait, bounded: `x-amz-retry-after` (ms) or `Retry-After` (seconds or a date) of the error's response. */
export function retryAfterOf(err: unknown): number | undefined {
  const headers = typeof err === 'object' && err !== null ? (err as SdkErrorLike).$response?.headers : undefined;
  const amz = headerOf(headers, 'x-amz-retry-after');
  const ms = amz !== undefined && amz !== null && String(amz).trim() !== '' ? Number(amz) : Number.NaN;
  if (Number.isFinite(ms) && ms >= 0) return boundedRetryAfter(ms / 1000);
  return boundedRetryAfter(retryAfterHeaderSeconds(headerOf(headers, 'retry-after')));
}

/** isAbort tells an aborted call (its signal fired): passed on unchanged. */
export function isAbort(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as SdkErrorLike).name === 'AbortError';
}

function firstLine(text: string | undefined): string {
  const line = (text ?? '').split('\n')[0].trim();
  return line === '' ? 'no message' : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** awsError classifies a failed call of `what` ("create bucket x"); an abort is returned as it is, so the caller rethrows it. */
export function awsError(err: unknown, what: string): Error {
  if (isAbort(err)) return err as Error;
  if (err instanceof AwsError) return err;
  const status = statusOf(err);
  const code = codeOf(err);
  const message = firstLine(err instanceof Error ? err.message : String(err));
  if (status === undefined && (code === undefined || NETWORK_CODES.has(code) || /^E[A-Z]+$/.test(code))) {
    return new AwsError('Unreachable', `cannot ${what}: no answer (${code ? `${code}: ` : ''}${message})`, code);
  }
  const said = `AWS answered ${status ?? '(no status)'}${code ? ` ${code}` : ''}: ${message}`;
  if (code !== undefined && AUTH.has(code))
    return new AwsError(
      'AuthenticationFailed',
      `cannot ${what}: ${said} — check accessKeyId, secretAccessKey and sessionToken in the credentials Secret`,
      code,
      status,
    );
  if (code !== undefined && FORBIDDEN.has(code))
    return new AwsError('Forbidden', `cannot ${what}: ${said} — the IAM identity lacks a permission this needs`, code, status);
  if ((code !== undefined && THROTTLED.has(code)) || status === 429 || status === 503) {
    const wait = retryAfterOf(err);
    return new AwsError(
      'Throttled',
      `cannot ${what}: ${said} — throttled by AWS; ${wait !== undefined ? retryingIn(wait) : 'retried with backoff'}`,
      code,
      status,
      wait,
    );
  }
  if (code !== undefined && QUOTA.has(code))
    return new AwsError('QuotaExceeded', `cannot ${what}: ${said} — an account quota is reached: raise it in Service Quotas or remove something`, code, status);
  if (code !== undefined && CAPACITY.has(code))
    return new AwsError(
      'InsufficientCapacity',
      `cannot ${what}: ${said} — AWS has no capacity for this node type in the zone now; retried with backoff (or choose another node type or subnet group)`,
      code,
      status,
    );
  if (code !== undefined && INVALID.has(code)) return new AwsError('InvalidParameter', `cannot ${what}: ${said}`, code, status);
  if (code !== undefined && ALREADY.has(code)) return new AwsError('AlreadyExists', `cannot ${what}: ${said}`, code, status);
  if (status === 403) return new AwsError('Forbidden', `cannot ${what}: ${said}`, code, status);
  if (status === 404) return new AwsError('NotFound', `cannot ${what}: ${said}`, code, status);
  return new AwsError('RequestFailed', `cannot ${what}: ${said}`, code, status);
}
