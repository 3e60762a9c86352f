/**
 * The connection details of a PostgreSQLInstance claim: `host port username password
 * database uri` (docs/design.md 3.1). Both PostgreSQL kinds produce them through here.
 */
import type { ConnectionDetails } from '../../spi.js';
import type { SslMode } from './kinds.js';
import { uriHost } from '../../uri-host.js';

/** A PostgresEndpoint is everything needed to log in to one database. */
export interface PostgresEndpoint {
  host: string;
  port: number;
  username: string;
  password: string;
  database: string;
  /** Added to the URI as `sslmode` when it asks for TLS (require, verify-ca, verify-full). */
  sslMode?: SslMode;
}

/** postgresUri builds a libpq connection URI, every part percent-encoded. */
export function postgresUri(endpoint: PostgresEndpoint): string {
  const user = encodeURIComponent(endpoint.username);
  const password = encodeURIComponent(endpoint.password);
  const database = encodeURIComponent(endpoint.database);
  const tls = endpoint.sslMode === 'require' || endpoint.sslMode === 'verify-ca' || endpoint.sslMode === 'verify-full';
  const query = tls ? `?sslmode=${endpoint.sslMode}` : '';
  return `postgresql://${user}:${password}@${uriHost(endpoint.host)}:${endpoint.port}/${database}${query}`;
}

/** endpointDetails renders an endpoint as the claim kind's connection details. */
export function endpointDetails(endpoint: PostgresEndpoint): ConnectionDetails {
  return {
    host: endpoint.host,
    port: String(endpoint.port),
    username: endpoint.username,
    password: endpoint.password,
    database: endpoint.database,
    uri: postgresUri(endpoint),
  };
}

/**
 * formatPostgresConnection is the claim kind's connection formatter: it keeps exactly the
 * documented keys, builds `uri` when the raw details lack it, and throws when a required
 * detail is missing.
 */
export function formatPostgresConnection(details: ConnectionDetails): ConnectionDetails {
  const missing = ['host', 'port', 'username', 'password', 'database'].filter((k) => !details[k]);
  if (missing.length > 0) {
    throw new Error(`PostgreSQL connection details lack ${missing.join(', ')}: want host, port, username, password and database`);
  }
  const port = Number(details.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`PostgreSQL connection details have port "${details.port}": want an integer from 1 to 65535`);
  }
  const endpoint: PostgresEndpoint = {
    host: details.host,
    port,
    username: details.username,
    password: details.password,
    database: details.database,
  };
  return { ...endpointDetails(endpoint), uri: details.uri || postgresUri(endpoint) };
}

/** endpointFromDetails reads connection details back into an endpoint (for login checks). */
export function endpointFromDetails(details: ConnectionDetails): PostgresEndpoint | undefined {
  const port = Number(details.port);
  if (!details.host || !details.username || !details.password || !details.database || !Number.isInteger(port)) return undefined;
  return { host: details.host, port, username: details.username, password: details.password, database: details.database };
}
