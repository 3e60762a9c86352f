/**
 * HTTP/2 and HTTP/1.1 on the API server's one TLS port, chosen by ALPN: node's http2 client
 * negotiates h2 and holds many watches and later requests on one connection (what a browser
 * needs: it opens at most 6 HTTP/1.1 connections to a server); HTTP/1.1 clients (node https,
 * curl --http1.1) are served as before; client certificates, bearer tokens and impersonation
 * headers work over h2; garbage frames, an abrupt close and a reset stream end only what they
 * belong to (the watch slot is given back); kubectl (Go) speaks h2; a graceful stop sends GOAWAY
 * and ends open h2 watches normally.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as h2connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { eventually } from '../support/eventually.js';
import { kubectlOk, removeDir, serverForSuite, startServer, tempDir } from '../support/server.js';

const USER_TOKEN = 'http2-user-token-0123456789';
const USER_WATCH_LIMIT = 3;
const tokenDir = tempDir('conductor-http2-');
writeFileSync(join(tokenDir, 'tokens.csv'), `${USER_TOKEN},h2-user,h2-uid,"h2-people"\n`);
const CMS = '/api/v1/namespaces/default/configmaps';

interface Credentials {
  ca: string;
  token?: string;
  cert?: string;
  key?: string;
}

/** The admin's credentials from the kubeconfig `conductor server` writes: the CA, the token, the client certificate. */
function adminCredentials(kubeconfig: string): Required<Credentials> {
  const kc = parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { token?: string; 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
  };
  // One user entry holds the token, another the client certificate.
  const token = kc.users.map((u) => u.user.token).find((x) => x);
  const withCert = kc.users.find((u) => u.user['client-certificate-data'])?.user;
  assert.ok(token && withCert?.['client-certificate-data'] && withCert['client-key-data'], 'the kubeconfig holds the admin token and client certificate');
  const b64 = (s: string) => Buffer.from(s, 'base64').toString();
  return {
    ca: b64(kc.clusters[0].cluster['certificate-authority-data']),
    token,
    cert: b64(withCert['client-certificate-data']),
    key: b64(withCert['client-key-data']),
  };
}

/** The TLS connection under each session h2session opened (a session's own `socket` may not be destroyed). */
const tlsSockets = new WeakMap<ClientHttp2Session, TLSSocket>();

/** An HTTP/2 session to the server (ALPN h2 only), with a client certificate when given one. */
async function h2session(url: string, c: Credentials): Promise<ClientHttp2Session> {
  const u = new URL(url);
  const socket = tlsConnect({ host: u.hostname, port: Number(u.port), ca: c.ca, cert: c.cert, key: c.key, servername: 'localhost', ALPNProtocols: ['h2'] });
  const session = h2connect(url, { createConnection: () => socket });
  tlsSockets.set(session, socket);
  session.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  return session;
}

interface H2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): any;
}

/** One request on `session`; the bearer token goes in unless `token` is null. */
function h2request(
  session: ClientHttp2Session,
  method: string,
  path: string,
  o: { token?: string | null; body?: unknown; headers?: Record<string, string | string[]> } = {},
): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { ':method': method, ':path': path, accept: 'application/json', ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const stream = session.request(headers);
    let status = 0;
    let got: IncomingHttpHeaders = {};
    let text = '';
    stream.on('response', (h) => {
      status = Number(h[':status']);
      got = h;
    });
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (text += d));
    stream.on('end', () => resolve({ status, headers: got, text, json: () => JSON.parse(text) }));
    stream.on('error', reject);
    stream.end(o.body === undefined ? undefined : JSON.stringify(o.body));
  });
}

interface H2Watch {
  status: Promise<number>;
  events: { type: string; object: any }[];
  until(predicate: (events: { type: string; object: any }[]) => boolean, what: string): Promise<void>;
  /** Resolves how the stream ended: 'end' (a normal end of stream) or the error. */
  ended: Promise<string>;
  cancel(): void;
}

