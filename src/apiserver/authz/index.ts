/**
 * Authorization: the Authorizer interface, RBAC (rules, the in-memory index fed by
 * informers, the authorizer, escalation prevention, impersonation) and the bootstrap policy.
 */
export { MastersOnlyAuthorizer, forbiddenMessage, type AuthorizationAttributes, type Authorizer, type Decision } from './types.js';
export {
  ALL,
  apiGroupMatches,
  breakdownRule,
  compactRules,
  describeRule,
  nonResourceURLMatches,
  resourceMatches,
  resourceNameMatches,
  ruleAllows,
  ruleCovers,
  rulesOf,
  uncoveredRules,
  verbMatches,
  type PolicyRule,
  type RuleRequest,
} from './rules.js';
export {
  RbacIndex,
  RBAC_GROUP,
  bindingOf,
  serviceAccountUserName,
  subjectKey,
  userKeys,
  type Binding,
  type RbacKind,
  type RoleRef,
  type RuleSource,
  type Subject,
} from './rbac-index.js';
export { RbacAuthorizer, MASTERS_GROUP, allowReason } from './rbac-authorizer.js';
export { startRbacInformers, rbacRefs, type RbacInformers } from './rbac-informers.js';
export { RbacEscalationCheck } from './escalation.js';
export { SecretReferenceCheck, secretReferences, type SecretReference } from './secret-references.js';
export { impersonatedUser, wantsImpersonation, type DistinctHeaders } from './impersonation.js';
export {
  bootstrapPolicy,
  reconcileBootstrapPolicy,
  reconcileObject,
  policyResourcesFromCrds,
  policyResourcesOf,
  parseKindsAnnotation,
  POLICY_KINDS_ANNOTATION,
  isRetiredRule,
  AUTOUPDATE_ANNOTATION,
  BOOTSTRAP_LABEL,
  CREDENTIALS_NAMESPACE,
  INFRASTRUCTURE_ADMINS_GROUP,
  PLATFORM_ADMINS_GROUP,
  NO_CRD_KINDS,
  type BootstrapPolicy,
  type CrdKinds,
  type GroupResource,
  type PolicyResources,
  type ReconcileOptions,
} from './bootstrap-policy.js';
export { startPolicySync, type PolicySync } from './policy-sync.js';
export { NO_RBAC_KINDS, setupAuthorization, type AuthorizationSetup, type RbacKinds } from './setup.js';
