import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/object.js';
import { HttpClient } from './http-client.js';
import { builtinRefs, resourceRef } from './types.js';
import type { WatchEvent } from './types.js';
import { clientVersion } from './version.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** A local server that records every request and answers with `handler` (default: echo 200). */
async function serve(handler?: Handler): Promise<{ url: string; seen: Seen[]; connections: () => number; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (handler) handler(req, res, body);
      else {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'v1', kind: 'Echo', metadata: { name: 'echo' } }));
      }
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const widgets = resourceRef('example.conductor.io/v1alpha1', 'Widget', 'widgets', true);
const cm = (name: string, namespace?: string): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace ? { namespace } : {}), resourceVersion: '7' },
  data: { a: 'b' },
});

describe('HttpClient requests', () => {
  let srv: Awaited<ReturnType<typeof serve>>;
  let client: HttpClient;
  before(async () => {
    srv = await serve();
    client = new HttpClient({ server: srv.url, token: 'tok', namespace: 'team-a' });
  });
  after(async () => {
    client.close();
    await srv.close();
  });

  const cases: Array<{
    reason: string;
    call: (c: HttpClient) => Promise<unknown>;
    method: string;
    url: string;
    contentType?: string;
    body?: unknown;
  }> = [
    { reason: 'get with a namespace', call: (c) => c.get(builtinRefs.configmaps, 'x', 'ns'), method: 'GET', url: '/api/v1/namespaces/ns/configmaps/x' },
    {
      reason: 'get defaults to the context namespace',
      call: (c) => c.get(builtinRefs.configmaps, 'x'),
      method: 'GET',
      url: '/api/v1/namespaces/team-a/configmaps/x',
    },
    { reason: 'get of a cluster-scoped resource', call: (c) => c.get(builtinRefs.namespaces, 'x', 'ignored'), method: 'GET', url: '/api/v1/namespaces/x' },
    {
      reason: 'list with selectors and paging',
      call: (c) => c.list(widgets, { namespace: 'ns', labelSelector: 'app=db', limit: 2, continue: 'abc' }),
      method: 'GET',
      url: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets?labelSelector=app%3Ddb&limit=2&continue=abc',
    },
    { reason: 'list across namespaces', call: (c) => c.list(widgets), method: 'GET', url: '/apis/example.conductor.io/v1alpha1/widgets' },
    {
      reason: 'create posts to the collection of the object namespace',
      call: (c) => c.create(builtinRefs.configmaps, cm('x', 'other'), { fieldManager: 'm', dryRun: true }),
      method: 'POST',
      url: '/api/v1/namespaces/other/configmaps?fieldManager=m&dryRun=All',
      contentType: 'application/json',
      body: cm('x', 'other'),
    },
    {
      reason: 'update puts to the object',
      call: (c) => c.update(builtinRefs.configmaps, cm('x', 'ns'), { fieldValidation: 'Strict' }),
      method: 'PUT',
      url: '/api/v1/namespaces/ns/configmaps/x?fieldValidation=Strict',
      contentType: 'application/json',
      body: cm('x', 'ns'),
    },
    {
      reason: 'updateStatus puts to /status',
      call: (c) => c.updateStatus(widgets, cm('w', 'ns')),
      method: 'PUT',
      url: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets/w/status',
      contentType: 'application/json',
      body: cm('w', 'ns'),
    },
    {
      reason: 'updateSubresource puts to the named subresource',
      call: (c) => c.updateSubresource(builtinRefs.namespaces, cm('team-a'), 'finalize'),
      method: 'PUT',
      url: '/api/v1/namespaces/team-a/finalize',
      contentType: 'application/json',
      body: cm('team-a'),
    },
    {
      reason: 'merge patch',
      call: (c) => c.patch(widgets, 'w', 'merge', { spec: { a: 1 } }, { namespace: 'ns' }),
      method: 'PATCH',
      url: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets/w',
      contentType: 'application/merge-patch+json',
      body: { spec: { a: 1 } },
    },
    {
      reason: 'JSON patch of the status subresource',
      call: (c) => c.patch(widgets, 'w', 'json', [{ op: 'add', path: '/status', value: {} }], { namespace: 'ns', subresource: 'status' }),
      method: 'PATCH',
      url: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets/w/status',
      contentType: 'application/json-patch+json',
      body: [{ op: 'add', path: '/status', value: {} }],
    },
    {
      reason: 'server-side apply with force',
      call: (c) => c.patch(widgets, 'w', 'apply', { spec: {} }, { namespace: 'ns', fieldManager: 'ctl', force: true }),
      method: 'PATCH',
      url: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets/w?fieldManager=ctl&force=true',
      contentType: 'application/apply-patch+yaml',
      body: { spec: {} },
    },
    {
      reason: 'strategic merge patch',
      call: (c) => c.patch(builtinRefs.configmaps, 'x', 'strategic', { data: { k: 'v' } }, { namespace: 'ns' }),
      method: 'PATCH',
      url: '/api/v1/namespaces/ns/configmaps/x',
      contentType: 'application/strategic-merge-patch+json',
      body: { data: { k: 'v' } },
    },
    {
      reason: 'delete sends DeleteOptions',
      call: (c) => c.delete(widgets, 'w', { namespace: 'ns', propagationPolicy: 'Foreground', preconditions: { uid: 'u1' } }),
      method: 'DELETE',
      url: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets/w',
      contentType: 'application/json',
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground', preconditions: { uid: 'u1' } },
    },
    {
      reason: 'deleteCollection with a selector',
      call: (c) => c.deleteCollection(widgets, { namespace: 'ns', labelSelector: 'tier=free', propagationPolicy: 'Background' }),
      method: 'DELETE',
      url: '/apis/example.conductor.io/v1alpha1/namespaces/ns/widgets?labelSelector=tier%3Dfree',
      contentType: 'application/json',
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
    },
    { reason: 'raw request', call: (c) => c.request('GET', '/version'), method: 'GET', url: '/version' },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const before = srv.seen.length;
      await c.call(client);
      assert.equal(srv.seen.length, before + 1);
      const got = srv.seen[before];
      assert.equal(got.method, c.method);
      assert.equal(got.url, c.url);
      assert.equal(got.headers['content-type'], c.contentType);
      if (c.body !== undefined) assert.deepEqual(JSON.parse(got.body), c.body);
      else assert.equal(got.body, '');
    });
  }

  test('sends the user agent, bearer token and accept header', async () => {
    await client.get(builtinRefs.configmaps, 'x', 'ns');
    const got = srv.seen[srv.seen.length - 1];
    assert.equal(got.headers['user-agent'], `conductor/${clientVersion}`);
    assert.match(clientVersion, /^\d+\.\d+\.\d+/);
    assert.equal(got.headers.authorization, 'Bearer tok');
    assert.equal(got.headers.accept, 'application/json');
  });

  test('update without a name fails before sending', async () => {
    const before = srv.seen.length;
    await assert.rejects(client.update(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }), /needs metadata.name/);
    assert.equal(srv.seen.length, before);
  });
});

