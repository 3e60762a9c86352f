/**
 * The RBAC authorizer: members of system:masters may do everything; everyone else gets
 * what their ClusterRoleBindings (everywhere) and RoleBindings (in the binding's namespace)
 * grant. Decisions read only the in-memory RbacIndex.
 */
import type { AuthorizationAttributes, Authorizer, Decision } from './types.js';
import type { RbacIndex, RuleSource, Subject } from './rbac-index.js';
import { ruleAllows } from './rules.js';

/** The group whose members bypass RBAC. */
export const MASTERS_GROUP = 'system:masters';

function describeSubject(s: Subject): string {
  if (s.kind === 'ServiceAccount') return `ServiceAccount "${s.namespace ? `${s.namespace}/` : ''}${s.name}"`;
  return `${s.kind} "${s.name}"`;
}

/** A reason naming the binding, role and subject that allowed a request. */
export function allowReason(src: RuleSource): string {
  const b = src.binding;
  const where = b.kind === 'RoleBinding' ? ` in namespace "${b.namespace}"` : '';
  return `RBAC: allowed by ${b.kind} "${b.name}"${where} of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(src.subject)}`;
}

/** An RbacAuthorizer decides from the RBAC objects in an RbacIndex. */
export class RbacAuthorizer implements Authorizer {
  constructor(private readonly index: RbacIndex) {}

  authorize(attrs: AuthorizationAttributes): Decision {
    if (attrs.user.groups.includes(MASTERS_GROUP)) return { allowed: true, reason: `member of ${MASTERS_GROUP}` };
    let allowedBy: RuleSource | undefined;
    let bindings = 0;
    this.index.visitRules(attrs.user, attrs.resourceRequest ? attrs.namespace : '', (src) => {
      bindings++;
      if (src.rules.some((r) => ruleAllows(r, attrs))) {
        allowedBy = src;
        return false;
      }
      return true;
    });
    if (allowedBy) return { allowed: true, reason: allowReason(allowedBy) };
    const groups = attrs.user.groups.length ? ` (groups ${JSON.stringify(attrs.user.groups)})` : '';
    const scope = attrs.resourceRequest && attrs.namespace ? `cluster-wide or in namespace "${attrs.namespace}"` : 'cluster-wide';
    return {
      allowed: false,
      reason:
        bindings === 0
          ? `RBAC: no role is bound to the user${groups} ${scope}`
          : `RBAC: none of the ${bindings} role binding(s) of the user${groups} ${scope} grants this`,
    };
  }
}
