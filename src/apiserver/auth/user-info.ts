/** A UserInfo is who a request was authenticated as; RBAC decides what that user may do. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
}

/** The group every authenticated user is in. */
export const AUTHENTICATED_GROUP = 'system:authenticated';
/** The group that RBAC lets do everything. */
export const MASTERS_GROUP = 'system:masters';
/** The user name of the administrator `conductor server` creates. */
export const ADMIN_USER_NAME = 'conductor-admin';

/** adminUser returns the user the admin token and the admin certificate authenticate as. */
export function adminUser(): UserInfo {
  return { name: ADMIN_USER_NAME, groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] };
}

/** withAuthenticatedGroup returns a copy of user in system:authenticated, sharing nothing with it. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = user.groups.filter((g) => g !== '');
  if (!groups.includes(AUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  return user.uid === undefined ? { name: user.name, groups } : { name: user.name, uid: user.uid, groups };
}
