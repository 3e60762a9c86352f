/**
 * Starts `conductor server` as a child process on a free port with a given data
 * directory, waits for its ready line, and stops it again. Spawn-to-ready time is measured
 * here, since that is the cold-start figure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { loadKubeconfig } from '../src/client/index.js';
import { startEtcd, type EtcdProcess } from './etcd-process.js';
import type { Endpoint } from './http-client.js';

/** The compiled CLI, relative to this file's compiled location (dist/bench/). */
export const CLI_MAIN = fileURLToPath(new URL('../cli/conductor.js', import.meta.url));

/** The line `conductor server` prints on stdout once it serves requests. */
const READY_LINE = /conductor ready on (https?:\/\/\S+) \(kubeconfig: (.+)\)/;

/** parseReadyLine extracts the URL and kubeconfig path from the server's stdout so far, or returns undefined. */
export function parseReadyLine(stdout: string): { url: string; kubeconfigPath: string } | undefined {
  const m = READY_LINE.exec(stdout);
  return m ? { url: m[1], kubeconfigPath: m[2].trim() } : undefined;
}

export interface StartOptions {
  dataDir: string;
  /** The server's stderr (its log) is appended here. */
  logPath: string;
  logLevel?: string;
  /** Extra `node` flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** Give up when the ready line has not come by then. Default 60 s. */
  timeoutMs?: number;
  /** Extra `conductor server` arguments (e.g. --token-file). */
  args?: string[];
  /** Environment variables for the server (other CONDUCTOR_* variables are not passed on). */
  env?: Record<string, string>;
  /** The store: the data dir's SQLite file (default), or a local etcd of its own (in `<dataDir>-etcd`), stopped with the server. */
  store?: BenchStore;
}

/** The store a benchmarked server keeps its objects in (`npm run bench -- --store …`). */
export type BenchStore = 'sqlite' | 'etcd';

/** A ServerProcess is a running server child. */
export interface ServerProcess {
  pid: number;
  url: string;
  endpoint: Endpoint;
  kubeconfigPath: string;
  dataDir: string;
  logPath: string;
  /** Milliseconds from just before spawn to the ready line. */
  readyMs: number;
  /** The etcd this server stores in (`store: 'etcd'`). */
  etcd?: { pid: number; url: string; logPath: string };
  /** stop sends SIGTERM, waits up to `graceMs` for the exit, then SIGKILLs; it resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<string>;
}

const live = new Set<ChildProcess>();

/** killAll SIGKILLs every server this module started that is still running (for crash paths). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
}

/** startServerProcess spawns the server and resolves once it is ready, with how long that took. */
export async function startServerProcess(o: StartOptions): Promise<ServerProcess> {
  if (o.store !== 'etcd') return startServerChild(o);
  const etcd = await startEtcd(`${o.dataDir}-etcd`);
  let server: ServerProcess;
  try {
    server = await startServerChild({ ...o, args: ['--etcd-servers', etcd.url, ...(o.args ?? [])] }, etcd);
  } catch (err) {
    await etcd.stop();
    throw err;
  }
  return {
    ...server,
    async stop(graceMs?: number) {
      const how = await server.stop(graceMs);
      await etcd.stop();
      return how;
    },
  };
}

async function startServerChild(o: StartOptions, etcd?: EtcdProcess): Promise<ServerProcess> {
  const logFd = openSync(o.logPath, 'a');
  const args = [
    ...(o.nodeArgs ?? []),
    CLI_MAIN,
    'server',
    '--data-dir',
    o.dataDir,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--log-level',
    o.logLevel ?? 'info',
    ...(o.args ?? []),
  ];
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CONDUCTOR_')) delete env[k];
  Object.assign(env, o.env);
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', logFd], env });
  closeSync(logFd);
  live.add(child);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve(signal ?? String(code));
    });
  });

  const ready = await new Promise<{ url: string; kubeconfigPath: string; readyMs: number }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not print its ready line within ${o.timeoutMs ?? 60_000} ms; log: ${o.logPath}\n${tail(o.logPath)}`));
    }, o.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const r = parseReadyLine(out);
      if (r) {
        const readyMs = performance.now() - t0;
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume(); // keep draining whatever else it prints
        resolve({ ...r, readyMs });
      }
    };
    child.stdout!.on('data', onData);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot spawn the server (${CLI_MAIN}): ${err.message}`));
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${how}) before it was ready; stdout: ${JSON.stringify(out.slice(-500))}; log ${o.logPath}:\n${tail(o.logPath)}`));
    });
  });

  const cfg = await loadKubeconfig(ready.kubeconfigPath);
  if (!cfg.ca || !cfg.token) throw new Error(`kubeconfig ${ready.kubeconfigPath} lacks certificate-authority-data or a token; the benchmark needs both`);
  const url = new URL(ready.url);
  return {
    pid: child.pid!,
    url: ready.url,
    endpoint: { host: url.hostname, port: Number(url.port), ca: cfg.ca, token: cfg.token },
    kubeconfigPath: ready.kubeconfigPath,
    dataDir: o.dataDir,
    logPath: o.logPath,
    readyMs: ready.readyMs,
    etcd: etcd && { pid: etcd.pid, url: etcd.url, logPath: etcd.logPath },
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
  };
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