describe('HttpClient connections and credentials', () => {
  test('reuses kept-alive connections and opens at most maxSockets', async () => {
    const srv = await serve((_req, res) => {
      setTimeout(() => res.end('{}'), 20);
    });
    const client = new HttpClient({ server: srv.url }, { maxSockets: 2 });
    try {
      await Promise.all(Array.from({ length: 6 }, (_, i) => client.get(builtinRefs.configmaps, `c${i}`, 'ns')));
      assert.equal(srv.connections(), 2);
      await client.get(builtinRefs.configmaps, 'again', 'ns');
      assert.equal(srv.connections(), 2, 'a later request reuses a pooled connection');
    } finally {
      client.close();
      await srv.close();
    }
  });

  test('reads the bearer token from a token file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'token-test-'));
    const srv = await serve();
    const file = join(dir, 'token');
    await writeFile(file, 'from-file\n');
    const client = new HttpClient({ server: srv.url, tokenFile: file });
    try {
      await client.get(builtinRefs.namespaces, 'x');
      assert.equal(srv.seen[0].headers.authorization, 'Bearer from-file');
    } finally {
      client.close();
      await srv.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('rejects a server that is not an http(s) URL', () => {
    assert.throws(() => new HttpClient({ server: 'ftp://x' }), /must be an http\(s\) URL/);
  });

  test('keeps a path prefix of the server URL', async () => {
    const srv = await serve();
    const client = new HttpClient({ server: `${srv.url}/k8s/clusters/c1/` });
    try {
      await client.get(builtinRefs.namespaces, 'x');
      assert.equal(srv.seen[0].url, '/k8s/clusters/c1/api/v1/namespaces/x');
    } finally {
      client.close();
      await srv.close();
    }
  });
});

describe('HttpClient errors', () => {
  const cases: Array<{ reason: string; status: number; body: string; code: number; reasonWant: string; message: RegExp }> = [
    {
      reason: 'a Status body becomes the ApiError',
      status: 409,
      body: JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        reason: 'Conflict',
        code: 409,
        message: 'Operation cannot be fulfilled',
        details: { name: 'x', kind: 'configmaps' },
      }),
      code: 409,
      reasonWant: 'Conflict',
      message: /^Operation cannot be fulfilled$/,
    },
    {
      reason: 'a Status without a reason takes it from the code',
      status: 404,
      body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, message: 'gone' }),
      code: 404,
      reasonWant: 'NotFound',
      message: /^gone$/,
    },
    {
      reason: 'a non-Status body says what was requested',
      status: 502,
      body: '<html>bad gateway</html>',
      code: 502,
      reasonWant: 'InternalError',
      message: /GET \/api\/v1\/namespaces\/x: HTTP 502: <html>bad gateway/,
    },
    { reason: 'a 429 without a Status', status: 429, body: '', code: 429, reasonWant: 'TooManyRequests', message: /HTTP 429$/ },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const srv = await serve((_req, res) => {
        res.statusCode = c.status;
        res.end(c.body);
      });
      const client = new HttpClient({ server: srv.url });
      try {
        await assert.rejects(client.get(builtinRefs.namespaces, 'x'), (err: unknown) => {
          assert.ok(err instanceof ApiError);
          assert.equal(err.code, c.code);
          assert.equal(err.reason, c.reasonWant);
          assert.match(err.message, c.message);
          return true;
        });
      } finally {
        client.close();
        await srv.close();
      }
    });
  }

  test('a 2xx answer that is not JSON is an InternalError', async () => {
    const srv = await serve((_req, res) => res.end('not json'));
    const client = new HttpClient({ server: srv.url });
    try {
      await assert.rejects(client.get(builtinRefs.namespaces, 'x'), /cannot decode the response as JSON/);
    } finally {
      client.close();
      await srv.close();
    }
  });

  test('an unreachable server is a 503 naming the cause', async () => {
    const srv = await serve();
    const url = srv.url;
    await srv.close();
    const client = new HttpClient({ server: url });
    try {
      await assert.rejects(client.get(builtinRefs.namespaces, 'x'), (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 503);
        assert.equal(err.reason, 'ServiceUnavailable');
        assert.match(err.message, /cannot reach the API server: .*ECONNREFUSED/);
        assert.ok(err.cause instanceof Error);
        return true;
      });
    } finally {
      client.close();
    }
  });

  test('a stalled request times out with 504', async () => {
    const srv = await serve(() => {
      // never answer
    });
    const client = new HttpClient({ server: srv.url }, { requestTimeoutMs: 50 });
    try {
      await assert.rejects(client.get(builtinRefs.namespaces, 'x'), (err: unknown) => err instanceof ApiError && err.code === 504);
    } finally {
      client.close();
      await srv.close();
    }
  });
});

