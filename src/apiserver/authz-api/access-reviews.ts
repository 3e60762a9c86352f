/**
 * The authorization.k8s.io/v1 reviews: SelfSubjectAccessReview (`kubectl auth can-i`),
 * SubjectAccessReview and LocalSubjectAccessReview (may someone else do this?) and
 * SelfSubjectRulesReview (`kubectl auth can-i --list`). They are computed from the
 * authorizer and the RBAC index; nothing is stored.
 */
import { errors, type StatusCause } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { isPlainObject } from '../../machinery/object.js';
import type { AuthorizationAttributes, Authorizer } from '../authz/types.js';
import { MASTERS_GROUP } from '../authz/rbac-authorizer.js';
import type { RbacIndex } from '../authz/rbac-index.js';
import type { PolicyRule } from '../authz/rules.js';
import type { CreateEndpoint } from '../http/dispatcher.js';
import type { RequestContext, UserInfo } from '../rest/context.js';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';
export const AUTHORIZATION_VERSION = 'v1';
const API_VERSION = `${AUTHORIZATION_GROUP}/${AUTHORIZATION_VERSION}`;

/** The review kinds, by resource. */
export const reviewKinds = {
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
} as const;

function checkBody(body: unknown, kind: string): Record<string, unknown> {
  if (!isPlainObject(body)) throw errors.badRequest(`the request body is not a ${kind} object, expected a JSON object`);
  if (body.kind !== undefined && body.kind !== '' && body.kind !== kind) {
    throw errors.badRequest(`the request body has kind ${JSON.stringify(body.kind)}, expected ${kind}`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== '' && body.apiVersion !== API_VERSION) {
    throw errors.badRequest(`the request body has apiVersion ${JSON.stringify(body.apiVersion)}, expected ${API_VERSION}`);
  }
  return body;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The attributes a review spec asks about, or the causes that make it invalid. */
export function reviewAttributes(kind: string, spec: Record<string, unknown>, user: UserInfo): AuthorizationAttributes {
  const ra = isPlainObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const na = isPlainObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  const causes: StatusCause[] = [];
  if (ra && na) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.nonResourceAttributes',
      message: 'Invalid value: "": cannot be specified in combination with resourceAttributes',
    });
  }
  if (!ra && !na) {
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.resourceAttributes',
      message: 'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  }
  if (causes.length) throw errors.invalid(kind, AUTHORIZATION_GROUP, '', causes);
  if (na) {
    return {
      user,
      verb: str(na.verb),
      resourceRequest: false,
      group: '',
      version: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      path: str(na.path),
    };
  }
  return {
    user,
    verb: str(ra!.verb),
    resourceRequest: true,
    group: str(ra!.group),
    version: str(ra!.version),
    resource: str(ra!.resource),
    subresource: str(ra!.subresource),
    namespace: str(ra!.namespace),
    name: str(ra!.name),
    path: '',
  };
}

function creationless(meta: unknown): KObject['metadata'] {
  const m = isPlainObject(meta) ? { ...meta } : {};
  return { ...m, creationTimestamp: null } as unknown as KObject['metadata'];
}

/** The answer of an access review: the request with status filled. */
export async function accessReview(authorizer: Authorizer, kind: string, body: Record<string, unknown>, attrs: AuthorizationAttributes): Promise<KObject> {
  const d = await authorizer.authorize(attrs);
  const status: Record<string, unknown> = { allowed: d.allowed };
  // As kube's RBAC: a plain denial carries no reason, so `kubectl auth can-i` prints exactly
  // "no" (scripts compare it). The 403 of a real request still says why (authz/types.ts).
  if (d.reason && d.allowed) status.reason = d.reason;
  return { apiVersion: API_VERSION, kind, metadata: creationless(body.metadata), spec: body.spec ?? {}, status };
}

