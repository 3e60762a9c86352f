/**
 * The authentication.k8s.io API: SelfSubjectReview (`kubectl auth whoami`) and the
 * serviceaccounts/token subresource (TokenRequest, `kubectl create token`), and the assembly of
 * request authentication the server wires in.
 */
export {
  AUTHENTICATION_GROUP,
  AUTHENTICATION_VERSION,
  selfSubjectReview,
  selfSubjectReviewEndpoint,
  selfSubjectReviewResourceType,
} from './self-subject-review.js';
export { parseTokenRequest, tokenRequestEndpoint, type TokenRequestDeps, type TokenRequestSpec } from './token-request.js';
export { authenticationResourceTypes } from './resource-types.js';
export { setupAuthentication, type AuthenticationSetup, type AuthenticationSetupOptions } from './setup.js';
