/**
 * The config file of the port forwarder's proxy process (proxy-main.ts): JSON naming the
 * address to listen on and the backends. Shared by the process and its supervisor so both
 * read and write one format.
 */
import { createHash } from 'node:crypto';
import type { Backend } from './targets.js';

/** A ProxyConfig is what one proxy process serves. */
export interface ProxyConfig {
  listen: { host: string; port: number };
  backends: Backend[];
}

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** renderProxyConfig writes a config as the process reads it. */
export function renderProxyConfig(config: ProxyConfig): string {
  return `${JSON.stringify({ listen: config.listen, backends: config.backends.map((b) => ({ host: b.host, port: b.port })) }, null, 2)}\n`;
}

/** parseProxyConfig reads a config file's text; it throws saying what is wrong. */
export function parseProxyConfig(text: string): ProxyConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`proxy config is not JSON: ${(err as Error).message}`);
  }
  const obj = raw as { listen?: { host?: unknown; port?: unknown }; backends?: unknown };
  if (typeof obj !== 'object' || obj === null || typeof obj.listen !== 'object' || obj.listen === null) {
    throw new Error('proxy config lacks "listen": want {"listen": {"host", "port"}, "backends": [...]}');
  }
  const { host, port } = obj.listen;
  if (typeof host !== 'string' || host === '' || !isPort(port)) {
    throw new Error('proxy config "listen" needs a host string and a port from 1 to 65535');
  }
  if (!Array.isArray(obj.backends)) throw new Error('proxy config "backends" must be a list');
  const backends = obj.backends.map((b: unknown, i: number) => {
    const backend = b as { host?: unknown; port?: unknown };
    if (typeof backend !== 'object' || backend === null || typeof backend.host !== 'string' || backend.host === '' || !isPort(backend.port)) {
      throw new Error(`proxy config backends[${i}] needs a host string and a port from 1 to 65535`);
    }
    return { host: backend.host, port: backend.port };
  });
  return { listen: { host, port }, backends };
}

/** configHash identifies a config text (what the process reports it loaded). */
export function configHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** loadedFileFor is where the proxy process reports the hash of the config it serves. */
export function loadedFileFor(configPath: string): string {
  return `${configPath}.loaded`;
}
