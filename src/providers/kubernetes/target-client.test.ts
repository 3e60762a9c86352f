import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { TargetClient, TargetError, targetUrl } from './target-client.js';

describe('TargetClient', () => {
  // A TCP server that accepts and never answers: a TLS handshake with it never ends.
  let silent: Server;
  let port = 0;
  const sockets: Socket[] = [];
  before(async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as { port: number }).port;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  test('an aborted call stops its request and rejects with the signal reason', async () => {
    const client = new TargetClient({ server: `https://127.0.0.1:${port}`, token: 't' });
    const controller = new AbortController();
    const call = client.version(controller.signal);
    const reason = new Error('deadline passed');
    reason.name = 'AbortError';
    controller.abort(reason);
    await assert.rejects(call, (err) => err === reason);
    client.close();
  });

  test('a signal aborted before the call rejects at once', async () => {
    const client = new TargetClient({ server: `https://127.0.0.1:${port}` });
    const reason = new Error('stopped');
    await assert.rejects(client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }, AbortSignal.abort(reason)), (err) => err === reason);
    client.close();
  });

  test('a refused connection is Unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const client = new TargetClient({ server: `https://127.0.0.1:${free}` });
    await assert.rejects(client.version(), (err) => err instanceof TargetError && err.reason === 'Unreachable' && /ECONNREFUSED/.test(err.message));
    client.close();
  });
});

describe('targetUrl', () => {
  const cases: { server: string; path: string; want: string }[] = [
    { server: 'https://10.0.0.1:6443', path: '/version', want: 'https://10.0.0.1:6443/version' },
    { server: 'https://proxy.example/clusters/c1', path: '/api/v1', want: 'https://proxy.example/clusters/c1/api/v1' },
    {
      server: 'https://proxy.example/clusters/c1/',
      path: '/apis/apps/v1?fieldManager=conductor',
      want: 'https://proxy.example/clusters/c1/apis/apps/v1?fieldManager=conductor',
    },
  ];
  for (const c of cases) {
    test(`${c.server} + ${c.path}`, () => assert.equal(targetUrl(new URL(c.server), c.path).toString(), c.want));
  }
});
