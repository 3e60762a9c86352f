/**
 * The connection details of a LoadBalancer claim: `address port url` (docs/design.md 3.1). Both
 * listener kinds produce them through here.
 */
import type { ConnectionDetails } from '../../spi.js';

/** listenerDetails are the details of a plain-HTTP listener on address:port. */
export function listenerDetails(address: string, port: number): ConnectionDetails {
  const host = address.includes(':') ? `[${address}]` : address;
  return { address, port: String(port), url: `http://${host}:${port}` };
}

/**
 * formatLoadBalancerConnection is the claim kind's connection formatter: exactly the
 * documented keys, `url` built when missing, and an error when address or port is missing.
 */
export function formatLoadBalancerConnection(details: ConnectionDetails): ConnectionDetails {
  const missing = ['address', 'port'].filter((k) => !details[k]);
  if (missing.length > 0) throw new Error(`load balancer connection details lack ${missing.join(', ')}: want address and port`);
  const port = Number(details.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`load balancer connection details have port "${details.port}": want an integer from 1 to 65535`);
  }
  const built = listenerDetails(details.address, port);
  return { ...built, url: details.url || built.url };
}
