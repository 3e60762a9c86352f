import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureServerCredentials } from './server-credentials.js';

// A child process runs a start on an existing data dir and reports whether node-forge was
// loaded (it must not be: loading it alone costs ~35 ms) and how long the start took.
const script = `
import { createRequire } from 'node:module';
const { ensureServerCredentials } = await import(process.argv[1]);
const t0 = performance.now();
const c = await ensureServerCredentials({ dataDir: process.argv[2], host: '127.0.0.1', port: Number(process.argv[3]) });
const ms = performance.now() - t0;
const forgeLoaded = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('node-forge'));
console.log(JSON.stringify({ ms, forgeLoaded, kubeconfig: c.kubeconfigPath }));
`;

function warmStart(dataDir: string, port: number): Promise<{ ms: number; forgeLoaded: boolean; kubeconfig: string }> {
  const index = fileURLToPath(new URL('./server-credentials.js', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script, index, dataDir, String(port)], (err, stdout) => {
      if (err) reject(new Error(`the warm start failed: ${err.message}`, { cause: err }));
      else resolve(JSON.parse(stdout) as { ms: number; forgeLoaded: boolean; kubeconfig: string });
    });
  });
}

describe('a warm start', () => {
  let dir: string;
  let firstMs: number;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conductor-warm-'));
    const t0 = performance.now();
    await ensureServerCredentials({ dataDir: dir, host: '127.0.0.1', port: 6443 });
    firstMs = performance.now() - t0;
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('reads the existing credentials without loading node-forge', async (t) => {
    const warm = await warmStart(dir, 6443);
    t.diagnostic(`first start ${firstMs.toFixed(0)} ms, warm start ${warm.ms.toFixed(1)} ms`);
    assert.equal(warm.forgeLoaded, false);
    assert.equal(warm.kubeconfig, join(dir, 'kubeconfig'));
  });

  test('does not load node-forge when only the port changed either', async () => {
    const warm = await warmStart(dir, 7443);
    assert.equal(warm.forgeLoaded, false);
  });
});
