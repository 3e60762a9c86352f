/**
 * What an Azure Storage call's failure means, for conditions and the Provider's Ready reason.
 * The SDK throws a RestError with the HTTP status and Azure's error code (`x-ms-error-code`),
 * or, when no answer came, a network error code. Messages keep Azure's first line only (its
 * RequestId and Time lines are noise) and never hold the key: the SDK signs requests with it
 * and never puts it in an error. A throttling answer's Retry-After becomes `retryAfterSeconds`:
 * the reconciler retries then.
 */
import { boundedRetryAfter, headerOf, retryAfterHeaderSeconds, retryingIn } from '../retry-after.js';

/** The reasons a Provider's Ready condition or a resource's message may give. */
export type AzureFailureReason = 'Unreachable' | 'AuthenticationFailed' | 'Forbidden' | 'AccountNotFound' | 'Throttled' | 'RequestFailed';

/** An AzureError is a failed Azure Storage call, classified; `retryAfterSeconds` is Azure's Retry-After (bounded) when it sent one. */
export class AzureError extends Error {
  constructor(
    readonly reason: AzureFailureReason,
    message: string,
    readonly statusCode?: number,
    readonly code?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AzureError';
  }
}

interface RestErrorLike {
  name?: string;
  message?: string;
  code?: string;
  statusCode?: number;
  response?: { headers?: unknown };
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'REQUEST_SEND_ERROR']);

/** statusOf reads the HTTP status of a RestError-shaped error, if any. */
export function statusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && typeof (err as RestErrorLike).statusCode === 'number' ? (err as RestErrorLike).statusCode : undefined;
}

/** codeOf reads Azure's error code (or a network error's code), if any. */
export function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && typeof (err as RestErrorLike).code === 'string' ? (err as RestErrorLike).code : undefined;
}

/** isAbort tells an aborted call (its signal fired): passed on unchanged. */
export function isAbort(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as RestErrorLike).name === 'AbortError';
}

function firstLine(text: string | undefined): string {
  const line = (text ?? '').split('\n')[0].trim();
  return line === '' ? 'no message' : line;
}

/**
 * azureError classifies a failed call of `what` ("create container x"); an abort is returned
 * as it is, so the caller rethrows it.
 */
export function azureError(err: unknown, what: string): Error {
  if (isAbort(err)) return err as Error;
  if (err instanceof AzureError) return err;
  const status = statusOf(err);
  const code = codeOf(err);
  const message = firstLine(err instanceof Error ? err.message : String(err));
  if (status === undefined || status === 0) {
    const network = code !== undefined && (NETWORK_CODES.has(code) || code.startsWith('E'));
    return new AzureError(network ? 'Unreachable' : 'RequestFailed', `cannot ${what}: ${network ? 'no answer' : 'failed'} (${message})`, undefined, code);
  }
  const said = `Azure answered ${status}${code ? ` ${code}` : ''}: ${message}`;
  // Azure says AuthenticationFailed; Azurite says AuthorizationFailure "Server failed to authenticate the request".
  if (status === 403 && (code === 'AuthenticationFailed' || /failed to authenticate/i.test(message))) {
    return new AzureError('AuthenticationFailed', `cannot ${what}: ${said} — check the account name and key in the credentials Secret`, status, code);
  }
  if (status === 403) return new AzureError('Forbidden', `cannot ${what}: ${said}`, status, code);
  if (status === 404 && (code === 'ResourceNotFound' || code === 'AccountNotFound' || code === undefined)) {
    return new AzureError('AccountNotFound', `cannot ${what}: ${said} — check the account name and the endpoints`, status, code);
  }
  if (status === 429 || status === 503) {
    const wait = boundedRetryAfter(retryAfterHeaderSeconds(headerOf((err as RestErrorLike).response?.headers, 'retry-after')));
    const then = wait !== undefined ? retryingIn(wait) : 'retried with backoff';
    return new AzureError('Throttled', `cannot ${what}: ${said} — throttled by Azure; ${then}`, status, code, wait);
  }
  return new AzureError('RequestFailed', `cannot ${what}: ${said}`, status, code);
}
