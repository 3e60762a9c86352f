import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { startStandInTarget, type StandInTarget } from '../../../test/support/target-cluster.js';
import { TARGET_MAX_BODY_BYTES, TargetClient, TargetError, targetUrl } from './target-client.js';

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

describe('TargetClient against a stand-in HTTPS server that misbehaves (mocked: a broken or hostile target)', () => {
  let target: StandInTarget;
  let answer: (res: ServerResponse) => void = () => undefined;
  before(async () => {
    target = await startStandInTarget((_req, res) => answer(res));
  });
  after(() => target.stop());
  const client = () => new TargetClient({ server: target.url, ca: target.ca, token: 't' });

  /** Writes `total` bytes of `fill` in 1 MiB chunks, respecting back-pressure, unless the client goes. */
  async function stream(res: ServerResponse, head: string, fill: string, total: number): Promise<void> {
    res.write(head);
    const chunk = fill.repeat(1024 * 1024);
    for (let sent = 0; sent < total && !res.destroyed; sent += chunk.length) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    }
    res.end();
  }

  test('an answer larger than TARGET_MAX_BODY_BYTES is refused, not held', async () => {
    answer = (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      void stream(res, '{"gitVersion":"', 'x', TARGET_MAX_BODY_BYTES + 1024 * 1024);
    };
    const c = client();
    await assert.rejects(c.version(), (err) => err instanceof TargetError && err.reason === 'RequestFailed' && /more than 64 MiB/.test(err.message));
    c.close();
  });

  test('a watch event line larger than TARGET_MAX_BODY_BYTES ends the watch with a clear error', async () => {
    answer = (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      void stream(res, '{"type":"ADDED","object":{"kind":"', 'x', TARGET_MAX_BODY_BYTES + 1024 * 1024);
    };
    const c = client();
    const events: unknown[] = [];
    await assert.rejects(
      c.watch('/api/v1/configmaps', '1', (e) => void events.push(e), new AbortController().signal),
      (err) => err instanceof TargetError && /more than 64 MiB for watch \/api\/v1\/configmaps/.test(err.message),
    );
    assert.equal(events.length, 0);
    c.close();
  });

  test('a character split between two chunks of a watch stream arrives whole', async () => {
    const line = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'ünïcødé-名前' } } })}\n`);
    const split = line.indexOf(Buffer.from('名')) + 1; // inside the 3-byte character
    answer = (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(line.subarray(0, split));
      setTimeout(() => res.end(line.subarray(split)), 20);
    };
    const c = client();
    const names: unknown[] = [];
    await c.watch('/api/v1/configmaps', '1', (e) => void names.push((e.object.metadata as { name?: unknown }).name), new AbortController().signal);
    assert.deepEqual(names, ['ünïcødé-名前']);
    c.close();
  });
});

describe('TargetClients on the request thread (target-thread.ts)', () => {
  let first: StandInTarget;
  let second: StandInTarget;
  before(async () => {
    const version = (name: string) => (_req: unknown, res: ServerResponse) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ gitVersion: name }));
    };
    first = await startStandInTarget(version('v1.0.0-first'));
    second = await startStandInTarget(version('v1.0.0-second'));
  });
  after(async () => {
    await first.stop();
    await second.stop();
  });

  test("clients of two targets share the thread, each verifying its server with its own CA, and a closed client's calls fail clearly", async () => {
    const a = new TargetClient({ server: first.url, ca: first.ca, token: 't' });
    const b = new TargetClient({ server: second.url, ca: second.ca, token: 't' });
    const wrongCa = new TargetClient({ server: second.url, ca: first.ca, token: 't' });
    const [va, vb] = await Promise.all([a.version(), b.version()]);
    assert.equal(va.gitVersion, 'v1.0.0-first');
    assert.equal(vb.gitVersion, 'v1.0.0-second');
    await assert.rejects(wrongCa.version(), (err) => err instanceof TargetError && err.reason === 'UntrustedServerCertificate');
    wrongCa.close();
    a.close();
    await assert.rejects(
      a.version(),
      (err) => err instanceof TargetError && err.reason === 'Unreachable' && /client of this target was closed/.test(err.message),
    );
    assert.equal((await b.version()).gitVersion, 'v1.0.0-second');
    b.close();
  });
});