/** Collects what a watch delivers until it closes. */
function collectWatch(client: HttpClient, options = {}): { events: WatchEvent[]; closed: Promise<Error | undefined>; stop: () => void } {
  const events: WatchEvent[] = [];
  let resolveClosed: (err: Error | undefined) => void = () => {};
  const closed = new Promise<Error | undefined>((resolve) => (resolveClosed = resolve));
  const handle = client.watch(
    builtinRefs.configmaps,
    { namespace: 'ns', ...options },
    {
      onEvent: (e) => events.push(e),
      onClose: (err) => resolveClosed(err),
    },
  );
  return { events, closed, stop: () => handle.stop() };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('HttpClient watch', () => {
  test('decodes events split across chunks (even inside a character) and reports the end', async () => {
    const lines = [
      { type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '1' }, data: { greeting: 'grüße 👋' } } },
      { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '5' } } },
      {
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' },
      },
    ];
    const bytes = Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const emoji = bytes.indexOf(Buffer.from('👋'));
    const cuts = [5, emoji + 2, emoji + 3, bytes.length - 10];
    const srv = await serve((_req, res) => {
      res.setHeader('content-type', 'application/json');
      void (async () => {
        let last = 0;
        for (const cut of [...cuts, bytes.length]) {
          res.write(bytes.subarray(last, cut));
          last = cut;
          await sleep(5);
        }
        res.end();
      })();
    });
    const client = new HttpClient({ server: srv.url });
    try {
      const w = collectWatch(client, { resourceVersion: '0', allowWatchBookmarks: true, timeoutSeconds: 30 });
      assert.equal(await w.closed, undefined);
      assert.deepEqual(w.events, lines);
      assert.equal(srv.seen[0].url, '/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=30');
    } finally {
      client.close();
      await srv.close();
    }
  });

  test('stop() aborts the request and does not call onClose', async () => {
    let serverSawClose: () => void = () => {};
    const closedOnServer = new Promise<void>((resolve) => (serverSawClose = resolve));
    const srv = await serve((req, res) => {
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
      res.on('close', () => serverSawClose());
      void req;
    });
    const client = new HttpClient({ server: srv.url });
    try {
      let closeCalls = 0;
      const events: WatchEvent[] = [];
      const handle = client.watch(builtinRefs.configmaps, {}, { onEvent: (e) => events.push(e), onClose: () => closeCalls++ });
      while (events.length === 0) await sleep(5);
      handle.stop();
      await closedOnServer;
      await sleep(20);
      assert.equal(closeCalls, 0);
    } finally {
      client.close();
      await srv.close();
    }
  });

  test('a non-2xx answer to the watch closes it with the ApiError', async () => {
    const srv = await serve((_req, res) => {
      res.statusCode = 410;
      res.end(
        JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version: 1 (5)' }),
      );
    });
    const client = new HttpClient({ server: srv.url });
    try {
      const err = await collectWatch(client, { resourceVersion: '1' }).closed;
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 410);
      assert.equal(err.reason, 'Expired');
    } finally {
      client.close();
      await srv.close();
    }
  });

  test('a malformed line closes the watch with an error naming it', async () => {
    const srv = await serve((_req, res) => {
      res.write('{"type":"ADDED","object":{"metadata":{}}}\n{oops}\n');
    });
    const client = new HttpClient({ server: srv.url });
    try {
      const w = collectWatch(client);
      const err = await w.closed;
      assert.match(err?.message ?? '', /cannot decode watch event/);
      assert.equal(w.events.length, 1);
    } finally {
      client.close();
      await srv.close();
    }
  });

  test('a connection cut mid-stream closes the watch with a 503', async () => {
    const srv = await serve((req, res) => {
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
      setTimeout(() => req.socket.destroy(), 10);
    });
    const client = new HttpClient({ server: srv.url });
    try {
      const err = await collectWatch(client).closed;
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 503);
    } finally {
      client.close();
      await srv.close();
    }
  });

  test('a handler that throws ends the watch with its error', async () => {
    const srv = await serve((_req, res) => {
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
    });
    const client = new HttpClient({ server: srv.url });
    try {
      const err = await new Promise<Error | undefined>((resolve) => {
        client.watch(
          builtinRefs.configmaps,
          {},
          {
            onEvent: () => {
              throw new Error('boom');
            },
            onClose: resolve,
          },
        );
      });
      assert.match(err?.message ?? '', /watch event handler failed: boom/);
    } finally {
      client.close();
      await srv.close();
    }
  });
});

