/**
 * Wire layout of the review and token kinds kubectl posts as protobuf:
 * authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`) and
 * SelfSubjectRulesReview (`kubectl auth can-i --list`), authentication.k8s.io/v1
 * SelfSubjectReview (`kubectl auth whoami`) and TokenRequest (`kubectl create token`).
 * Their status is filled by the server; it is decoded anyway so the object matches the
 * JSON a client would have sent.
 */
import { dict, many, message, one } from './message-type.js';
import { ObjectMeta } from './meta-v1.js';

// --- authorization.k8s.io/v1 ---

export const ResourceAttributes = message('ResourceAttributes', {
  1: one('namespace', 'string'),
  2: one('verb', 'string'),
  3: one('group', 'string'),
  4: one('version', 'string'),
  5: one('resource', 'string'),
  6: one('subresource', 'string'),
  7: one('name', 'string'),
});

export const NonResourceAttributes = message('NonResourceAttributes', {
  1: one('path', 'string'),
  2: one('verb', 'string'),
});

export const SubjectAccessReviewStatus = message('SubjectAccessReviewStatus', {
  1: one('allowed', 'bool', { keep: true }),
  4: one('denied', 'bool'),
  2: one('reason', 'string'),
  3: one('evaluationError', 'string'),
});

export const SelfSubjectAccessReview = message('SelfSubjectAccessReview', {
  1: one('metadata', ObjectMeta),
  2: one(
    'spec',
    message('SelfSubjectAccessReviewSpec', {
      1: one('resourceAttributes', ResourceAttributes),
      2: one('nonResourceAttributes', NonResourceAttributes),
    }),
  ),
  3: one('status', SubjectAccessReviewStatus),
});

export const ResourceRule = message('ResourceRule', {
  1: many('verbs', 'string'),
  2: many('apiGroups', 'string'),
  3: many('resources', 'string'),
  4: many('resourceNames', 'string'),
});

export const NonResourceRule = message('NonResourceRule', {
  1: many('verbs', 'string'),
  2: many('nonResourceURLs', 'string'),
});

export const SelfSubjectRulesReview = message('SelfSubjectRulesReview', {
  1: one('metadata', ObjectMeta),
  2: one('spec', message('SelfSubjectRulesReviewSpec', { 1: one('namespace', 'string') })),
  3: one(
    'status',
    message('SubjectRulesReviewStatus', {
      1: many('resourceRules', ResourceRule),
      2: many('nonResourceRules', NonResourceRule),
      3: one('incomplete', 'bool', { keep: true }),
      4: one('evaluationError', 'string'),
    }),
  ),
});

// --- authentication.k8s.io/v1 ---

/** ExtraValue is `repeated string items = 1` on the wire and a plain string array in JSON. */
export const ExtraValue = message('ExtraValue', { 1: many('items', 'string') }, { unwrap: 'items' });

export const UserInfo = message('UserInfo', {
  1: one('username', 'string'),
  2: one('uid', 'string'),
  3: many('groups', 'string'),
  4: dict('extra', ExtraValue),
});

export const SelfSubjectReview = message('SelfSubjectReview', {
  1: one('metadata', ObjectMeta),
  2: one('status', message('SelfSubjectReviewStatus', { 1: one('userInfo', UserInfo) })),
});

export const BoundObjectReference = message('BoundObjectReference', {
  1: one('kind', 'string'),
  2: one('apiVersion', 'string'),
  3: one('name', 'string'),
  4: one('uid', 'string'),
});

export const TokenRequest = message('TokenRequest', {
  1: one('metadata', ObjectMeta),
  2: one(
    'spec',
    message('TokenRequestSpec', {
      1: many('audiences', 'string'),
      4: one('expirationSeconds', 'int64', { keep: true }),
      3: one('boundObjectRef', BoundObjectReference),
    }),
  ),
  3: one(
    'status',
    message('TokenRequestStatus', {
      1: one('token', 'string', { keep: true }),
      2: one('expirationTimestamp', 'time'),
    }),
  ),
});
