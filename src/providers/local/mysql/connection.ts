/**
 * The connection details of a MySQLInstance claim: `host port username password database
 * uri` (docs/design.md 3.1), with a `mysql://` URI. Both MySQL kinds produce them through here.
 */
import type { ConnectionDetails } from '../../spi.js';
import { uriHost } from '../../uri-host.js';

/** A MySqlEndpoint is everything needed to log in to one database. */
export interface MySqlEndpoint {
  host: string;
  port: number;
  username: string;
  password: string;
  database: string;
}

/** mysqlUri builds a `mysql://user:password@host:port/database` URI, every part percent-encoded. */
export function mysqlUri(endpoint: MySqlEndpoint): string {
  const user = encodeURIComponent(endpoint.username);
  const password = encodeURIComponent(endpoint.password);
  const database = encodeURIComponent(endpoint.database);
  return `mysql://${user}:${password}@${uriHost(endpoint.host)}:${endpoint.port}/${database}`;
}

/** endpointDetails renders an endpoint as the claim kind's connection details. */
export function endpointDetails(endpoint: MySqlEndpoint): ConnectionDetails {
  return {
    host: endpoint.host,
    port: String(endpoint.port),
    username: endpoint.username,
    password: endpoint.password,
    database: endpoint.database,
    uri: mysqlUri(endpoint),
  };
}

/** endpointFromDetails reads connection details back into an endpoint, or undefined when incomplete. */
export function endpointFromDetails(details: ConnectionDetails): MySqlEndpoint | undefined {
  const port = Number(details.port);
  if (!details.host || !details.username || !details.password || !details.database) return undefined;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host: details.host, port, username: details.username, password: details.password, database: details.database };
}

/**
 * formatMySqlConnection is the claim kind's connection formatter: it keeps exactly the
 * documented keys, builds `uri` when the raw details lack it, and throws when a required
 * detail is missing or the port is not a port.
 */
export function formatMySqlConnection(details: ConnectionDetails): ConnectionDetails {
  const missing = ['host', 'port', 'username', 'password', 'database'].filter((k) => !details[k]);
  if (missing.length > 0) {
    throw new Error(`MySQL connection details lack ${missing.join(', ')}: want host, port, username, password and database`);
  }
  const endpoint = endpointFromDetails(details);
  if (!endpoint) throw new Error(`MySQL connection details have port "${details.port}": want an integer from 1 to 65535`);
  return { ...endpointDetails(endpoint), uri: details.uri || mysqlUri(endpoint) };
}