describe('HttpClient discover', () => {
  const groupList = {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'example.conductor.io/v1alpha1',
    resources: [
      { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get', 'list'] },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get'] },
      { name: 'gadgets', singularName: 'gadget', namespaced: false, kind: 'Gadget', verbs: ['get'] },
    ],
  };
  const coreList = { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs: [] }] };

  test('finds resources, caches the lists, and rereads once for an unknown kind', async () => {
    const srv = await serve((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/v1') res.end(JSON.stringify(coreList));
      else if (req.url === '/apis/example.conductor.io/v1alpha1') res.end(JSON.stringify(groupList));
      else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    const client = new HttpClient({ server: srv.url });
    try {
      assert.deepEqual(await client.discover('example.conductor.io/v1alpha1', 'Widget'), {
        group: 'example.conductor.io',
        version: 'v1alpha1',
        resource: 'widgets',
        namespaced: true,
        kind: 'Widget',
      });
      assert.deepEqual(await client.discover('example.conductor.io/v1alpha1', 'Gadget'), {
        group: 'example.conductor.io',
        version: 'v1alpha1',
        resource: 'gadgets',
        namespaced: false,
        kind: 'Gadget',
      });
      assert.equal(srv.seen.length, 1, 'the second lookup uses the cached list');
      assert.deepEqual(await client.discover('v1', 'ConfigMap'), builtinRefs.configmaps);
      assert.equal(srv.seen.length, 2);
      await assert.rejects(client.discover('example.conductor.io/v1alpha1', 'Sprocket'), (err: unknown) => err instanceof ApiError && err.code === 404);
      assert.equal(srv.seen.length, 3, 'an unknown kind rereads the list once');
      await assert.rejects(client.discover('missing.io/v1', 'Thing'), (err: unknown) => err instanceof ApiError && err.code === 404);
    } finally {
      client.close();
      await srv.close();
    }
  });
});
