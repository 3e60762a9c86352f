/** Checks shared by the computed authentication kinds: the body's kind and apiVersion, and schemas. */
import { errors } from '../../machinery/errors.js';
import type { JSONSchemaProps } from '../registry/resource-type.js';

/**
 * checkKind throws a 400 BadRequest unless body is a JSON object whose kind and apiVersion, when
 * present, are the wanted ones (an empty object is accepted: the server fills everything).
 */
export function checkKind(body: unknown, kind: string, apiVersion: string): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.badRequest(`the request body is not a ${kind} object, expected a JSON object`);
  const o = body as Record<string, unknown>;
  if (o.kind !== undefined && o.kind !== '' && o.kind !== kind) {
    throw errors.badRequest(`the request body has kind ${JSON.stringify(o.kind)}, expected ${kind}`);
  }
  if (o.apiVersion !== undefined && o.apiVersion !== '' && o.apiVersion !== apiVersion) {
    throw errors.badRequest(`the request body has apiVersion ${JSON.stringify(o.apiVersion)}, expected ${apiVersion}`);
  }
  return o;
}

/** userInfoSchema is the OpenAPI schema of authentication.k8s.io/v1 UserInfo. */
export function userInfoSchema(): JSONSchemaProps {
  return {
    type: 'object',
    description: 'Who a request was authenticated as.',
    properties: {
      username: { type: 'string', description: 'The name that uniquely identifies this user among all active users.' },
      uid: { type: 'string', description: 'A unique value that identifies this user across time.' },
      groups: { type: 'array', description: 'The groups this user is a part of.', items: { type: 'string' } },
      extra: {
        type: 'object',
        description: 'Any additional information provided by the authenticator.',
        additionalProperties: { type: 'array', items: { type: 'string' } },
      },
    },
  };
}
