/**
 * `conductor server` as a process: first start creates its data dir and credentials, the
 * kubeconfig works with the real kubectl, state survives a restart, unauthenticated
 * requests get 401, and SIGTERM exits cleanly.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

function httpsGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('conductor server process', () => {
  const dataDir = tempDir();
  let server: ServerProcess;

  before(async () => {
    server = await startServer({ dataDir });
  });
  after(async () => {
    await server?.kill();
    removeDir(dataDir);
  });

  test('first start creates the data dir, CA, serving certificate, admin credentials and kubeconfig', () => {
    assert.equal(server.kubeconfig, join(dataDir, 'kubeconfig'));
    const kc = readFileSync(server.kubeconfig, 'utf8');
    assert.match(kc, /certificate-authority-data:/);
    assert.match(kc, new RegExp(server.url.replace(/[.[\]]/g, '\\$&')));
    assert.equal(statSync(server.kubeconfig).mode & 0o077, 0, 'kubeconfig must not be readable by others');
    assert.ok(existsSync(join(dataDir, 'state.db')));
  });

  test('kubectl get ns works with the generated kubeconfig and nothing else', async () => {
    const out = await kubectlOk(server, ['get', 'ns']);
    assert.match(out, /^NAME\s+STATUS\s+AGE/m);
    assert.match(out, /^default\s+Active\s+/m);
    assert.match(out, /^kube-system\s+Active/m);
  });

  test('unauthenticated requests get 401 with a Status body', async () => {
    const res = await httpsGet(`${server.url}/api/v1/namespaces`);
    assert.equal(res.status, 401);
    const status = JSON.parse(res.body);
    assert.equal(status.kind, 'Status');
    assert.equal(status.code, 401);
    assert.equal(status.reason, 'Unauthorized');
    const bad = await httpsGet(`${server.url}/api/v1/namespaces`, { Authorization: 'Bearer not-a-real-token' });
    assert.equal(bad.status, 401);
  });

  test('health endpoints answer without credentials', async () => {
    for (const p of ['/healthz', '/livez', '/readyz']) {
      const res = await httpsGet(`${server.url}${p}`);
      assert.equal(res.status, 200, p);
      assert.equal(res.body, 'ok');
    }
  });

  test('state survives a restart, and SIGTERM exits with code 0', async () => {
    await kubectlOk(server, ['create', 'configmap', 'survivor', '--from-literal=k=v']);
    const code = await server.stop();
    assert.equal(code, 0);
    server = await startServer({ dataDir });
    const out = await kubectlOk(server, ['get', 'configmap', 'survivor', '-o', 'jsonpath={.data.k}']);
    assert.equal(out, 'v');
  });
});
