/**
 * The authorization.k8s.io API: SelfSubjectAccessReview (`kubectl auth can-i`),
 * SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview
 * (`kubectl auth can-i --list`), served as computed endpoints.
 */
export {
  AUTHORIZATION_GROUP,
  AUTHORIZATION_VERSION,
  accessReview,
  accessReviewEndpoints,
  reviewAttributes,
  reviewKinds,
  rulesReviewStatus,
} from './access-reviews.js';
export { authorizationResourceTypes } from './resource-types.js';
