/**
 * The connection details of a MessageQueue claim on a NATSServer (see kinds.ts for the keys).
 */
import type { ConnectionDetails } from '../../spi.js';
import { uriHost } from '../../uri-host.js';

/** natsEndpoint is the `nats://host:port` URL clients connect to. */
export function natsEndpoint(host: string, port: number): string {
  return `nats://${uriHost(host)}:${port}`;
}

/**
 * formatNatsConnection is the claim kind's connection formatter: exactly endpoint, queue,
 * username and password; it throws when one is missing.
 */
export function formatNatsConnection(details: ConnectionDetails): ConnectionDetails {
  const missing = ['endpoint', 'queue', 'username', 'password'].filter((k) => !details[k]);
  if (missing.length > 0) throw new Error(`NATS connection details lack ${missing.join(', ')}: want endpoint, queue, username and password`);
  if (!/^nats:\/\/[^/\s]+:\d+$/.test(details.endpoint)) {
    throw new Error(`NATS connection details have endpoint "${details.endpoint}": want nats://host:port`);
  }
  return { endpoint: details.endpoint, queue: details.queue, username: details.username, password: details.password };
}
