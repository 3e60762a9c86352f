/**
 * Test support: the kubectl binaries on this machine, for running one suite against each
 * client version. The Google Cloud CLI installs `kubectl.1.27` … `kubectl.1.33` beside its
 * `kubectl`; the default `kubectl` is whatever is first on PATH (/usr/bin/kubectl).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { KubectlResult } from './server.js';

/** The kubectl minor versions the client matrix covers. */
export const MATRIX_MINORS = [27, 28, 29, 30, 31, 32, 33] as const;

const EXTRA_DIRS = ['/usr/lib/google-cloud-sdk/bin', '/usr/share/google-cloud-sdk/bin', '/google-cloud-sdk/bin'];

/** One kubectl of the matrix: its label (`1.27`, `default`) and binary, or why it is missing. */
export interface KubectlBinary {
  label: string;
  path: string | undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** findBinary looks for `name` on PATH, then in the Google Cloud CLI's usual folders. */
export function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const path = join(dir, name);
    if (executable(path)) return path;
  }
  return undefined;
}

/** matrixKubectls lists the default kubectl and `kubectl.1.<minor>` for every matrix minor, found or not. */
export function matrixKubectls(): KubectlBinary[] {
  return [{ label: 'default', path: findBinary('kubectl') }, ...MATRIX_MINORS.map((m) => ({ label: `1.${m}`, path: findBinary(`kubectl.1.${m}`) }))];
}

export interface RunOptions {
  input?: string;
  timeoutMs?: number;
  /** Extra environment variables (e.g. KUBE_EDITOR). */
  env?: Record<string, string>;
  /** Called with each chunk of stdout; return true to stop kubectl (SIGTERM) — for `get -w`. */
  onStdout?: (all: string) => boolean;
  /** Called with each chunk of stderr (e.g. the `-v=6` request log). */
  onStderr?: (all: string) => void;
}

/**
 * runKubectl runs one kubectl binary against a kubeconfig with its own discovery cache
 * (versions do not share cached discovery or OpenAPI documents).
 */
export function runKubectl(bin: KubectlBinary & { path: string }, kubeconfig: string, args: string[], opts: RunOptions = {}): Promise<KubectlResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(bin.path, args, {
      env: {
        ...process.env,
        KUBECONFIG: kubeconfig,
        HOME: process.env.HOME ?? tmpdir(),
        KUBECACHEDIR: join(tmpdir(), `kubecache-${process.pid}-${bin.label}`),
        KUBECTL_EXTERNAL_DIFF: '',
        ...opts.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!stopped && opts.onStdout?.(stdout)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      opts.onStderr?.(stderr);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kubectl ${bin.label} ${args.join(' ')} timed out; stdout:\n${stdout}\nstderr:\n${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** runKubectlOk is runKubectl that fails with the command's output when it exits non-zero. */
export async function runKubectlOk(bin: KubectlBinary & { path: string }, kubeconfig: string, args: string[], opts: RunOptions = {}): Promise<string> {
  const r = await runKubectl(bin, kubeconfig, args, opts);
  if (r.code !== 0) throw new Error(`kubectl ${bin.label} ${args.join(' ')} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r.stdout;
}
