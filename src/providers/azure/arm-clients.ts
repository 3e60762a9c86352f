/**
 * The Azure Resource Manager SDK clients of one service principal and subscription: a
 * ClientSecretCredential (the token exchange with Entra ID; tokens cached by the library
 * until they expire) and the PostgreSQL flexible server, MySQL flexible server and Redis
 * management clients, made once per ArmAccess and reused (a Map bounded in size). No SDK
 * retries: a throttled or failed call surfaces at once and the reconciler retries with its
 * own backoff. Bearer tokens go only over https (the SDKs refuse anything else); tests reach
 * a fake on https with a CA of their own through `httpClient`.
 */
import { createHash } from 'node:crypto';
import { ClientSecretCredential, type ClientSecretCredentialOptions } from '@azure/identity';
import { PostgreSQLManagementFlexibleServerClient } from '@azure/arm-postgresql-flexible';
import { MySQLManagementFlexibleServerClient } from '@azure/arm-mysql-flexible';
import { RedisManagementClient } from '@azure/arm-rediscache';
import { DEFAULT_AUTHORITY_HOST, type ArmAccess } from './credentials.js';

/** The HTTP client the SDKs send with (tests: one trusting a test CA). */
export type ArmHttpClient = NonNullable<ClientSecretCredentialOptions['httpClient']>;

export interface ArmClientOptions {
  httpClient?: ArmHttpClient;
}

/** ArmClients are the SDK clients of one ArmAccess. */
export interface ArmClients {
  credential: ClientSecretCredential;
  postgres: PostgreSQLManagementFlexibleServerClient;
  mysql: MySQLManagementFlexibleServerClient;
  redis: RedisManagementClient;
}

const NO_RETRIES = { maxRetries: 0 };
const cache = new Map<string, ArmClients>();

const keyOf = (a: ArmAccess) =>
  createHash('sha256')
    .update(JSON.stringify([a.principal.tenantId, a.principal.clientId, a.principal.clientSecret, a.subscriptionId, a.armEndpoint, a.authorityHost]))
    .digest('hex');

/** armClientsOf returns the clients of `access`, made at the first call. */
export function armClientsOf(access: ArmAccess, options: ArmClientOptions = {}): ArmClients {
  const key = `${keyOf(access)}${options.httpClient ? '/custom' : ''}`;
  const hit = cache.get(key);
  if (hit && !options.httpClient) return hit;
  const http = options.httpClient ? { httpClient: options.httpClient } : {};
  const credential = new ClientSecretCredential(access.principal.tenantId, access.principal.clientId, access.principal.clientSecret, {
    authorityHost: access.authorityHost,
    // Instance discovery asks the public cloud's authority about the host: not for another host.
    disableInstanceDiscovery: access.authorityHost !== DEFAULT_AUTHORITY_HOST,
    retryOptions: NO_RETRIES,
    ...http,
  });
  const common = { endpoint: access.armEndpoint, retryOptions: NO_RETRIES, ...http };
  const clients: ArmClients = {
    credential,
    postgres: new PostgreSQLManagementFlexibleServerClient(credential, access.subscriptionId, common),
    mysql: new MySQLManagementFlexibleServerClient(credential, access.subscriptionId, common),
    redis: new RedisManagementClient(credential, access.subscriptionId, common),
  };
  if (!options.httpClient) {
    if (cache.size >= 64) cache.clear();
    cache.set(key, clients);
  }
  return clients;
}
