/**
 * User impersonation (`kubectl --as NAME --as-group G`): the `Impersonate-User`,
 * `Impersonate-Group` and `Impersonate-Uid` headers make a request run as another user, if
 * the real user holds the `impersonate` verb on `users`, `groups`, `uids` (or
 * `serviceaccounts` for a ServiceAccount user name) of the core group.
 */
import { errors } from '../../machinery/errors.js';
import type { UserInfo } from '../rest/context.js';
import type { Authorizer } from './types.js';

/** Headers as Node's `req.headersDistinct` gives them: lower-case names, every value. */
export type DistinctHeaders = Record<string, string[] | undefined>;

const SA_PREFIX = 'system:serviceaccount:';

/** Whether the request asks to impersonate anyone. */
export function wantsImpersonation(h: DistinctHeaders): boolean {
  return Object.keys(h).some((k) => k.startsWith('impersonate-'));
}

/**
 * The user a request runs as: `user` itself without impersonation headers, otherwise the
 * impersonated user once every part of it is authorized. Throws 400 for headers that make
 * no sense and 403 naming what may not be impersonated.
 */
export async function impersonatedUser(h: DistinctHeaders, user: UserInfo, authorizer: Authorizer): Promise<UserInfo> {
  if (!wantsImpersonation(h)) return user;
  const names = h['impersonate-user'] ?? [];
  const groups = h['impersonate-group'] ?? [];
  const uids = h['impersonate-uid'] ?? [];
  const extras = Object.keys(h).filter((k) => k.startsWith('impersonate-extra-'));
  if (names.length !== 1 || names[0] === '') {
    throw errors.badRequest(
      names.length > 1
        ? 'only one Impersonate-User header may be sent'
        : 'Impersonate-Group, Impersonate-Uid and Impersonate-Extra-* need an Impersonate-User header',
    );
  }
  if (uids.length > 1) throw errors.badRequest('only one Impersonate-Uid header may be sent');
  const name = names[0];
  const check = async (resource: string, what: string, namespace = '', subresource = '') => {
    const d = await authorizer.authorize({
      user,
      verb: 'impersonate',
      resourceRequest: true,
      group: '',
      version: 'v1',
      resource,
      subresource,
      namespace,
      name: what,
      path: '',
    });
    if (!d.allowed) {
      throw errors.forbidden(
        `${resource}${subresource ? `/${subresource}` : ''} "${what}" is forbidden: User "${user.name}" cannot impersonate resource "${resource}" in API group ""${namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope'}${d.reason ? `: ${d.reason}` : ''}`,
      );
    }
  };
  const out: UserInfo = { name, groups: [] };
  if (name.startsWith(SA_PREFIX)) {
    const [ns, sa] = name.slice(SA_PREFIX.length).split(':');
    if (!ns || !sa)
      throw errors.badRequest(
        `Impersonate-User ${JSON.stringify(name)} is not a valid ServiceAccount user name, expected system:serviceaccount:<namespace>:<name>`,
      );
    await check('serviceaccounts', sa, ns);
    out.groups.push('system:serviceaccounts', `system:serviceaccounts:${ns}`);
  } else {
    await check('users', name);
  }
  for (const g of groups) {
    await check('groups', g);
    if (!out.groups.includes(g)) out.groups.push(g);
  }
  if (uids[0]) {
    await check('uids', uids[0]);
    out.uid = uids[0];
  }
  for (const k of extras) await check('userextras', k.slice('impersonate-extra-'.length));
  if (name !== 'system:anonymous' && !out.groups.includes('system:authenticated')) out.groups.push('system:authenticated');
  return out;
}
