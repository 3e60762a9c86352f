/**
 * The port forwarder's proxy process: `node proxy-main.js <config.json>`. It listens where
 * the config says and forwards each TCP connection to the next backend in turn, trying the
 * following ones when a backend refuses. SIGHUP re-reads the config (connections to
 * backends no longer listed are closed); after every load it writes the config's hash to
 * `<config>.loaded` so its supervisor can tell which config it serves. SIGTERM/SIGINT stop
 * it. Conductor starts it detached, so it outlives a Conductor restart.
 */
import { lookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { connect, createServer, type LookupFunction, type Socket } from 'node:net';
import { linkLocalOrMetadata } from '../../../machinery/validation/host-port.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { configHash, loadedFileFor, parseProxyConfig, type ProxyConfig } from './proxy-config.js';
import { formatBackend } from './targets.js';

const configPath = process.argv[2];
if (!configPath) {
  process.stderr.write('usage: proxy-main.js <config.json>\n');
  process.exit(2);
}

function load(): ProxyConfig {
  const text = readFileSync(configPath, 'utf8');
  const config = parseProxyConfig(text);
  const marker = loadedFileFor(configPath);
  // Written in place, not renamed: run as another user, this process may not create files in
  // its root-owned directory (the supervisor made the marker its own). A half-written hash
  // only makes the supervisor, which waits for the whole one, look again.
  writeFileSync(marker, `${configHash(text)}\n`);
  return config;
}

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`);
}

/**
 * guardedLookup resolves a backend's name like the system does, minus link-local and metadata
 * addresses (unless the config allows them): a name that resolves there after the provider
 * checked it (DNS rebinding) is still not dialled.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...(options as object), all: true } as LookupAllOptions, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const allowed = config.allowLinkLocal ? addresses : addresses.filter((a) => linkLocalOrMetadata(a.address) === undefined);
    if (allowed.length === 0) {
      const refused = Object.assign(new Error(`${hostname} resolves only to link-local or metadata addresses`), { code: 'EREFUSEDADDRESS' });
      return callback(refused, '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    return callback(null, allowed[0].address, allowed[0].family);
  });
};

let config = load();
let next = 0;
/** The open connections, by the backend they go to. */
const open = new Map<Socket, { upstream: Socket; backend: string }>();

function forward(client: Socket, attempt: number): void {
  const backends = config.backends;
  if (backends.length === 0 || attempt >= backends.length) {
    client.destroy();
    return;
  }
  const backend = backends[next++ % backends.length];
  if (!config.allowLinkLocal && linkLocalOrMetadata(backend.host) !== undefined) {
    log(`refusing ${formatBackend(backend)}: a link-local or metadata address`);
    forward(client, attempt + 1);
    return;
  }
  const upstream = connect({ port: backend.port, host: backend.host, lookup: guardedLookup });
  let connected = false;
  upstream.once('connect', () => {
    connected = true;
    open.set(client, { upstream, backend: formatBackend(backend) });
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
  upstream.on('error', (err) => {
    if (!connected) {
      log(`cannot reach ${formatBackend(backend)}: ${err.message}`);
      forward(client, attempt + 1);
    } else {
      client.destroy();
    }
  });
  upstream.on('close', () => {
    if (connected) client.destroy();
  });
}

const server = createServer({ pauseOnConnect: true }, (client) => {
  client.on('error', () => open.get(client)?.upstream.destroy());
  client.on('close', () => {
    open.get(client)?.upstream.destroy();
    open.delete(client);
  });
  forward(client, 0);
});
server.on('error', (err) => {
  log(`cannot listen on ${config.listen.host}:${config.listen.port}: ${err.message}`);
  process.exit(1);
});
server.listen(config.listen.port, config.listen.host, () => log(`listening on ${config.listen.host}:${config.listen.port}`));

process.on('SIGHUP', () => {
  try {
    config = load();
    const kept = new Set(config.backends.map(formatBackend));
    for (const [client, { upstream, backend }] of open) {
      if (!kept.has(backend)) {
        upstream.destroy();
        client.destroy();
      }
    }
    log(`reloaded: ${config.backends.map(formatBackend).join(', ') || 'no backends'}`);
  } catch (err) {
    log(`cannot reload ${configPath}, keeping the previous config: ${(err as Error).message}`);
  }
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close();
    for (const [client, { upstream }] of open) {
      upstream.destroy();
      client.destroy();
    }
    process.exit(0);
  });
}
