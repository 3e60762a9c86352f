/**
 * Writing values into haproxy.cfg. HAProxy reads a line as words split on blanks; `#` starts
 * a comment, `\` escapes, double quotes expand `${VARIABLES}`. So no value is written raw:
 * addresses go through the strict host grammar (whose characters HAProxy reads literally),
 * numbers are checked as integers, and free text only ever appears in comments, reduced to
 * characters with no meaning there.
 */
import { isValidHost } from '../../../machinery/validation/host-port.js';

/** haproxyComment makes text safe for the rest of a `#` comment line (one line, plain characters). */
export function haproxyComment(text: string): string {
  return text.replace(/[^A-Za-z0-9 ._/:@-]/g, '?');
}

/** haproxyPort checks a port by type. */
export function haproxyPort(port: unknown): string {
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`haproxy.cfg: port ${JSON.stringify(port)} is not an integer from 1 to 65535`);
  }
  return String(port);
}

/** haproxyAddress writes `host:port` (IPv6 in brackets) after checking both by type; it throws on anything else. */
export function haproxyAddress(host: unknown, port: unknown): string {
  if (typeof host !== 'string' || !isValidHost(host)) {
    throw new Error(`haproxy.cfg: host ${JSON.stringify(host)} is not a DNS hostname or an IP address`);
  }
  const p = haproxyPort(port);
  return host.includes(':') ? `[${host}]:${p}` : `${host}:${p}`;
}
