/**
 * A graceful stop (SIGTERM) ends every open watch with a normal end of stream — the chunked
 * terminator — so clients see the watch end as after a timeout, not a broken connection.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request, Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiFromKubeconfig } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { removeDir, startServer, tempDir } from '../support/server.js';

describe('watch streams on shutdown', () => {
  test('SIGTERM ends watch streams with their final chunk: kubectl get -w exits 0, an HTTP client sees a complete response', async () => {
    const dataDir = tempDir();
    const server = await startServer({ dataDir, env: { CONDUCTOR_CONTROLLERS: 'false' } });
    const api = apiFromKubeconfig(server.kubeconfig);
    try {
      const path = '/api/v1/namespaces/default/configmaps';
      const created = (await api.request('POST', path, { metadata: { name: 'seen' } })).json();

      // A raw HTTPS watch: IncomingMessage.complete is true only when the terminating chunk arrived.
      const agent = new Agent({ ca: api.ca, keepAlive: false });
      const raw = await new Promise<{ complete: () => boolean; body: () => string; ended: Promise<string> }>((resolve, reject) => {
        const req = request(
          `${api.url}${path}?watch=1&resourceVersion=${created.metadata.resourceVersion}`,
          { agent, headers: { Authorization: `Bearer ${api.token}` } },
          (res) => {
            assert.equal(res.statusCode, 200);
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            const ended = new Promise<string>((r) => {
              res.on('end', () => r('end'));
              res.on('aborted', () => r('aborted'));
              res.on('error', (e) => r(`error: ${e.message}`));
            });
            resolve({ complete: () => res.complete, body: () => body, ended });
          },
        );
        req.on('error', reject);
        req.end();
      });

      // kubectl get -w, the way a user follows changes.
      const kubectl = spawn('kubectl', ['get', 'configmaps', '-n', 'default', '-w'], {
        env: { ...process.env, KUBECONFIG: server.kubeconfig, KUBECACHEDIR: join(tmpdir(), `kubecache-${process.pid}`) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      kubectl.stdout.on('data', (d: Buffer) => (out += d.toString()));
      kubectl.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const kubectlExit = new Promise<number | null>((r) => kubectl.once('exit', (code) => r(code)));
      await eventually(() => out.includes('seen'), 'kubectl get -w to print the existing object', 30_000);
      // Its watch is open once a change made now reaches it.
      await api.request('POST', path, { metadata: { name: 'after-watch-started' } });
      await eventually(() => out.includes('after-watch-started'), 'kubectl get -w to print a new object', 30_000);
      await eventually(() => raw.body().includes('after-watch-started'), 'the raw watch to receive the new object', 30_000);

      assert.equal(await server.stop(), 0, `the server exits 0 after SIGTERM; stderr:\n${server.stderr()}`);
      assert.equal(await raw.ended, 'end', 'the watch response ended normally');
      assert.equal(raw.complete(), true, 'the chunked terminator was received');
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([kubectlExit, new Promise<string>((r) => (timer = setTimeout(() => r('still running'), 30_000)))]);
      clearTimeout(timer);
      if (code === 'still running') kubectl.kill('SIGKILL');
      assert.equal(code, 0, `kubectl get -w ends as after a normal end of stream; stderr:\n${err}`);
      assert.equal(err.trim(), '', 'kubectl reports no error');
      agent.destroy();
    } finally {
      api.close();
      await server.kill();
      removeDir(dataDir);
    }
  });
});