/** A watch on `session`: its events as they come. */
function h2watch(session: ClientHttp2Session, path: string, token: string): H2Watch {
  const stream = session.request({ ':method': 'GET', ':path': path, authorization: `Bearer ${token}`, accept: 'application/json' });
  const events: { type: string; object: any }[] = [];
  let buf = '';
  const status = new Promise<number>((resolve) => {
    stream.once('response', (h) => resolve(Number(h[':status'])));
    stream.once('close', () => resolve(0));
  });
  stream.setEncoding('utf8');
  stream.on('data', (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) events.push(JSON.parse(line));
    }
  });
  const ended = new Promise<string>((resolve) => {
    stream.once('end', () => resolve('end'));
    stream.once('error', (e: Error) => resolve(`error: ${e.message}`));
    stream.once('close', () => resolve(`closed (rstCode ${stream.rstCode})`));
  });
  return {
    status,
    events,
    until: async (predicate, what) => {
      await eventually(() => predicate(events), what, 30_000, 20);
    },
    ended,
    cancel: () => stream.close(constants.NGHTTP2_CANCEL),
  };
}

/** The protocol a TLS client offering `alpn` (none: undefined) agrees on with the server. */
function negotiated(url: string, ca: string, alpn: string[] | undefined): Promise<string | false | null> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = tlsConnect({ host: u.hostname, port: Number(u.port), ca, servername: 'localhost', ALPNProtocols: alpn }, () => {
      resolve(socket.alpnProtocol);
      socket.end();
    });
    socket.on('error', reject);
  });
}

/**
 * Sends `bytes` over TLS negotiated as h2 and resolves with the error code of the GOAWAY frame
 * the server answers with (the connection is over: no stream is accepted on it after), or
 * 'closed' when the server closed the connection without one.
 */
function sendRawH2(url: string, ca: string, bytes: Buffer): Promise<number | 'closed'> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: u.hostname, port: Number(u.port), ca, servername: 'localhost', ALPNProtocols: ['h2'] }, () => socket.write(bytes));
    let got = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      // Frames: length (3 bytes), type, flags, stream id (4); a GOAWAY (type 7) carries the last stream id, then the error code.
      for (let at = 0; at + 9 <= got.length;) {
        const length = got.readUIntBE(at, 3);
        if (got[at + 3] === 0x7 && at + 9 + 8 <= got.length) {
          resolve(got.readUInt32BE(at + 9 + 4));
          socket.destroy();
          return;
        }
        at += 9 + length;
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve('closed'));
    socket.setTimeout(30_000, () => {
      socket.destroy();
      reject(new Error('the server neither said GOAWAY nor closed a connection that sent garbage within 30 s'));
    });
  });
}

/** The HTTP/1.1 version and status node's https client gets (it offers no ALPN). */
function http1Get(url: string, c: Credentials, path: string): Promise<{ version: string; status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { ca: c.ca, headers: { Authorization: `Bearer ${c.token}` }, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
        // A watch: its first event is enough.
        if (path.includes('watch=1') && body.includes('\n')) req.destroy();
      });
      const done = () => resolve({ version: res.httpVersion, status: res.statusCode ?? 0, headers: res.headers, body });
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', reject);
    req.end();
  });
}

const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };

