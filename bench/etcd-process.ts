/**
 * `npm run bench -- --store etcd`: one local etcd member per benchmarked server, started on
 * free 127.0.0.1 ports in a directory of its own, with etcd's defaults — fsync on (never
 * `--unsafe-no-fsync`), so a create is durable when etcd answers, as a SQLite commit is.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The etcd binary: ETCD_BIN, or Debian's (`apt-get install etcd-server`). */
export const ETCD_BINARY = process.env.ETCD_BIN ?? '/usr/bin/etcd';

/** A running etcd member. */
export interface EtcdProcess {
  pid: number;
  /** The client URL, for `conductor server --etcd-servers`. */
  url: string;
  logPath: string;
  /** stop sends SIGTERM, waits up to 10 s, then SIGKILLs. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** startEtcd starts one member with its data under `dir` and resolves once /health says true. */
export async function startEtcd(dir: string, timeoutMs = 30_000): Promise<EtcdProcess> {
  if (!existsSync(ETCD_BINARY)) throw new Error(`${ETCD_BINARY} is missing: apt-get install etcd-server, or set ETCD_BIN`);
  mkdirSync(dir, { recursive: true });
  const clientUrl = `http://127.0.0.1:${await freePort()}`;
  const peerUrl = `http://127.0.0.1:${await freePort()}`;
  const logPath = join(dir, 'etcd.log');
  const logFd = openSync(logPath, 'a');
  const child = spawn(
    ETCD_BINARY,
    [
      '--name=bench',
      `--data-dir=${join(dir, 'data')}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=bench=${peerUrl}`,
      '--logger=zap',
      '--log-level=warn',
    ],
    { stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`etcd exited before it was healthy; log ${logPath}:\n${tail(logPath)}`);
    try {
      const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok && ((await res.json()) as { health?: string }).health === 'true') break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`etcd at ${clientUrl} was not healthy within ${timeoutMs} ms; log ${logPath}:\n${tail(logPath)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { pid: child.pid!, url: clientUrl, logPath, stop };
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
