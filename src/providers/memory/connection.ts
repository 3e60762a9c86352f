/**
 * The connection details of the claims a MemoryDatabase serves. A MemoryDatabase's raw
 * details are engine-neutral (host, username, password, database and, when its spec sets
 * one, port); the formatter of each claim kind fills in that engine's usual port and builds
 * its URI, so one resource can serve a PostgreSQLInstance or a MySQLInstance claim.
 */
import type { ConnectionDetails } from '../spi.js';
import { uriHost } from '../uri-host.js';

/** A SqlEngine is the database family a claim asks for. */
export type SqlEngine = 'postgresql' | 'mysql';

interface EngineFacts {
  label: string;
  scheme: string;
  defaultPort: number;
}

const ENGINES: Record<SqlEngine, EngineFacts> = {
  postgresql: { label: 'PostgreSQL', scheme: 'postgresql', defaultPort: 5432 },
  mysql: { label: 'MySQL', scheme: 'mysql', defaultPort: 3306 },
};

/** defaultPortOf is the port a claim kind's clients expect when the resource names none. */
export function defaultPortOf(engine: SqlEngine): number {
  return ENGINES[engine].defaultPort;
}

/** A SqlEndpoint is everything needed to log in to one database. */
export interface SqlEndpoint {
  host: string;
  port: number;
  username: string;
  password: string;
  database: string;
}

/** sqlUri builds the engine's connection URI, user, password and database percent-encoded. */
export function sqlUri(engine: SqlEngine, e: SqlEndpoint): string {
  const host = uriHost(e.host);
  const user = encodeURIComponent(e.username);
  const password = encodeURIComponent(e.password);
  return `${ENGINES[engine].scheme}://${user}:${password}@${host}:${e.port}/${encodeURIComponent(e.database)}`;
}

/**
 * sqlConnectionFormatter returns the connection formatter of one claim kind: it keeps
 * exactly the documented keys (host port username password database uri), uses the
 * engine's usual port when the details carry none, always builds the engine's URI, and
 * throws when a required detail is missing or the port is not a TCP port.
 */
export function sqlConnectionFormatter(engine: SqlEngine): (details: ConnectionDetails) => ConnectionDetails {
  const facts = ENGINES[engine];
  return (details) => {
    const missing = ['host', 'username', 'password', 'database'].filter((k) => !details[k]);
    if (missing.length > 0) {
      throw new Error(`${facts.label} connection details lack ${missing.join(', ')}: want host, username, password and database (port optional)`);
    }
    const port = details.port ? Number(details.port) : facts.defaultPort;
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`${facts.label} connection details have port "${details.port}": want an integer from 1 to 65535`);
    }
    const endpoint: SqlEndpoint = { host: details.host, port, username: details.username, password: details.password, database: details.database };
    return {
      host: endpoint.host,
      port: String(port),
      username: endpoint.username,
      password: endpoint.password,
      database: endpoint.database,
      uri: sqlUri(engine, endpoint),
    };
  };
}
