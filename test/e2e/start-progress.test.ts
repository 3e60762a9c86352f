/**
 * `conductor server` says what a slow start waits for (issue 15, item 7): on stderr, once a
 * second after the first. The start is made slow for real: the etcd it is given accepts TCP
 * connections and never answers (a refused connection fails at once, so it would not do), so the
 * server waits until its connect deadline. The line's absence on a fast
 * start is proved with a fake clock (src/cli/start-progress.test.ts): no test here depends on how
 * fast this machine is.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { eventually } from '../support/eventually.js';
import { cliPath, removeDir, tempDir } from '../support/server.js';

describe('conductor server start progress', () => {
  test('a start waiting on an etcd that accepts connections and never answers says so on stderr, naming the endpoint', async () => {
    const dataDir = tempDir();
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    assert.ok(address !== null && typeof address === 'object');
    const port = address.port;
    const child = spawn(process.execPath, [cliPath, 'server', '--data-dir', dataDir, '--port', '0', '--etcd-servers', `http://127.0.0.1:${port}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      const line = await eventually(() => stderr.split('\n').find((l) => l.startsWith('conductor: starting (')), 'the start-progress line on stderr', 14_000);
      assert.match(line, new RegExp(`^conductor: starting \\(\\d+s\\): waiting for etcd at http://127\\.0\\.0\\.1:${port}…$`));
      assert.doesNotMatch(stdout, /conductor ready/);
    } finally {
      child.kill('SIGKILL');
      await exited;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      removeDir(dataDir);
    }
  });
});
