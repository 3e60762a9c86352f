/**
 * The config file of the port forwarder's proxy process (proxy-main.ts): JSON naming the
 * address to listen on and the backends. Shared by the process and its supervisor so both
 * read and write one format.
 */
import { createHash } from 'node:crypto';
import { isValidBackend, type Backend } from './targets.js';

/** A ProxyConfig is what one proxy process serves. */
export interface ProxyConfig {
  listen: { host: string; port: number };
  backends: Backend[];
  /** Connect to link-local and metadata addresses a backend's name resolves to (refused by default). */
  allowLinkLocal?: boolean;
}

function isPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** renderProxyConfig writes a config as the process reads it; it throws on a listen address or backend that is not a valid host and port. */
export function renderProxyConfig(config: ProxyConfig): string {
  if (!isValidBackend(config.listen)) throw new Error(`proxy config: listen ${JSON.stringify(config.listen)} is not a valid host and port`);
  config.backends.forEach((b, i) => {
    if (!isValidBackend(b)) throw new Error(`proxy config: backends[${i}] ${JSON.stringify(b)} is not a valid host and port`);
  });
  const body = {
    listen: { host: config.listen.host, port: config.listen.port },
    backends: config.backends.map((b) => ({ host: b.host, port: b.port })),
    ...(config.allowLinkLocal ? { allowLinkLocal: true } : {}),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

/** parseProxyConfig reads a config file's text; it throws saying what is wrong. */
export function parseProxyConfig(text: string): ProxyConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`proxy config is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const obj = raw as { listen?: { host?: unknown; port?: unknown }; backends?: unknown; allowLinkLocal?: unknown };
  if (typeof obj !== 'object' || obj === null || typeof obj.listen !== 'object' || obj.listen === null) {
    throw new Error('proxy config lacks "listen": want {"listen": {"host", "port"}, "backends": [...]}');
  }
  const { host, port } = obj.listen;
  if (typeof host !== 'string' || !isValidBackend({ host, port }) || !isPort(port)) {
    throw new Error('proxy config "listen" needs a host string and a port from 1 to 65535');
  }
  if (!Array.isArray(obj.backends)) throw new Error('proxy config "backends" must be a list');
  const backends = obj.backends.map((b: unknown, i: number) => {
    const backend = b as { host?: unknown; port?: unknown };
    if (typeof backend !== 'object' || backend === null || !isValidBackend(backend)) {
      throw new Error(`proxy config backends[${i}] needs a hostname or IP address and a port from 1 to 65535`);
    }
    return { host: backend.host, port: backend.port };
  });
  return { listen: { host, port }, backends, ...(obj.allowLinkLocal === true ? { allowLinkLocal: true } : {}) };
}

/** configHash identifies a config text (what the process reports it loaded). */
export function configHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** loadedFileFor is where the proxy process reports the hash of the config it serves. */
export function loadedFileFor(configPath: string): string {
  return `${configPath}.loaded`;
}
