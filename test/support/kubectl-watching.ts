/**
 * Test support: runs a kubectl command that watches (`get -w`, `wait`) and tells when its watch
 * is open, so a test changes the object after kubectl is watching instead of after a sleep.
 * kubectl runs with `-v=6`, which logs each request with its answer to stderr; the watch is open
 * once a `watch=true` request has been answered 200. kubectl up to 1.32 logs it as
 * `GET <url> 200 OK in N milliseconds`, 1.33 as `"Response" verb="GET" url="<url>" status="200 OK"`.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubectlResult } from './server.js';

export interface WatchingKubectl {
  /** Resolves when kubectl's watch request was answered 200 (rejects if kubectl exits first). */
  watching: Promise<void>;
  /** kubectl's exit, with its output (stderr includes the -v=6 request log). */
  done: Promise<KubectlResult>;
}

/** kubectl's `-v=6` line for an answered watch request, in the format of kubectl ≤ 1.32 or of 1.33. */
export const WATCH_OPEN = /\bGET https?:\/\/\S*[?&]watch=(true|1)\S*\s+200 OK|url="https?:\/\/[^"]*[?&]watch=(true|1)[^"]*" status="200 OK"/;

export function kubectlWatching(server: { kubeconfig: string }, args: string[], opts: { timeoutMs?: number } = {}): WatchingKubectl {
  const child = spawn('kubectl', [...args, '-v=6'], {
    env: { ...process.env, KUBECONFIG: server.kubeconfig, HOME: process.env.HOME ?? tmpdir(), KUBECACHEDIR: join(tmpdir(), `kubecache-${process.pid}`) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let markWatching!: () => void;
  let notWatching!: (err: Error) => void;
  const watching = new Promise<void>((resolve, reject) => {
    markWatching = resolve;
    notWatching = reject;
  });
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (WATCH_OPEN.test(stderr)) markWatching();
  });
  const done = new Promise<KubectlResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kubectl ${args.join(' ')} timed out; stdout:\n${stdout}\nstderr:\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      notWatching(e);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      notWatching(new Error(`kubectl ${args.join(' ')} exited ${code} before its watch was open; stderr:\n${stderr}`));
      resolve({ code, stdout, stderr });
    });
  });
  return { watching, done };
}
