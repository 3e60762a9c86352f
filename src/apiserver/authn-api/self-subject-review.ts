/**
 * authentication.k8s.io/v1 SelfSubjectReview: a client posts one and gets back who the server
 * authenticated it as (`kubectl auth whoami`). Nothing is stored.
 */
import type { KObject } from '../../machinery/object.js';
import type { CreateEndpoint } from '../http/dispatcher.js';
import type { ResourceType } from '../registry/resource-type.js';
import type { RequestContext, UserInfo } from '../rest/context.js';
import { checkKind, userInfoSchema } from './review-body.js';

export const AUTHENTICATION_GROUP = 'authentication.k8s.io';
export const AUTHENTICATION_VERSION = 'v1';

/** The ResourceType of authentication.k8s.io/v1 SelfSubjectReview (create only, cluster-scoped; for discovery and OpenAPI). */
export function selfSubjectReviewResourceType(): ResourceType {
  return {
    group: AUTHENTICATION_GROUP,
    version: AUTHENTICATION_VERSION,
    kind: 'SelfSubjectReview',
    listKind: 'SelfSubjectReviewList',
    resource: 'selfsubjectreviews',
    singular: 'selfsubjectreview',
    shortNames: [],
    categories: [],
    namespaced: false,
    subresources: { status: false },
    verbs: ['create'],
    schema: {
      type: 'object',
      description: 'A SelfSubjectReview returns the user information the server authenticated the request as. Send it empty; the server fills status.',
      properties: {
        apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
        kind: { type: 'string', description: 'The REST resource this object represents.' },
        metadata: { type: 'object', description: 'Standard object metadata.', 'x-kubernetes-preserve-unknown-fields': true },
        status: {
          type: 'object',
          description: 'Filled in by the server with the requesting user.',
          properties: { userInfo: userInfoSchema() },
        },
      },
    },
    printerColumns: [],
    tracksGeneration: false,
    structural: false,
    strategy: {},
    source: { type: 'builtin' },
  };
}

/** selfSubjectReview returns the SelfSubjectReview answering "who am I" for user. */
export function selfSubjectReview(user: UserInfo, now: Date = new Date()): KObject {
  const userInfo: Record<string, unknown> = { username: user.name };
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups.length) userInfo.groups = [...user.groups];
  return {
    kind: 'SelfSubjectReview',
    apiVersion: `${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}`,
    metadata: { creationTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    status: { userInfo },
  };
}

/**
 * selfSubjectReviewEndpoint serves POST /apis/authentication.k8s.io/v1/selfsubjectreviews. Every
 * authenticated user may ask who they are, so the authorizer is not consulted (Kubernetes grants
 * the same to system:authenticated through its system:basic-user role).
 */
export function selfSubjectReviewEndpoint(): CreateEndpoint {
  return {
    group: AUTHENTICATION_GROUP,
    resource: 'selfsubjectreviews',
    subresource: '',
    authorize: false,
    create: async (ctx: RequestContext, _target, body) => {
      checkKind(body, 'SelfSubjectReview', `${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}`);
      return { code: 201, object: selfSubjectReview(ctx.user) };
    },
  };
}
