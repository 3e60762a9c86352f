/**
 * The serviceaccounts/token subresource: POST a TokenRequest (authentication.k8s.io/v1) and get
 * back a signed ServiceAccount token (`kubectl create token NAME`). Nothing is stored.
 */
import { errors, type StatusCause } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import {
  DEFAULT_TOKEN_EXPIRATION_SECONDS,
  MAX_TOKEN_EXPIRATION_SECONDS,
  MIN_TOKEN_EXPIRATION_SECONDS,
  type NamedRef,
  type ServiceAccountTokens,
} from '../auth/index.js';
import type { CreateEndpoint } from '../http/dispatcher.js';
import { AUTHENTICATION_GROUP, AUTHENTICATION_VERSION } from './self-subject-review.js';
import { checkKind } from './review-body.js';

const TOKEN_REQUEST_API_VERSION = `${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}`;

/** TokenRequestSpec is the validated spec of a TokenRequest. */
export interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef?: { kind: 'Secret'; apiVersion: string; name: string; uid?: string };
}

/**
 * parseTokenRequest validates a TokenRequest body and fills defaults (expirationSeconds 3600). A
 * body that is not a TokenRequest is a 400; bad fields are a 422 naming each field.
 */
export function parseTokenRequest(body: unknown, name: string): TokenRequestSpec {
  const o = checkKind(body, 'TokenRequest', TOKEN_REQUEST_API_VERSION);
  const causes: StatusCause[] = [];
  const spec = o.spec === undefined || o.spec === null ? {} : o.spec;
  if (typeof spec !== 'object' || Array.isArray(spec)) {
    throw errors.invalid('TokenRequest', AUTHENTICATION_GROUP, name, [{ reason: 'FieldValueInvalid', field: 'spec', message: 'must be an object' }]);
  }
  const s = spec as Record<string, unknown>;
  let audiences: string[] = [];
  if (s.audiences !== undefined && s.audiences !== null) {
    if (!Array.isArray(s.audiences)) causes.push({ reason: 'FieldValueInvalid', field: 'spec.audiences', message: 'must be a list of strings' });
    else {
      s.audiences.forEach((a, i) => {
        if (typeof a !== 'string' || a === '')
          causes.push({ reason: 'FieldValueInvalid', field: `spec.audiences[${i}]`, message: 'must be a non-empty string' });
      });
      audiences = s.audiences.filter((a): a is string => typeof a === 'string' && a !== '');
    }
  }
  let expirationSeconds = DEFAULT_TOKEN_EXPIRATION_SECONDS;
  // Protobuf bodies carry 0 for an unset duration (kubectl create token without --duration).
  if (s.expirationSeconds !== undefined && s.expirationSeconds !== null && s.expirationSeconds !== 0) {
    const v = s.expirationSeconds;
    if (typeof v !== 'number' || !Number.isInteger(v))
      causes.push({ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds', message: 'must be a whole number of seconds' });
    else if (v < MIN_TOKEN_EXPIRATION_SECONDS)
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        message: `may not specify a duration less than ${MIN_TOKEN_EXPIRATION_SECONDS} seconds (10 minutes)`,
      });
    else if (v > MAX_TOKEN_EXPIRATION_SECONDS)
      causes.push({ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds', message: 'may not specify a duration larger than 2^32 seconds' });
    else expirationSeconds = v;
  }
  let boundObjectRef: TokenRequestSpec['boundObjectRef'];
  if (s.boundObjectRef !== undefined && s.boundObjectRef !== null) {
    const r = s.boundObjectRef as Record<string, unknown>;
    if (typeof r !== 'object' || Array.isArray(r)) causes.push({ reason: 'FieldValueInvalid', field: 'spec.boundObjectRef', message: 'must be an object' });
    else if (r.kind !== 'Secret') {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'spec.boundObjectRef.kind',
        message: `Unsupported value: ${JSON.stringify(r.kind ?? '')}: supported values: "Secret"`,
      });
    } else if (r.apiVersion !== undefined && r.apiVersion !== '' && r.apiVersion !== 'v1') {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'spec.boundObjectRef.apiVersion',
        message: `Unsupported value: ${JSON.stringify(r.apiVersion)}: supported values: "v1"`,
      });
    } else if (typeof r.name !== 'string' || r.name === '') {
      causes.push({ reason: 'FieldValueRequired', field: 'spec.boundObjectRef.name', message: 'Required value' });
    } else {
      boundObjectRef = { kind: 'Secret', apiVersion: 'v1', name: r.name, ...(typeof r.uid === 'string' && r.uid !== '' ? { uid: r.uid } : {}) };
    }
  }
  if (causes.length) throw errors.invalid('TokenRequest', AUTHENTICATION_GROUP, name, causes);
  return { audiences, expirationSeconds, ...(boundObjectRef ? { boundObjectRef } : {}) };
}

/** TokenRequestDeps are what the token endpoint reads: live objects by resource (throwing 404 when missing). */
export interface TokenRequestDeps {
  tokens: ServiceAccountTokens;
  get(resource: 'serviceaccounts' | 'secrets', namespace: string, name: string): Promise<KObject>;
  now?: () => Date;
}

/**
 * tokenRequestEndpoint serves POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token: it
 * checks the account (and the Secret the token is to be bound to) exists, and answers 201 with
 * the TokenRequest, its status holding the token and when it expires.
 */
export function tokenRequestEndpoint(deps: TokenRequestDeps): CreateEndpoint {
  return {
    group: '',
    resource: 'serviceaccounts',
    subresource: 'token',
    authorize: true,
    create: async (_ctx, target, body) => {
      const namespace = target.namespace!;
      const name = target.name!;
      const spec = parseTokenRequest(body, name);
      const sa = await deps.get('serviceaccounts', namespace, name);
      if (sa.metadata.deletionTimestamp) throw errors.conflict({ group: '', resource: 'serviceaccounts' }, name, 'the service account is being deleted');
      const serviceAccount: NamedRef = { name, uid: String(sa.metadata.uid ?? '') };
      let boundSecret: NamedRef | undefined;
      if (spec.boundObjectRef) {
        const secret = await deps.get('secrets', namespace, spec.boundObjectRef.name);
        const uid = String(secret.metadata.uid ?? '');
        if (spec.boundObjectRef.uid !== undefined && spec.boundObjectRef.uid !== uid) {
          throw errors.conflict(
            { group: '', resource: 'secrets' },
            spec.boundObjectRef.name,
            `the UID in the bound object reference (${spec.boundObjectRef.uid}) does not match the UID in record (${uid}); the object might have been deleted and then recreated`,
          );
        }
        boundSecret = { name: spec.boundObjectRef.name, uid };
      }
      const issued = await deps.tokens.issue({
        namespace,
        serviceAccount,
        audiences: spec.audiences,
        expirationSeconds: spec.expirationSeconds,
        ...(boundSecret ? { boundSecret } : {}),
      });
      const now = deps.now?.() ?? new Date();
      return {
        code: 201,
        object: {
          kind: 'TokenRequest',
          apiVersion: TOKEN_REQUEST_API_VERSION,
          metadata: { name, namespace, creationTimestamp: rfc3339(now) },
          spec: {
            audiences: issued.audiences,
            expirationSeconds: issued.expirationSeconds,
            boundObjectRef: boundSecret ? { kind: 'Secret', apiVersion: 'v1', name: boundSecret.name, uid: boundSecret.uid } : null,
          },
          status: { token: issued.token, expirationTimestamp: rfc3339(issued.expiresAt) },
        },
      };
    },
  };
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
