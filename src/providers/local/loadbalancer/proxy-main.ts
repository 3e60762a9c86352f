/**
 * The port forwarder's proxy process: `node proxy-main.js <config.json>`. It listens where
 * the config says and forwards each TCP connection to the next backend in turn, trying the
 * following ones when a backend refuses. SIGHUP re-reads the config (connections to
 * backends no longer listed are closed); after every load it writes the config's hash to
 * `<config>.loaded` so its supervisor can tell which config it serves. SIGTERM/SIGINT stop
 * it. Conductor starts it detached, so it outlives a Conductor restart.
 */
import { connect, createServer, type Socket } from 'node:net';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { configHash, loadedFileFor, parseProxyConfig, type ProxyConfig } from './proxy-config.js';
import { formatBackend } from './targets.js';

const configPath = process.argv[2];
if (!configPath) {
  process.stderr.write('usage: proxy-main.js <config.json>\n');
  process.exit(2);
}

function load(): ProxyConfig {
  const text = readFileSync(configPath!, 'utf8');
  const config = parseProxyConfig(text);
  const marker = loadedFileFor(configPath!);
  writeFileSync(`${marker}.tmp`, `${configHash(text)}\n`);
  renameSync(`${marker}.tmp`, marker);
  return config;
}

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`);
}

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
  const backend = backends[next++ % backends.length]!;
  const upstream = connect(backend.port, backend.host);
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
