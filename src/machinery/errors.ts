/**
 * ApiError is the one error type that crosses the API boundary: it carries a
 * Kubernetes `Status` object that is sent to clients as-is.
 */

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable'
  | 'InsufficientStorage';

export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError'
  | 'UnexpectedServerResponse'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge'
  | (string & Record<never, never>);

export interface StatusCause {
  reason: CauseType;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Success' | 'Failure';
  message: string;
  reason: StatusReason | '';
  details?: StatusDetails;
  code: number;
}

export interface ResourceIdentity {
  group: string;
  /** The resource (plural), as Kubernetes reports it in `details.kind`. */
  resource: string;
}

/** The details as kube encodes them: empty name, group, kind, uid and causes are left out (`omitempty`). */
function omitEmpty(details: StatusDetails): StatusDetails {
  const out: StatusDetails = { ...details };
  for (const k of ['name', 'group', 'kind', 'uid'] as const) if (out[k] === '' || out[k] === undefined) delete out[k];
  if (out.causes?.length === 0) delete out.causes;
  if (out.retryAfterSeconds === undefined || out.retryAfterSeconds === 0) delete out.retryAfterSeconds;
  return out;
}

export class ApiError extends Error {
  readonly status: Status;
  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'ApiError';
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
      ...(details ? { details: omitEmpty(details) } : {}),
    };
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason | '' {
    return this.status.reason;
  }
}

function qualified(res: ResourceIdentity): string {
  return res.group ? `${res.resource}.${res.group}` : res.resource;
}

export const errors = {
  badRequest(message: string, causes?: StatusCause[]): ApiError {
    return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
  },
  unauthorized(message = 'Unauthorized'): ApiError {
    return new ApiError(401, 'Unauthorized', message);
  },
  forbidden(message: string, res?: ResourceIdentity, name?: string): ApiError {
    return new ApiError(403, 'Forbidden', message, res ? { name, group: res.group, kind: res.resource } : undefined);
  },
  notFound(res: ResourceIdentity, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${qualified(res)} "${name}" not found`, {
      name,
      group: res.group,
      kind: res.resource,
    });
  },
  pathNotFound(path: string): ApiError {
    return new ApiError(404, 'NotFound', `the server could not find the requested resource (${path})`, {});
  },
  alreadyExists(res: ResourceIdentity, name: string): ApiError {
    return new ApiError(409, 'AlreadyExists', `${qualified(res)} "${name}" already exists`, {
      name,
      group: res.group,
      kind: res.resource,
    });
  },
  conflict(res: ResourceIdentity, name: string, why: string, causes?: StatusCause[]): ApiError {
    return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(res)} "${name}": ${why}`, {
      name,
      group: res.group,
      kind: res.resource,
      ...(causes ? { causes } : {}),
    });
  },
  /** 422: the object failed validation; each cause names a field path such as `spec.replicas`. */
  invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiError {
    const list = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
    const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
    return new ApiError(422, 'Invalid', `${group ? `${kind}.${group}` : kind} "${name}" is invalid: ${summary}`, {
      name,
      group,
      kind,
      causes,
    });
  },
  gone(message: string): ApiError {
    return new ApiError(410, 'Gone', message);
  },
  expired(message: string): ApiError {
    return new ApiError(410, 'Expired', message);
  },
  methodNotAllowed(message: string): ApiError {
    return new ApiError(405, 'MethodNotAllowed', message);
  },
  notAcceptable(message: string): ApiError {
    return new ApiError(406, 'NotAcceptable', message);
  },
  unsupportedMediaType(contentType: string): ApiError {
    return new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/merge-patch+json, application/json-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml (got ${JSON.stringify(contentType)})`,
    );
  },
  tooLarge(limit: number): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', `the request body is too large: the limit is ${limit} bytes`);
  },
  tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
    return new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds });
  },
  internal(message: string): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ reason: 'UnexpectedServerResponse', message }],
    });
  },
  timeout(message: string): ApiError {
    return new ApiError(504, 'Timeout', message);
  },
  /** 503: the server cannot reach what it needs (its store); retry after `retryAfterSeconds`. */
  serviceUnavailable(message: string, retryAfterSeconds = 1): ApiError {
    return new ApiError(503, 'ServiceUnavailable', message, { retryAfterSeconds });
  },
  /** 507: the server cannot store the request's result (its disk is full); retry later. */
  insufficientStorage(message: string): ApiError {
    return new ApiError(507, 'InsufficientStorage', message);
  },
};

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

export function isNotFound(err: unknown): boolean {
  return isApiError(err) && err.code === 404;
}

export function isConflict(err: unknown): boolean {
  return isApiError(err) && err.code === 409 && err.reason === 'Conflict';
}

export function isAlreadyExists(err: unknown): boolean {
  return isApiError(err) && err.reason === 'AlreadyExists';
}

/** Builds an ApiError from a Status received over HTTP (used by the HTTP client). */
export function apiErrorFromStatus(status: Partial<Status> & { code?: number }, httpCode: number): ApiError {
  return new ApiError(status.code ?? httpCode, status.reason || 'InternalError', status.message ?? `HTTP ${httpCode}`, status.details);
}
