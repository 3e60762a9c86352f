/**
 * An Authorizer decides whether a user may perform a verb on a resource. RBAC (a later
 * issue) is one implementation; `MastersOnlyAuthorizer` lets members of system:masters do
 * everything and denies everyone else.
 */
import type { UserInfo } from '../rest/context.js';

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  /** True for resource requests; false for non-resource paths such as /healthz. */
  resourceRequest: boolean;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Decision | Promise<Decision>;
}

export class MastersOnlyAuthorizer implements Authorizer {
  authorize(attrs: AuthorizationAttributes): Decision {
    if (attrs.user.groups.includes('system:masters')) return { allowed: true, reason: 'member of system:masters' };
    return { allowed: false, reason: 'only system:masters may use this server until RBAC is configured' };
  }
}

/** The message Kubernetes-style clients expect in a 403. */
export function forbiddenMessage(attrs: AuthorizationAttributes, reason: string): string {
  if (!attrs.resourceRequest) {
    return `forbidden: User "${attrs.user.name}" cannot ${attrs.verb} path "${attrs.path}"${reason ? `: ${reason}` : ''}`;
  }
  const res = attrs.group ? `${attrs.resource}.${attrs.group}` : attrs.resource;
  const sub = attrs.subresource ? `/${attrs.subresource}` : '';
  const what = attrs.name ? `${res}${sub} "${attrs.name}"` : `${res}${sub}`;
  const where = attrs.namespace ? ` in the namespace "${attrs.namespace}"` : ' at the cluster scope';
  return `${what} is forbidden: User "${attrs.user.name}" cannot ${attrs.verb} resource "${attrs.resource}${sub}" in API group "${attrs.group}"${where}${reason ? `: ${reason}` : ''}`;
}
