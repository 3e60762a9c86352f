/**
 * What a failed Google Cloud call means, for conditions and the Provider's Ready reason. The
 * SDKs (gRPC through google-gax) throw errors with a numeric gRPC status `code` and `details`;
 * messages keep the first line of Google's and never hold the key (the SDKs sign with it and
 * never put it in an error). A throttling answer's wait — a google.rpc.RetryInfo detail
 * (gRPC and REST through gax) or the Retry-After header (the Storage client's response) —
 * becomes `retryAfterSeconds`: the reconciler retries then.
 */
import { boundedRetryAfter, headerOf, retryAfterHeaderSeconds, retryDelaySeconds, retryingIn } from '../retry-after.js';

export type GcpFailureReason =
  | 'Unreachable'
  | 'AuthenticationFailed'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Throttled'
  | 'InvalidArgument'
  | 'FailedPrecondition'
  | 'TimedOut'
  | 'RequestFailed';

/** gRPC status codes used here (grpc/status.proto). */
export const GRPC = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** A GcpError is a failed Google Cloud call, classified; `retryAfterSeconds` is Google's RetryInfo or Retry-After (bounded) when it sent one. */
export class GcpError extends Error {
  constructor(
    readonly reason: GcpFailureReason,
    message: string,
    readonly code?: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'GcpError';
  }
}

/** The gRPC code of an HTTP status, as Google's REST APIs map them (the Storage client reports HTTP statuses). */
const HTTP_TO_GRPC: Record<number, number> = {
  400: GRPC.INVALID_ARGUMENT,
  401: GRPC.UNAUTHENTICATED,
  403: GRPC.PERMISSION_DENIED,
  404: GRPC.NOT_FOUND,
  409: GRPC.ALREADY_EXISTS,
  412: GRPC.FAILED_PRECONDITION,
  429: GRPC.RESOURCE_EXHAUSTED,
  503: GRPC.UNAVAILABLE,
  504: GRPC.DEADLINE_EXCEEDED,
};

/** grpcCodeOf reads the gRPC status code of an SDK error, if any (an HTTP status is mapped to its gRPC code). */
export function grpcCodeOf(err: unknown): number | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (typeof code !== 'number') {
    if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT)$/.test(code)) return GRPC.UNAVAILABLE;
    // fetch says "fetch failed" and keeps the socket's error as its cause.
    const cause = typeof err === 'object' && err !== null ? (err as { cause?: unknown }).cause : undefined;
    return cause !== undefined && cause !== err ? grpcCodeOf(cause) : undefined;
  }
  return code >= 100 ? (HTTP_TO_GRPC[code] ?? (code >= 500 ? GRPC.UNAVAILABLE : undefined)) : code;
}

/**
 * retryAfterOf is how long Google asks to wait, bounded: a RetryInfo among the error's
 * decoded `statusDetails` or raw `details` (`retryDelay`), else the Retry-After header of its
 * `response`.
 */
export function retryAfterOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { statusDetails?: unknown; details?: unknown; response?: { headers?: unknown } };
  for (const list of [e.statusDetails, e.details]) {
    if (!Array.isArray(list)) continue;
    for (const d of list as unknown[]) {
      const delay = typeof d === 'object' && d !== null ? (d as { retryDelay?: unknown }).retryDelay : undefined;
      const seconds = retryDelaySeconds(delay);
      if (seconds !== undefined) return boundedRetryAfter(seconds);
    }
  }
  return boundedRetryAfter(retryAfterHeaderSeconds(headerOf(e.response?.headers, 'retry-after')));
}

/** isAbort tells an aborted call (its signal fired): passed on unchanged. */
export function isAbort(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}

function firstLine(err: unknown): string {
  const details = typeof err === 'object' && err !== null ? (err as { details?: unknown }).details : undefined;
  const text = typeof details === 'string' && details !== '' ? details : err instanceof Error ? err.message : String(err);
  const line = text.split('\n')[0].trim();
  return line === '' ? 'no message' : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** gcpError classifies a failed call of `what` ("create topic x"); an abort or a GcpError is returned as it is. */
export function gcpError(err: unknown, what: string): Error {
  if (isAbort(err) || err instanceof GcpError) return err as Error;
  const code = grpcCodeOf(err);
  const said = `${firstLine(err)}${code !== undefined ? ` (gRPC code ${code})` : ''}`;
  switch (code) {
    case GRPC.UNAVAILABLE:
      return new GcpError('Unreachable', `cannot ${what}: no answer: ${said} — check the endpoint`, code);
    case GRPC.DEADLINE_EXCEEDED:
      return new GcpError('TimedOut', `cannot ${what}: no answer in time: ${said}; retried`, code);
    case GRPC.UNAUTHENTICATED:
      return new GcpError('AuthenticationFailed', `cannot ${what}: ${said} — check credentials.json in the credentials Secret`, code);
    case GRPC.PERMISSION_DENIED:
      return new GcpError('Forbidden', `cannot ${what}: ${said} — grant the service account the role it needs, or enable the API`, code);
    case GRPC.NOT_FOUND:
      return new GcpError('NotFound', `cannot ${what}: ${said}`, code);
    case GRPC.ALREADY_EXISTS:
      return new GcpError('AlreadyExists', `cannot ${what}: ${said}`, code);
    case GRPC.RESOURCE_EXHAUSTED: {
      const wait = retryAfterOf(err);
      const then = wait !== undefined ? `throttled by Google Cloud; ${retryingIn(wait)}` : 'retried with backoff';
      return new GcpError('Throttled', `cannot ${what}: ${said} — a quota or rate limit; ${then}`, code, wait);
    }
    case GRPC.INVALID_ARGUMENT:
      return new GcpError('InvalidArgument', `cannot ${what}: ${said}`, code);
    case GRPC.FAILED_PRECONDITION:
      return new GcpError('FailedPrecondition', `cannot ${what}: ${said}`, code);
    default:
      return new GcpError('RequestFailed', `cannot ${what}: ${said}`, code);
  }
}

/**
 * bounded runs `call` and rejects with the signal's reason when it fires first, or with a
 * DEADLINE_EXCEEDED-shaped error after `ms` (gRPC would otherwise wait minutes for an
 * endpoint that never answers).
 */
export async function bounded<T>(call: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms / 1000} s`), { code: GRPC.DEADLINE_EXCEEDED })), ms);
    if (signal) {
      onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError'));
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  call.catch(() => undefined);
  try {
    return await Promise.race([call, stop]);
  } finally {
    clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  }
}
