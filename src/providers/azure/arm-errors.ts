/**
 * What a failed Azure Resource Manager call (or the token exchange before it) means, for
 * conditions and the Provider's Ready reason. ARM answers errors as `{error: {code, message}}`
 * and the SDK raises a RestError with `statusCode` and `code`; the identity library raises an
 * AuthenticationError with the token endpoint's status. Messages keep the first line of
 * Azure's message (300 characters at most) and never hold a secret: the SDKs never put the
 * client secret, a token or a request body in an error.
 */
import { boundedRetryAfter, headerOf, retryAfterHeaderSeconds, retryingIn } from '../retry-after.js';
import { isAbort } from './errors.js';

/** The reasons a Provider's Ready condition or a resource's condition may give. */
export type ArmFailureReason =
  | 'Unreachable'
  | 'AuthenticationFailed'
  | 'Forbidden'
  | 'Throttled'
  | 'QuotaExceeded'
  | 'InvalidParameter'
  | 'Conflict'
  | 'SubscriptionNotFound'
  | 'ResourceGroupNotFound'
  | 'NotFound'
  | 'OperationFailed'
  | 'RequestFailed';

/** An ArmError is a failed ARM call, classified; `retryAfterSeconds` is Azure's Retry-After (bounded) when it sent one: the reconciler retries then. */
export class ArmError extends Error {
  constructor(
    readonly reason: ArmFailureReason,
    message: string,
    readonly statusCode?: number,
    readonly code?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ArmError';
  }
}

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  statusCode?: number;
  response?: { headers?: { get?: (name: string) => string | undefined } };
  errorResponse?: { error?: string; errorDescription?: string };
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'REQUEST_SEND_ERROR',
  'EPIPE',
]);
const QUOTA = /quota|limitexceeded|exceeded/i;
const INVALID = new Set([
  'InvalidParameter',
  'InvalidParameterValue',
  'InvalidRequestContent',
  'InvalidRequestFormat',
  'InvalidResourceName',
  'LocationIsOfferRestricted',
  'LocationNotAvailableForResourceType',
  'NoRegisteredProviderFound',
  'PasswordNotComplex',
  'SkuNotAvailable',
  'BadRequest',
]);
const AUTH = new Set(['InvalidAuthenticationToken', 'InvalidAuthenticationTokenTenant', 'ExpiredAuthenticationToken', 'AuthenticationFailed']);

const asLike = (err: unknown): ErrorLike => (typeof err === 'object' && err !== null ? err : {});

function firstLine(text: string | undefined): string {
  const line = (text ?? '').split('\n')[0].trim();
  return line === '' ? 'no message' : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** retryAfterOf reads a Retry-After header (seconds or a date) off a RestError's response, bounded. */
export function retryAfterOf(err: ErrorLike): number | undefined {
  return boundedRetryAfter(retryAfterHeaderSeconds(headerOf(err.response?.headers, 'retry-after')));
}

/**
 * armError classifies a failed call of `what` ("create PostgreSQL flexible server x"); an
 * abort is returned as it is, so the caller rethrows it.
 */
export function armError(err: unknown, what: string): Error {
  if (isAbort(err)) return err as Error;
  if (err instanceof ArmError) return err;
  const e = asLike(err);
  const message = firstLine(e.message ?? String(err));
  if (e.name !== undefined && /^(AuthenticationError|AggregateAuthenticationError|CredentialUnavailableError|AuthenticationRequiredError)$/.test(e.name)) {
    // The token exchange failed: a wrong secret, client or tenant — or no answer from the authority.
    const aad = e.errorResponse?.error ?? /^(invalid_client|unauthorized_client|invalid_request|invalid_grant|invalid_scope)\b/.exec(message)?.[1];
    if (aad !== undefined || (typeof e.statusCode === 'number' && e.statusCode > 0)) {
      const description = e.errorResponse?.errorDescription ?? /AADSTS\d+:[^-]*/.exec(message)?.[0] ?? message;
      return new ArmError(
        'AuthenticationFailed',
        `cannot ${what}: Entra ID refused the service principal (${aad ?? e.statusCode ?? ''}: ${firstLine(description).trim()}) — check tenantId, clientId and clientSecret in the credentials Secret`,
        e.statusCode,
        aad,
      );
    }
    return new ArmError('Unreachable', `cannot ${what}: no token from Entra ID (${message}) — check authorityHost and the network`);
  }
  const status = typeof e.statusCode === 'number' && e.statusCode > 0 ? e.statusCode : undefined;
  const code = typeof e.code === 'string' && e.code !== '' ? e.code : undefined;
  if (status === undefined) {
    const network = code !== undefined && (NETWORK_CODES.has(code) || /^E[A-Z]+$/.test(code));
    return new ArmError(network ? 'Unreachable' : 'RequestFailed', `cannot ${what}: ${network ? 'no answer' : 'failed'} (${message})`, undefined, code);
  }
  const said = `Azure answered ${status}${code ? ` ${code}` : ''}: ${message}`;
  const retryAfter = retryAfterOf(e);
  if (status === 429 || code === 'TooManyRequests' || code === 'ServerBusy' || status === 503) {
    const wait = retryAfter !== undefined ? retryingIn(retryAfter) : 'retried with backoff';
    return new ArmError('Throttled', `cannot ${what}: ${said} — throttled by Azure; ${wait}`, status, code, retryAfter);
  }
  if (status === 401 || (code !== undefined && AUTH.has(code)))
    return new ArmError('AuthenticationFailed', `cannot ${what}: ${said} — check tenantId, clientId and clientSecret in the credentials Secret`, status, code);
  if (status === 403)
    return new ArmError(
      'Forbidden',
      `cannot ${what}: ${said} — give the service principal a role (e.g. Contributor) on the resource group in the credentials Secret`,
      status,
      code,
    );
  if (code === 'SubscriptionNotFound')
    return new ArmError('SubscriptionNotFound', `cannot ${what}: ${said} — check subscriptionId in the credentials Secret`, status, code);
  if (code === 'ResourceGroupNotFound')
    return new ArmError(
      'ResourceGroupNotFound',
      `cannot ${what}: ${said} — create the resource group or fix resourceGroup in the credentials Secret`,
      status,
      code,
    );
  if (code !== undefined && QUOTA.test(code))
    return new ArmError(
      'QuotaExceeded',
      `cannot ${what}: ${said} — a subscription quota is reached (QuotaExceeded): ask Azure for more or remove something`,
      status,
      code,
    );
  if (status === 400 || (code !== undefined && INVALID.has(code)))
    return new ArmError('InvalidParameter', `cannot ${what}: ${said} (InvalidParameter)`, status, code);
  if (status === 409) return new ArmError('Conflict', `cannot ${what}: ${said} — another operation is under way; retried`, status, code);
  if (status === 404) return new ArmError('NotFound', `cannot ${what}: ${said}`, status, code);
  return new ArmError('RequestFailed', `cannot ${what}: ${said}`, status, code);
}

/** isNotFound tells a 404 of the resource itself (not of its subscription or resource group). */
export function isResourceNotFound(err: unknown): boolean {
  const e = asLike(err);
  return e.statusCode === 404 && e.code !== 'SubscriptionNotFound' && e.code !== 'ResourceGroupNotFound';
}
