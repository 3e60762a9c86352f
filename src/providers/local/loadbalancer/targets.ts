/**
 * Targets: turning a listener's spec targets into backends it can dial. Only `address`
 * targets resolve here — the SPI gives a connector no view of other claims' Secrets or of
 * Services — so `claimRef` and `serviceRef` targets are reported as unsupported.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isHostPortError, isValidHost, linkLocalOrMetadata, parseHostPort, HOST_PORT_EXPECTED } from '../../../machinery/validation/host-port.js';
import type { ListenerTarget } from './kinds.js';

/** A Backend is a host and port a listener forwards to. */
export interface Backend {
  host: string;
  port: number;
}

/**
 * parseAddress reads `host:port` by the strict grammar of machinery/validation/host-port
 * (hostname, IPv4, or `[IPv6]`; port 1-65535); undefined when it is anything else.
 */
export function parseAddress(address: string): Backend | undefined {
  const parsed = parseHostPort(address);
  if (isHostPortError(parsed)) return undefined;
  return { host: parsed.host, port: parsed.port };
}

/** isValidBackend checks a backend by type: a valid host and an integer port from 1 to 65535. */
export function isValidBackend(backend: { host?: unknown; port?: unknown }): backend is Backend {
  return (
    typeof backend.host === 'string' &&
    isValidHost(backend.host) &&
    typeof backend.port === 'number' &&
    Number.isInteger(backend.port) &&
    backend.port >= 1 &&
    backend.port <= 65535
  );
}

/** formatBackend renders a backend as `host:port` (IPv6 hosts in brackets). */
export function formatBackend(backend: Backend): string {
  return backend.host.includes(':') ? `[${backend.host}]:${backend.port}` : `${backend.host}:${backend.port}`;
}

/** describeTarget names a target for messages. */
export function describeTarget(target: ListenerTarget): string {
  if (target.address !== undefined) return `address ${target.address}`;
  if (target.claimRef) {
    const ns = target.claimRef.namespace ? `${target.claimRef.namespace}/` : '';
    return `claimRef ${target.claimRef.kind} ${ns}${target.claimRef.name}`;
  }
  if (target.serviceRef) {
    const ns = target.serviceRef.namespace ? `${target.serviceRef.namespace}/` : '';
    return `serviceRef ${ns}${target.serviceRef.name}:${target.serviceRef.port}`;
  }
  return 'an empty target';
}

/** ResolvedTargets are the backends found and why the other targets were not used. */
export interface ResolvedTargets {
  backends: Backend[];
  /** Targets this provider cannot resolve (claimRef, serviceRef): reported, not an error. */
  unsupported: string[];
  /** Address targets refused (bad grammar, link-local or metadata): the listener is not configured while there are any. */
  refused: string[];
}

/** What resolveTargets may accept. */
export interface TargetPolicy {
  /** Accept link-local and metadata addresses (the kind's `allowLinkLocalTargets`). */
  allowLinkLocal?: boolean;
}

/** resolveTargets keeps the valid address targets as backends and explains every other target. */
export function resolveTargets(targets: readonly ListenerTarget[] | undefined, policy: TargetPolicy = {}): ResolvedTargets {
  const backends: Backend[] = [];
  const unsupported: string[] = [];
  const refused: string[] = [];
  (targets ?? []).forEach((target, i) => {
    if (target.address !== undefined) {
      const backend = typeof target.address === 'string' ? parseAddress(target.address) : undefined;
      const field = `spec.targets[${i}].address ${JSON.stringify(target.address)}`;
      if (!backend) refused.push(`${field}: want ${HOST_PORT_EXPECTED}`);
      else {
        const why = policy.allowLinkLocal ? undefined : linkLocalOrMetadata(backend.host);
        if (why) refused.push(`${field}: ${why}; set allowLinkLocalTargets to allow it`);
        else backends.push(backend);
      }
    } else if (target.claimRef) {
      unsupported.push(`${describeTarget(target)}: the local provider cannot read another claim's connection Secret; use an address target`);
    } else if (target.serviceRef) {
      unsupported.push(`${describeTarget(target)}: the local provider does not resolve Services; use an address target`);
    } else {
      unsupported.push('a target with none of address, claimRef or serviceRef');
    }
  });
  return { backends, unsupported, refused };
}

/** A Lookup resolves a hostname to its addresses (node:dns lookup by default; tests pass their own). */
export type Lookup = (host: string) => Promise<string[]>;

const systemLookup: Lookup = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * refusedByResolution resolves the hostname backends and explains each one that resolves to a
 * link-local or metadata address (a name pointing at 169.254.169.254 is as bad as the
 * address). A name that does not resolve is not refused here: the server reports it.
 */
export async function refusedByResolution(backends: readonly Backend[], resolve: Lookup = systemLookup): Promise<string[]> {
  const refused: string[] = [];
  for (const backend of backends) {
    if (isIP(backend.host) !== 0) continue;
    const addresses = await resolve(backend.host).catch(() => [] as string[]);
    for (const address of addresses) {
      const why = linkLocalOrMetadata(address);
      if (why) {
        refused.push(`target ${formatBackend(backend)} resolves to ${address}: ${why}; set allowLinkLocalTargets to allow it`);
        break;
      }
    }
  }
  return refused;
}

/**
 * targetKey is a comparable identity of a target; `namespace` fills in references that
 * leave theirs out (a claim's targets live in the claim's namespace).
 */
export function targetKey(target: ListenerTarget, namespace: string | undefined): string {
  if (target.address !== undefined) return `address:${target.address}`;
  if (target.claimRef) return `claim:${target.claimRef.kind.toLowerCase()}:${target.claimRef.namespace ?? namespace ?? ''}/${target.claimRef.name}`;
  if (target.serviceRef) return `service:${target.serviceRef.namespace ?? namespace ?? ''}/${target.serviceRef.name}:${target.serviceRef.port}`;
  return 'empty';
}
