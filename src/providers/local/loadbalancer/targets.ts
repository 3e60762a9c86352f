/**
 * Targets: turning a listener's spec targets into backends it can dial. Only `address`
 * targets resolve here — the SPI gives a connector no view of other claims' Secrets or of
 * Services — so `claimRef` and `serviceRef` targets are reported as unsupported.
 */
import type { ListenerTarget } from './kinds.js';

/** A Backend is a host and port a listener forwards to. */
export interface Backend {
  host: string;
  port: number;
}

/** parseAddress reads `host:port` or `[v6]:port`; undefined when it is neither. */
export function parseAddress(address: string): Backend | undefined {
  const bracketed = /^\[([0-9a-fA-F:.]+)\]:([0-9]{1,5})$/.exec(address);
  const plain = /^([^\s:[\]]+):([0-9]{1,5})$/.exec(address);
  const match = bracketed ?? plain;
  if (!match) return undefined;
  const port = Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host: match[1]!, port };
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
  unsupported: string[];
}

/** resolveTargets keeps the address targets as backends and explains every other target. */
export function resolveTargets(targets: readonly ListenerTarget[] | undefined): ResolvedTargets {
  const backends: Backend[] = [];
  const unsupported: string[] = [];
  for (const target of targets ?? []) {
    if (target.address !== undefined) {
      const backend = parseAddress(target.address);
      if (backend) backends.push(backend);
      else unsupported.push(`${describeTarget(target)}: not host:port with a port from 1 to 65535`);
    } else if (target.claimRef) {
      unsupported.push(`${describeTarget(target)}: the local provider cannot read another claim's connection Secret; use an address target`);
    } else if (target.serviceRef) {
      unsupported.push(`${describeTarget(target)}: the local provider does not resolve Services; use an address target`);
    } else {
      unsupported.push('a target with none of address, claimRef or serviceRef');
    }
  }
  return { backends, unsupported };
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
