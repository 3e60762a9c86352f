/**
 * The audit log: kubectl's requests appear as JSON lines with who, what and the outcome; a
 * watch is logged when it starts; no secret data ever reaches the file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const payload = 'audit-secret-payload-Xk93';

function entries(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('audit log', () => {
  test('kubectl actions are recorded, watches at their start, secret data never', async () => {
    const dataDir = tempDir();
    const path = join(dataDir, 'logs', 'audit.log');
    let server: ServerProcess | undefined;
    try {
      server = await startServer({ dataDir, env: { CONDUCTOR_AUDIT_LOG: path, CONDUCTOR_CONTROLLERS: 'false' } });
      await kubectlOk(server, ['create', 'secret', 'generic', 'creds', `--from-literal=password=${payload}`]);
      await kubectlOk(server, ['get', 'secret', 'creds', '-o', 'yaml']);
      await kubectlOk(server, ['apply', '-f', '-'], { input: `apiVersion: v1\nkind: Secret\nmetadata: {name: applied}\nstringData: {token: ${payload}}\n` });
      await kubectlOk(server, ['delete', 'secret', 'creds']);

      const watcher = spawn('kubectl', ['get', 'configmaps', '--watch', '-n', 'default'], { env: { ...process.env, KUBECONFIG: server.kubeconfig, KUBECACHEDIR: join(tmpdir(), `kubecache-${process.pid}`) }, stdio: 'ignore' });
      try {
        await eventually(() => entries(path).some((e) => e.verb === 'watch' && e.resource === 'configmaps'), 'the watch is logged while it runs', 15_000);
      } finally {
        watcher.kill('SIGKILL');
      }
      assert.equal(await server.stop(), 0);

      const all = entries(path);
      const find = (verb: string, name: string) => all.find((e) => e.verb === verb && e.resource === 'secrets' && e.name === name);
      const create = all.find((e) => e.verb === 'create' && e.resource === 'secrets');
      assert.ok(create, 'the create is logged');
      assert.equal(create.code, 201);
      assert.equal(create.user, 'conductor-admin');
      assert.deepEqual(create.groups, ['system:masters', 'system:authenticated']);
      assert.equal(create.namespace, 'default');
      assert.match(String(create.userAgent), /^kubectl\//);
      assert.ok(typeof create.latencyMs === 'number' && typeof create.requestId === 'string' && String(create.sourceIP).includes('127.0.0.1'));
      assert.equal(find('get', 'creds')?.code, 200);
      assert.equal(find('delete', 'creds')?.code, 200);
      assert.ok(find('patch', 'applied') || find('get', 'applied'), 'kubectl apply is logged');
      const watch = all.find((e) => e.verb === 'watch');
      assert.equal(watch?.code, 200);

      const text = readFileSync(path, 'utf8');
      assert.ok(!text.includes(payload) && !text.includes(Buffer.from(payload).toString('base64')), 'no secret data in the audit log');
      assert.ok(!text.includes('"data"') && !text.includes('stringData'));
    } finally {
      await server?.kill();
      removeDir(dataDir);
    }
  });
});
