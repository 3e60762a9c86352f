/**
 * The connection details of a RedisCluster claim (see kinds.ts for the keys). Both Redis
 * kinds produce them through here.
 */
import type { ConnectionDetails } from '../../spi.js';
import { uriHost } from '../../uri-host.js';

/** A RedisEndpoint is everything needed to log in to Redis as one user. */
export interface RedisEndpoint {
  host: string;
  port: number;
  username: string;
  password: string;
  /** The prefix the user's keys and channels must start with ('' for none). */
  keyPrefix: string;
}

/** redisUri builds a `redis://user:password@host:port` URI, user and password percent-encoded. */
export function redisUri(endpoint: Pick<RedisEndpoint, 'host' | 'port' | 'username' | 'password'>): string {
  const user = encodeURIComponent(endpoint.username);
  const password = encodeURIComponent(endpoint.password);
  return `redis://${user}:${password}@${uriHost(endpoint.host)}:${endpoint.port}`;
}

/** redisEndpointDetails renders an endpoint as the claim kind's connection details. */
export function redisEndpointDetails(endpoint: RedisEndpoint): ConnectionDetails {
  return {
    host: endpoint.host,
    port: String(endpoint.port),
    username: endpoint.username,
    password: endpoint.password,
    // Absent rather than empty when there is no prefix: an empty Secret value is rejected.
    ...(endpoint.keyPrefix ? { keyPrefix: endpoint.keyPrefix } : {}),
    uri: redisUri(endpoint),
  };
}

/**
 * formatRedisConnection is the claim kind's connection formatter: it keeps exactly the
 * keys, builds `uri` when the raw details lack it, defaults `username` to Redis's
 * `default` user and leaves `keyPrefix` out when there is none, and throws when host, port or password is missing.
 */
export function formatRedisConnection(details: ConnectionDetails): ConnectionDetails {
  const missing = ['host', 'port', 'password'].filter((k) => !details[k]);
  if (missing.length > 0) throw new Error(`Redis connection details lack ${missing.join(', ')}: want host, port and password`);
  const port = Number(details.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`Redis connection details have port "${details.port}": want an integer from 1 to 65535`);
  }
  const endpoint: RedisEndpoint = {
    host: details.host,
    port,
    username: details.username || 'default',
    password: details.password,
    keyPrefix: details.keyPrefix ?? '',
  };
  return { ...redisEndpointDetails(endpoint), uri: details.uri || redisUri(endpoint) };
}

/** redisEndpointFromDetails reads connection details back into an endpoint (for login checks). */
export function redisEndpointFromDetails(details: ConnectionDetails): RedisEndpoint | undefined {
  const port = Number(details.port);
  if (!details.host || !details.password || !Number.isInteger(port)) return undefined;
  return { host: details.host, port, username: details.username || 'default', password: details.password, keyPrefix: details.keyPrefix ?? '' };
}
