/**
 * The admin credentials of a registered shared server (PostgreSQLServer, MySQLServer,
 * RedisServer), read from the Secret its `spec.adminCredentialsSecretRef` names, which the
 * controller hands the connector as `context.credentials`.
 */
import type { ConnectContext } from '../../spi.js';

/** An AdminCredentialsRef is a shared server's `spec.adminCredentialsSecretRef`. */
export interface AdminCredentialsRef {
  name?: string;
  usernameKey?: string;
  passwordKey?: string;
}

export interface AdminCredentialRules {
  /** Whether the Secret must hold a user name (Redis may use its default user). */
  usernameRequired: boolean;
  /** Whether an empty password is a password (MariaDB/MySQL accounts may have none). */
  emptyPasswordAllowed: boolean;
}

/**
 * readAdminCredentials returns the user name (when present) and password from the Secret's
 * data, or throws naming the resource, the Secret and the keys it lacks.
 */
export function readAdminCredentials(
  what: string,
  ref: AdminCredentialsRef | undefined,
  context: ConnectContext,
  rules: AdminCredentialRules,
): { username: string | undefined; password: string } {
  const usernameKey = ref?.usernameKey || 'username';
  const passwordKey = ref?.passwordKey || 'password';
  const credentials = context.credentials ?? {};
  const username = credentials[usernameKey] || undefined;
  const password = credentials[passwordKey];
  const passwordMissing = rules.emptyPasswordAllowed ? password === undefined : !password;
  const usernameMissing = rules.usernameRequired && !username;
  if (usernameMissing || passwordMissing) {
    const missing = [usernameMissing && usernameKey, passwordMissing && passwordKey].filter(Boolean).join(' and ');
    throw new Error(`${what}: the admin credentials Secret ${ref?.name ?? '(none named)'} lacks ${missing}`);
  }
  return { username, password: password };
}
