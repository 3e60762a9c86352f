/**
 * Test support: starts a real `conductor server` process (the whole Conductor, as the
 * composition root `src/conductor` assembles it) on a free port with a temporary data dir,
 * and runs the real kubectl against it. In-process tests call `startConductor` instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
/** The `conductor` command as installed: the bundle `npm run build` writes (scripts/bundle-cli.mjs). */
export const cliPath = join(repoRoot, 'dist', 'cli', 'conductor.js');

export interface ServerProcess {
  url: string;
  kubeconfig: string;
  dataDir: string;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
}

export interface StartOptions {
  dataDir?: string;
  env?: Record<string, string>;
  args?: string[];
}

export function tempDir(prefix = 'conductor-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function startServer(opts: StartOptions = {}): Promise<ServerProcess> {
  const dataDir = opts.dataDir ?? tempDir();
  const child = spawn(process.execPath, [cliPath, 'server', '--data-dir', dataDir, '--port', '0', '--log-level', 'warn', ...(opts.args ?? [])], {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.length > 200_000) err = err.slice(-100_000);
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ready = await new Promise<{ url: string; kubeconfig: string }>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not become ready in 30s; stderr:\n${err}`)), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /conductor ready on (\S+) \(kubeconfig: (.+)\)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveReady({ url: m[1], kubeconfig: m[2] });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready; stderr:\n${err}`));
    });
  });
  return {
    ...ready,
    dataDir,
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real kubectl against `server`. */
export function kubectl(server: { kubeconfig: string }, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<KubectlResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('kubectl', args, {
      env: { ...process.env, KUBECONFIG: server.kubeconfig, HOME: process.env.HOME ?? tmpdir(), KUBECACHEDIR: join(tmpdir(), `kubecache-${process.pid}`) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kubectl ${args.join(' ')} timed out; stdout:\n${stdout}\nstderr:\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

/** Runs kubectl and fails with its output when it exits non-zero. */
export async function kubectlOk(server: { kubeconfig: string }, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  const r = await kubectl(server, args, opts);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r.stdout;
}

export interface SuiteServer {
  server: ServerProcess;
  api: import('./api.js').ApiHandle;
}

/**
 * Starts a server (and a raw API handle) before the enclosing suite's tests and removes it
 * after them. The returned object's fields are set once the suite's `before` hook has run.
 */
export function serverForSuite(opts: StartOptions & { setup?: (s: SuiteServer) => Promise<void> } = {}): SuiteServer {
  const suite = {} as SuiteServer;
  before(async () => {
    suite.server = await startServer(opts);
    const { apiFromKubeconfig } = await import('./api.js');
    suite.api = apiFromKubeconfig(suite.server.kubeconfig);
    await opts.setup?.(suite);
  });
  after(async () => {
    suite.api?.close();
    await suite.server?.kill();
    if (suite.server) removeDir(suite.server.dataDir);
  });
  return suite;
}