describe('HTTP/2 and HTTP/1.1 on the API port', () => {
  const t = serverForSuite({
    args: ['--token-file', join(tokenDir, 'tokens.csv'), '--max-watches-per-user', String(USER_WATCH_LIMIT)],
    env: { CONDUCTOR_CONTROLLERS: 'false' },
    // h2-user may watch ConfigMaps in default (and nothing more).
    setup: async ({ server }) => {
      await kubectlOk(server, ['create', 'role', 'cm-reader', '-n', 'default', '--verb=get,list,watch', '--resource=configmaps']);
      await kubectlOk(server, ['create', 'rolebinding', 'cm-reader', '-n', 'default', '--role=cm-reader', '--user=h2-user']);
    },
  });

  test('ALPN: h2 when the client offers it, HTTP/1.1 when it offers only http/1.1 or no ALPN; h2 advertises 250 streams per connection', async () => {
    const admin = adminCredentials(t.server.kubeconfig);
    assert.equal(await negotiated(t.server.url, admin.ca, ['h2', 'http/1.1']), 'h2');
    assert.equal(await negotiated(t.server.url, admin.ca, ['http/1.1']), 'http/1.1');
    assert.equal(await negotiated(t.server.url, admin.ca, undefined), false, 'no ALPN offered: none chosen (HTTP/1.1 is spoken)');
    const session = await h2session(t.server.url, admin);
    try {
      const version = await h2request(session, 'GET', '/version', { token: admin.token });
      assert.equal(version.status, 200);
      assert.ok(version.json().gitVersion, 'the version document over h2');
      assert.equal(session.remoteSettings.maxConcurrentStreams, 250);
      assert.equal(session.alpnProtocol, 'h2');
    } finally {
      session.close();
    }
  });

  test('ten watches and then a read, a write and a list on one h2 connection all succeed; every watch sees the write', async () => {
    const admin = adminCredentials(t.server.kubeconfig);
    const session = await h2session(t.server.url, admin);
    try {
      const watches = Array.from({ length: 10 }, () => h2watch(session, `${CMS}?watch=1&allowWatchBookmarks=false`, admin.token));
      assert.deepEqual(await Promise.all(watches.map((w) => w.status)), Array(10).fill(200), 'every watch is answered 200 and streams');
      const created = await h2request(session, 'POST', CMS, { token: admin.token, body: { metadata: { name: 'seen-by-ten' }, data: { a: 'b' } } });
      assert.equal(created.status, 201, created.text);
      for (const [i, w] of watches.entries()) {
        await w.until((events) => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'seen-by-ten'), `watch ${i} to see the new ConfigMap`);
      }
      const got = await h2request(session, 'GET', `${CMS}/seen-by-ten`, { token: admin.token });
      assert.equal(got.status, 200);
      assert.deepEqual(got.json().data, { a: 'b' });
      const list = await h2request(session, 'GET', CMS, { token: admin.token });
      assert.equal(list.status, 200);
      assert.ok(
        list.json().items.some((i: any) => i.metadata.name === 'seen-by-ten'),
        'the list holds it',
      );
      assert.equal(list.headers['transfer-encoding'], undefined, 'no connection-specific header over h2');
      for (const w of watches) w.cancel();
    } finally {
      session.close();
    }
  });

  test('HTTP/1.1 clients are served as before: node https, a chunked watch, curl --http1.1 (and curl --http2 gets h2)', async () => {
    const admin = adminCredentials(t.server.kubeconfig);
    const version = await http1Get(t.server.url, admin, '/version');
    assert.equal(version.version, '1.1');
    assert.equal(version.status, 200);
    const watch = await http1Get(t.server.url, admin, `${CMS}?watch=1`);
    assert.equal(watch.version, '1.1');
    assert.equal(watch.status, 200);
    assert.equal(watch.headers['transfer-encoding'], 'chunked', 'an HTTP/1.1 watch streams chunked');

    const caFile = join(tokenDir, 'ca.crt');
    writeFileSync(caFile, admin.ca);
    const curl = async (flag: string) => {
      const { stdout } = await promisify(execFile)(
        'curl',
        [
          '-sS',
          flag,
          '--cacert',
          caFile,
          '-H',
          `Authorization: Bearer ${admin.token}`,
          '-o',
          '/dev/null',
          '-w',
          '%{http_version} %{http_code}',
          `${t.server.url}/version`,
        ],
        { timeout: 30_000 },
      );
      return stdout.trim();
    };
    assert.equal(await curl('--http1.1'), '1.1 200');
    assert.equal(await curl('--http2'), '2 200');
  });

  test('over h2: a client certificate, a bearer token and impersonation headers (one field per group) identify the user; no credentials are a 401', async () => {
    const admin = adminCredentials(t.server.kubeconfig);
    const byCert = await h2session(t.server.url, { ca: admin.ca, cert: admin.cert, key: admin.key });
    const plain = await h2session(t.server.url, { ca: admin.ca });
    try {
      const cert = await h2request(byCert, 'POST', SSR, { token: null, body: SSR_BODY });
      assert.equal(cert.status, 201, cert.text);
      assert.equal(cert.json().status.userInfo.username, 'conductor-admin', 'the client certificate of the TLS connection under the h2 stream');
      assert.ok(cert.json().status.userInfo.groups.includes('system:masters'));

      const token = await h2request(plain, 'POST', SSR, { token: USER_TOKEN, body: SSR_BODY });
      assert.equal(token.status, 201, token.text);
      assert.equal(token.json().status.userInfo.username, 'h2-user');

      const as = await h2request(plain, 'POST', SSR, {
        token: admin.token,
        body: SSR_BODY,
        headers: { 'impersonate-user': 'someone', 'impersonate-group': ['team-a', 'team-b'] },
      });
      assert.equal(as.status, 201, as.text);
      assert.equal(as.json().status.userInfo.username, 'someone');
      assert.deepEqual(
        as.json().status.userInfo.groups.filter((g: string) => g.startsWith('team-')),
        ['team-a', 'team-b'],
      );

      const none = await h2request(plain, 'GET', CMS, { token: null });
      assert.equal(none.status, 401);
      assert.equal(none.json().kind, 'Status');
      const forbidden = await h2request(plain, 'GET', '/api/v1/secrets', { token: USER_TOKEN });
      assert.equal(forbidden.status, 403, 'h2-user is authenticated and not allowed to list every Secret');
    } finally {
      byCert.close();
      plain.close();
    }
  });

  test('garbage frames, a missing preface, an abrupt close and a reset stream end only their own connection or stream; watch slots are given back', async () => {
    const admin = adminCredentials(t.server.kubeconfig);
    const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    // A SETTINGS frame whose length is no multiple of 6 (FRAME_SIZE_ERROR), then a HEADERS frame of garbage on stream 1.
    const badSettings = Buffer.from([0, 0, 5, 0x4, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5]);
    const garbageHeaders = Buffer.concat([Buffer.from([0, 0, 16, 0x1, 0x5, 0, 0, 0, 1]), Buffer.alloc(16, 0xff)]);
    assert.equal(await sendRawH2(t.server.url, admin.ca, Buffer.concat([preface, badSettings])), constants.NGHTTP2_FRAME_SIZE_ERROR);
    assert.equal(
      await sendRawH2(t.server.url, admin.ca, Buffer.concat([preface, Buffer.from([0, 0, 0, 0x4, 0, 0, 0, 0, 0]), garbageHeaders])),
      constants.NGHTTP2_COMPRESSION_ERROR,
    );
    const noPreface = await sendRawH2(t.server.url, admin.ca, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    assert.ok(
      noPreface === 'closed' || noPreface !== constants.NGHTTP2_NO_ERROR,
      `no preface: a GOAWAY with an error or a closed connection (got ${noPreface})`,
    );

    // The user may hold 3 watches: held on one connection, then the connection dropped without a GOAWAY.
    const first = await h2session(t.server.url, { ca: admin.ca });
    const held = Array.from({ length: USER_WATCH_LIMIT }, () => h2watch(first, `${CMS}?watch=1`, USER_TOKEN));
    assert.deepEqual(await Promise.all(held.map((w) => w.status)), Array(USER_WATCH_LIMIT).fill(200));
    const refused = await h2request(first, 'GET', `${CMS}?watch=1`, { token: USER_TOKEN });
    assert.equal(refused.status, 429, 'a fourth watch is over the limit');
    tlsSockets.get(first)!.destroy();

    // Its slots come back: 3 watches again on a new connection, one of them reset by the client, then a fourth.
    const second = await h2session(t.server.url, { ca: admin.ca });
    try {
      const again = await eventually(
        async () => {
          const ws = Array.from({ length: USER_WATCH_LIMIT }, () => h2watch(second, `${CMS}?watch=1`, USER_TOKEN));
          const codes = await Promise.all(ws.map((w) => w.status));
          if (codes.every((c) => c === 200)) return ws;
          for (const w of ws) w.cancel();
          return undefined;
        },
        'the watch slots of the dropped connection to be given back',
        30_000,
        200,
      );
      again[0].cancel();
      const replacement = await eventually(
        async () => {
          const w = h2watch(second, `${CMS}?watch=1`, USER_TOKEN);
          if ((await w.status) === 200) return w;
          w.cancel();
          return undefined;
        },
        'the slot of the reset stream to be given back',
        30_000,
        200,
      );
      // The connection that carried the reset stream goes on.
      const version = await h2request(second, 'GET', '/version', { token: USER_TOKEN });
      assert.equal(version.status, 200);
      replacement.cancel();
      for (const w of again) w.cancel();
    } finally {
      second.close();
    }
    assert.equal(t.server.child.exitCode, null, 'the server still runs');
    const ready = await http1Get(t.server.url, admin, '/readyz');
    assert.equal(ready.status, 200);
  });

  test('CONNECT over h2 is a 405 Status on its stream; the connection goes on', async () => {
    const admin = adminCredentials(t.server.kubeconfig);
    const session = await h2session(t.server.url, admin);
    try {
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const stream = session.request({ ':method': 'CONNECT', ':authority': 'example.com:443', authorization: `Bearer ${admin.token}` });
        let status = 0;
        let text = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.setEncoding('utf8');
        stream.on('data', (d: string) => (text += d));
        stream.on('end', () => resolve({ status, text }));
        stream.on('error', reject);
      });
      assert.equal(answer.status, 405);
      assert.match(JSON.parse(answer.text).message, /CONNECT is not supported/);
      assert.equal((await h2request(session, 'GET', '/version', { token: admin.token })).status, 200);
    } finally {
      session.close();
    }
  });

  test('kubectl negotiates h2 and works over it (get, apply, watch)', async () => {
    const env = {
      ...process.env,
      KUBECONFIG: t.server.kubeconfig,
      KUBECACHEDIR: join(tmpdir(), `kubecache-${process.pid}`),
      // Go's HTTP/2 transport says what it does on stderr.
      GODEBUG: 'http2debug=1',
    };
    const run = promisify(execFile);
    const version = await run('kubectl', ['get', '--raw', '/version'], { env, timeout: 30_000 });
    assert.ok(JSON.parse(version.stdout).gitVersion);
    assert.match(version.stderr, /http2: Transport/, 'kubectl used its HTTP/2 transport');
    assert.doesNotMatch(version.stderr, /http2: Transport.*(PROTOCOL_ERROR|INTERNAL_ERROR)/);

    const manifest = join(tokenDir, 'cm.yaml');
    writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: by-kubectl-h2, namespace: default}\ndata: {k: v}\n');
    const applied = await run('kubectl', ['apply', '--server-side', '-f', manifest], { env, timeout: 30_000 });
    assert.match(applied.stdout, /serverside-applied/);

    const watcher = spawn('kubectl', ['get', 'configmaps', '-n', 'default', '-w', '-o', 'name'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    watcher.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => watcher.once('exit', () => r()));
    try {
      await eventually(() => out.includes('configmap/by-kubectl-h2'), 'kubectl get -w to list the existing ConfigMap', 30_000);
      const admin = adminCredentials(t.server.kubeconfig);
      const session = await h2session(t.server.url, admin);
      try {
        assert.equal((await h2request(session, 'POST', CMS, { token: admin.token, body: { metadata: { name: 'watched-by-kubectl' } } })).status, 201);
      } finally {
        session.close();
      }
      await eventually(() => out.includes('configmap/watched-by-kubectl'), 'kubectl get -w over h2 to print the new ConfigMap', 30_000);
    } finally {
      watcher.kill('SIGTERM');
      await exited;
    }
  });
});

describe('HTTP/2 on stop', () => {
  test('SIGTERM sends GOAWAY and ends an open h2 watch with a normal end of stream', async () => {
    const dataDir = tempDir();
    const server = await startServer({ dataDir, env: { CONDUCTOR_CONTROLLERS: 'false' } });
    try {
      const admin = adminCredentials(server.kubeconfig);
      const session = await h2session(server.url, admin);
      const goaway = new Promise<number>((r) => session.once('goaway', (code: number) => r(code)));
      const watch = h2watch(session, `${CMS}?watch=1`, admin.token);
      assert.equal(await watch.status, 200);
      assert.equal(await server.stop(), 0, `the server exits 0; stderr:\n${server.stderr()}`);
      assert.equal(await goaway, constants.NGHTTP2_NO_ERROR, 'the server said GOAWAY (no error)');
      assert.equal(await watch.ended, 'end', 'the watch ended as after its timeout, not reset');
      session.destroy();
    } finally {
      await server.kill();
      removeDir(dataDir);
    }
  });
});

process.on('exit', () => removeDir(tokenDir));
