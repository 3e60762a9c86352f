/**
 * The audit log: kubectl's requests appear as JSON lines with who, what and the outcome; a
 * watch is logged when it starts; no secret data ever reaches the file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { apiFromKubeconfig } from '../support/api.js';
import { kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const payload = 'audit-secret-payload-Xk93';

function entries(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
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

      const watcher = spawn('kubectl', ['get', 'configmaps', '--watch', '-n', 'default'], {
        env: { ...process.env, KUBECONFIG: server.kubeconfig, KUBECACHEDIR: join(tmpdir(), `kubecache-${process.pid}`) },
        stdio: 'ignore',
      });
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

  test('an oversized chunked body is a 413, is recorded, and the server goes on (issue 10 item 4)', async () => {
    const dataDir = tempDir();
    const path = join(dataDir, 'audit.log');
    let server: ServerProcess | undefined;
    try {
      server = await startServer({ dataDir, args: ['--audit-log', path], env: { CONDUCTOR_CONTROLLERS: 'false' } });
      const api = apiFromKubeconfig(server.kubeconfig);
      try {
        for (let i = 0; i < 3; i++) {
          // No Content-Length: the body arrives in chunks until it passes the 3 MiB limit.
          const status = await new Promise<number>((resolve, reject) => {
            const req = request(
              `${api.url}/api/v1/namespaces/default/configmaps`,
              {
                method: 'POST',
                ca: api.ca,
                headers: { Authorization: `Bearer ${api.token}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
              },
              (res) => {
                res.resume();
                res.on('end', () => resolve(res.statusCode ?? 0));
              },
            );
            req.on('error', reject);
            const chunk = Buffer.alloc(256 * 1024, 0x61);
            let sent = 0;
            const more = () => {
              while (sent < 16) {
                sent++;
                if (!req.write(chunk)) return void req.once('drain', more);
              }
              req.end();
            };
            req.write('{"metadata":{"name":"big"},"data":{"a":"');
            more();
          }).catch((err: Error) => (/ECONNRESET|EPIPE|socket hang up/.test(err.message) ? 413 : Promise.reject(err)));
          assert.equal(status, 413);
          assert.equal(server.child.exitCode, null, `the server exited: ${server.stderr().slice(-2000)}`);
          assert.equal((await api.request('GET', '/version')).status, 200);
        }
        const created = await api.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-big' } });
        assert.equal(created.status, 201, created.text);
        await eventually(() => entries(path).filter((e) => e.code === 413).length === 3, 'the three 413s are in the audit log', 15_000);
        const refused = entries(path).find((e) => e.code === 413)!;
        assert.equal(refused.verb, 'create');
        assert.ok(String(refused.sourceIP).includes('127.0.0.1'), JSON.stringify(refused));
        assert.doesNotMatch(server.stderr(), /TypeError/);
      } finally {
        api.close();
      }
    } finally {
      await server?.kill();
      removeDir(dataDir);
    }
  });
});
