/**
 * Escalation prevention for RBAC writes: a user may only create or update a Role or
 * ClusterRole whose every permission they already hold (or with the `escalate` verb on
 * it), and only bind a role whose every permission they hold in the binding's scope (or
 * with the `bind` verb on it). Otherwise anyone allowed to write roles could grant
 * themselves anything.
 */
import { errors } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import type { AdmissionAttributes, ValidatingPlugin } from '../admission/types.js';
import type { UserInfo } from '../rest/context.js';
import { MASTERS_GROUP } from './rbac-authorizer.js';
import { bindingOf, RBAC_GROUP, type RbacIndex } from './rbac-index.js';
import { compactRules, describeRule, rulesOf, uncoveredRules, type PolicyRule } from './rules.js';
import type { Authorizer } from './types.js';

const roleResources: Record<string, string> = { Role: 'roles', ClusterRole: 'clusterroles' };

/** An RbacEscalationCheck refuses RBAC writes that would grant more than the writer holds. */
export class RbacEscalationCheck implements ValidatingPlugin {
  readonly name = 'RBACEscalation';

  constructor(
    private readonly index: RbacIndex,
    private readonly authorizer: Authorizer,
  ) {}

  handles(a: AdmissionAttributes): boolean {
    return a.rt.group === RBAC_GROUP && (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.subresource === '' && a.object !== undefined;
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    const user = a.ctx.user;
    if (user.groups.includes(MASTERS_GROUP)) return;
    const obj = a.object!;
    const ns = a.rt.namespaced ? (a.namespace ?? '') : '';
    switch (a.rt.kind) {
      case 'Role':
      case 'ClusterRole': {
        if (await this.may(user, 'escalate', roleResources[a.rt.kind], a.name, ns)) return;
        const missing = uncoveredRules(this.index.rulesFor(user, ns), rulesOf(obj));
        if (missing.length > 0) throw this.refuse(a, user, obj, `is attempting to grant RBAC permissions not currently held`, missing);
        return;
      }
      case 'RoleBinding':
      case 'ClusterRoleBinding': {
        const ref = bindingOf({ ...obj, kind: a.rt.kind }).roleRef;
        const resource = roleResources[ref.kind];
        if (resource && (await this.may(user, 'bind', resource, ref.name, ns))) return;
        const rules = this.index.roleRules(ref.kind, ref.name, ns);
        if (!rules) {
          throw errors.forbidden(
            `${a.rt.resource}.${RBAC_GROUP} "${a.name}" is forbidden: user "${user.name}" cannot bind ${ref.kind} "${ref.name}": it does not exist${ref.kind === 'Role' ? ` in namespace "${ns}"` : ''} and the user lacks the "bind" verb on it`,
            { group: RBAC_GROUP, resource: a.rt.resource },
            a.name,
          );
        }
        const missing = uncoveredRules(this.index.rulesFor(user, ns), rules);
        if (missing.length > 0)
          throw this.refuse(
            a,
            user,
            obj,
            `is attempting to bind ${ref.kind} "${ref.name}" with RBAC permissions not currently held (and lacks the "bind" verb on it)`,
            missing,
          );
        return;
      }
      default:
        return;
    }
  }

  private async may(user: UserInfo, verb: string, resource: string, name: string, namespace: string): Promise<boolean> {
    const d = await this.authorizer.authorize({
      user,
      verb,
      resourceRequest: true,
      group: RBAC_GROUP,
      version: 'v1',
      resource,
      subresource: '',
      namespace,
      name,
      path: '',
    });
    return d.allowed;
  }

  private refuse(a: AdmissionAttributes, user: UserInfo, obj: KObject, what: string, missing: PolicyRule[]) {
    const where = a.rt.namespaced ? ` in namespace "${a.namespace ?? ''}"` : '';
    const merged = compactRules(missing);
    const shown = merged.slice(0, 20).map(describeRule);
    if (merged.length > shown.length) shown.push(`... and ${merged.length - shown.length} more`);
    return errors.forbidden(
      `${a.rt.resource}.${RBAC_GROUP} "${obj.metadata.name ?? a.name}" is forbidden: user "${user.name}" (groups=${JSON.stringify(user.groups)}) ${what}${where}:\n${shown.join('\n')}`,
      { group: RBAC_GROUP, resource: a.rt.resource },
      a.name,
    );
  }
}