/** The rules a user holds in a namespace, in SubjectRulesReviewStatus form. */
export function rulesReviewStatus(index: RbacIndex, user: UserInfo, namespace: string): Record<string, unknown> {
  const rules: PolicyRule[] = user.groups.includes(MASTERS_GROUP)
    ? [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ]
    : [];
  rules.push(...index.rulesFor(user, namespace));
  const resourceRules: Record<string, unknown>[] = [];
  const nonResourceRules: Record<string, unknown>[] = [];
  for (const r of rules) {
    if ((r.nonResourceURLs ?? []).length > 0) {
      nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    } else {
      const rr: Record<string, unknown> = { verbs: r.verbs };
      if (r.apiGroups?.length) rr.apiGroups = r.apiGroups;
      if (r.resources?.length) rr.resources = r.resources;
      if (r.resourceNames?.length) rr.resourceNames = r.resourceNames;
      resourceRules.push(rr);
    }
  }
  return { resourceRules, nonResourceRules, incomplete: false };
}

/** The user a SubjectAccessReview asks about. */
function subjectOf(kind: string, spec: Record<string, unknown>): UserInfo {
  const name = str(spec.user);
  const groups = strings(spec.groups);
  if (!name && groups.length === 0) {
    throw errors.invalid(kind, AUTHORIZATION_GROUP, '', [
      { reason: 'FieldValueInvalid', field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' },
    ]);
  }
  const user: UserInfo = { name, groups };
  if (typeof spec.uid === 'string' && spec.uid) user.uid = spec.uid;
  return user;
}

function specOf(body: Record<string, unknown>): Record<string, unknown> {
  return isPlainObject(body.spec) ? body.spec : {};
}

/** The endpoints of the four reviews. Each needs the `create` verb on its resource. */
export function accessReviewEndpoints(deps: { authorizer: Authorizer; index: RbacIndex }): CreateEndpoint[] {
  const { authorizer, index } = deps;
  const endpoint = (
    resource: keyof typeof reviewKinds,
    create: (ctx: RequestContext, body: Record<string, unknown>, namespace: string | undefined) => Promise<KObject>,
  ): CreateEndpoint => ({
    group: AUTHORIZATION_GROUP,
    resource,
    subresource: '',
    authorize: true,
    create: async (ctx, target, body) => ({ code: 201, object: await create(ctx, checkBody(body, reviewKinds[resource]), target.namespace) }),
  });
  return [
    endpoint('selfsubjectaccessreviews', (ctx, body) => {
      const kind = reviewKinds.selfsubjectaccessreviews;
      return accessReview(authorizer, kind, body, reviewAttributes(kind, specOf(body), ctx.user));
    }),
    endpoint('subjectaccessreviews', (_ctx, body) => {
      const kind = reviewKinds.subjectaccessreviews;
      const spec = specOf(body);
      return accessReview(authorizer, kind, body, reviewAttributes(kind, spec, subjectOf(kind, spec)));
    }),
    endpoint('localsubjectaccessreviews', (_ctx, body, namespace) => {
      const kind = reviewKinds.localsubjectaccessreviews;
      const spec = specOf(body);
      const ns = namespace ?? '';
      if (isPlainObject(body.metadata) && body.metadata.namespace !== undefined && body.metadata.namespace !== ns) {
        throw errors.badRequest(
          `the namespace of the LocalSubjectAccessReview (${JSON.stringify(body.metadata.namespace)}) does not match the namespace of the request (${JSON.stringify(ns)})`,
        );
      }
      if (isPlainObject(spec.nonResourceAttributes)) {
        throw errors.invalid(kind, AUTHORIZATION_GROUP, '', [
          { reason: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', message: 'Invalid value: "": disallowed on this kind of request' },
        ]);
      }
      const attrs = reviewAttributes(kind, spec, subjectOf(kind, spec));
      if (attrs.namespace && attrs.namespace !== ns) {
        throw errors.invalid(kind, AUTHORIZATION_GROUP, '', [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.resourceAttributes.namespace',
            message: `Invalid value: ${JSON.stringify(attrs.namespace)}: must match metadata.namespace`,
          },
        ]);
      }
      attrs.namespace = ns;
      return accessReview(authorizer, kind, { ...body, metadata: { ...(isPlainObject(body.metadata) ? body.metadata : {}), namespace: ns } }, attrs);
    }),
    endpoint('selfsubjectrulesreviews', async (ctx, body) => {
      const spec = specOf(body);
      return {
        apiVersion: API_VERSION,
        kind: reviewKinds.selfsubjectrulesreviews,
        metadata: creationless(body.metadata),
        spec,
        status: rulesReviewStatus(index, ctx.user, str(spec.namespace)),
      };
    }),
  ];
}
