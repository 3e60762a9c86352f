/**
 * H2Connection against node:http2's server (nghttp2, another implementation of HTTP/2 and
 * HPACK) as the peer: Huffman-coded header values of every byte, bodies larger than every
 * flow-control window in both directions, the peer's concurrent-stream limit, PING, a stream
 * reset, GOAWAY, the connection lost. The whole client against a real etcd is
 * `../unary-session.test.ts`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { H2Connection, MAX_HEADER_BLOCK_BYTES, type StreamHandler } from './connection.js';
import { FrameType, frame, settingsFrame } from './frames.js';
import { encodeHeaders, type HeaderField } from './hpack.js';

interface Answer {
  headers: HeaderField[][];
  body: Buffer;
  outcome: string;
}

function collect(): { handler: StreamHandler; answer: Promise<Answer> } {
  const headers: HeaderField[][] = [];
  const chunks: Buffer[] = [];
  let settle!: (a: Answer) => void;
  const answer = new Promise<Answer>((resolve) => (settle = resolve));
  const done = (outcome: string) => settle({ headers, body: Buffer.concat(chunks), outcome });
  return {
    handler: {
      headers: (fields) => headers.push(fields),
      data: (chunk) => chunks.push(Buffer.from(chunk)),
      end: () => done('end'),
      reset: (code) => done(`reset ${code}`),
      failed: (err, connected) => done(`failed ${connected ? 'connected' : 'never connected'}: ${err.message}`),
    },
    answer,
  };
}

const post = (path: string) =>
  encodeHeaders([
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', path],
    [':authority', 'localhost'],
  ]);

const printable = Array.from({ length: 256 }, (_, i) => i).filter((i) => i >= 0x20 && i !== 0x7f);

describe('H2Connection with node:http2 as the peer', () => {
  let server: http2.Http2Server;
  let origin = '';
  const sessions = new Set<http2.ServerHttp2Session>();
  /** Told when the server has taken a /slow request (its HEADERS arrived). */
  let slowTaken: (() => void) | undefined;
  before(async () => {
    server = http2.createServer({ settings: { maxConcurrentStreams: 4 } });
    server.on('session', (s) => {
      sessions.add(s);
      s.on('close', () => sessions.delete(s));
    });
    server.on('stream', (stream, headers) => {
      if (headers[':path'] === '/slow') slowTaken?.();
      // The streams this test resets or refuses end with an error on the server's side too.
      stream.on('error', () => undefined);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const body = Buffer.concat(chunks);
        const path = String(headers[':path']);
        if (path === '/bytes') {
          // Values nghttp2 Huffman-codes (shorter so): one of every byte between zeros.
          const out: http2.OutgoingHttpHeaders = { ':status': 200 };
          for (const i of printable) out[`x-b${i}`] = `${'0'.repeat(12)}${String.fromCharCode(i)}${'0'.repeat(12)}`;
          stream.respond(out);
          stream.end();
        } else if (path === '/echo') {
          stream.respond({ ':status': 200, 'x-length': String(body.length) }, { waitForTrailers: true });
          stream.on('wantTrailers', () => stream.sendTrailers({ 'x-done': 'yes' }));
          stream.end(Buffer.concat([body, body, body]));
        } else if (path === '/slow') {
          setTimeout(() => {
            if (!stream.closed) {
              stream.respond({ ':status': 200 });
              stream.end('slow');
            }
          }, 50);
        } else if (path === '/reset') {
          stream.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
        } else if (path === '/goaway') {
          stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, (stream.id ?? 3) - 2);
        } else {
          stream.respond({ ':status': 404 });
          stream.end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const s of sessions) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  test('Huffman-coded header values of every printable byte decode as nghttp2 coded them', async () => {
    const c = new H2Connection(origin, undefined, () => undefined);
    try {
      const { handler, answer } = collect();
      c.request(post('/bytes'), Buffer.from('x'), handler);
      const a = await answer;
      assert.equal(a.outcome, 'end');
      const fields = new Map(a.headers[0]);
      assert.equal(fields.get(':status'), '200');
      for (const i of printable) assert.equal(fields.get(`x-b${i}`), `${'0'.repeat(12)}${String.fromCharCode(i)}${'0'.repeat(12)}`, `byte ${i}`);
      // The same block again: now from the dynamic table (nghttp2 indexes them).
      const again = collect();
      c.request(post('/bytes'), Buffer.from('x'), again.handler);
      assert.deepEqual((await again.answer).headers[0], a.headers[0]);
    } finally {
      c.close();
    }
  });

  test('a 1 MB request and its 3 MB answer cross every flow-control window; trailers arrive', async () => {
    const c = new H2Connection(origin, undefined, () => undefined);
    try {
      const body = Buffer.alloc(1024 * 1024, 7);
      body.write('start');
      const runs = [0, 1, 2].map(() => {
        const { handler, answer } = collect();
        c.request(post('/echo'), body, handler);
        return answer;
      });
      for (const a of await Promise.all(runs)) {
        assert.equal(a.outcome, 'end');
        assert.equal(new Map(a.headers[0]).get('x-length'), String(body.length));
        assert.equal(new Map(a.headers[1]).get('x-done'), 'yes');
        assert.equal(a.body.length, 3 * body.length);
        assert.ok(a.body.subarray(2 * body.length).equals(body));
      }
    } finally {
      c.close();
    }
  });

  test("more requests than the peer's concurrent streams wait for a free one; all are answered", async () => {
    const c = new H2Connection(origin, undefined, () => undefined);
    try {
      const first = collect();
      c.request(post('/slow'), Buffer.from('x'), first.handler);
      await first.answer;
      const answers = Array.from({ length: 12 }, () => {
        const { handler, answer } = collect();
        c.request(post('/slow'), Buffer.from('x'), handler);
        return answer;
      });
      for (const a of await Promise.all(answers)) assert.equal(a.body.toString(), 'slow');
    } finally {
      c.close();
    }
  });

  test("the peer's PING is answered", async () => {
    const c = new H2Connection(origin, undefined, () => undefined);
    try {
      const { handler, answer } = collect();
      c.request(post('/echo'), Buffer.from('x'), handler);
      await answer;
      const session = [...sessions].at(-1)!;
      const acked = await new Promise<boolean>((resolve) => session.ping(Buffer.from('12345678'), (err) => resolve(!err)));
      assert.equal(acked, true);
    } finally {
      c.close();
    }
  });

  test("the peer's PING is answered while requests keep going (the answer goes out with a request's bytes)", async () => {
    const c = new H2Connection(origin, undefined, () => undefined);
    try {
      const first = collect();
      c.request(post('/echo'), Buffer.from('x'), first.handler);
      await first.answer;
      const session = [...sessions].at(-1)!;
      const acked = new Promise<boolean>((resolve) => session.ping(Buffer.from('abcdefgh'), (err) => resolve(!err)));
      for (let i = 0; i < 20; i++) {
        const next = collect();
        c.request(post('/echo'), Buffer.from(`${i}`), next.handler);
        assert.equal((await next.answer).body.toString(), `${i}`.repeat(3));
      }
      assert.equal(await acked, true);
    } finally {
      c.close();
    }
  });

  test('a stream the peer resets ends with its code; the connection goes on', async () => {
    const c = new H2Connection(origin, undefined, () => undefined);
    try {
      const reset = collect();
      c.request(post('/reset'), Buffer.from('x'), reset.handler);
      assert.equal((await reset.answer).outcome, `reset ${http2.constants.NGHTTP2_ENHANCE_YOUR_CALM}`);
      const next = collect();
      c.request(post('/echo'), Buffer.from('ok'), next.handler);
      assert.equal((await next.answer).body.toString(), 'okokok');
    } finally {
      c.close();
    }
  });

  test('GOAWAY: the streams the peer did not take are refused, the connection takes no more', async () => {
    let unusable = 0;
    const c = new H2Connection(origin, undefined, () => unusable++);
    try {
      const slow = collect();
      c.request(post('/slow'), Buffer.from('x'), slow.handler);
      const goaway = collect();
      c.request(post('/goaway'), Buffer.from('x'), goaway.handler);
      // The /goaway stream (id 3) is above the last stream the peer says it processed (1).
      assert.equal((await goaway.answer).outcome, 'reset 7');
      assert.equal((await slow.answer).body.toString(), 'slow');
      assert.equal(c.usable, false);
      assert.ok(unusable >= 1);
      const late = collect();
      c.request(post('/echo'), Buffer.from('x'), late.handler);
      assert.match((await late.answer).outcome, /^failed connected/);
    } finally {
      c.close();
    }
  });

  test('the connection lost: the streams on it fail as connected; a port nobody listens on: never connected', async () => {
    const c = new H2Connection(origin, undefined, () => undefined);
    const slow = collect();
    // The server must have taken the stream: one it never saw is refused by the GOAWAY, not lost.
    const taken = new Promise<void>((resolve) => (slowTaken = resolve));
    c.request(post('/slow'), Buffer.from('x'), slow.handler);
    await taken;
    slowTaken = undefined;
    for (const s of sessions) s.destroy();
    assert.match((await slow.answer).outcome, /^failed connected/);

    const nobody = http2.createServer();
    await new Promise<void>((resolve) => nobody.listen(0, '127.0.0.1', resolve));
    const port = (nobody.address() as AddressInfo).port;
    await new Promise((resolve) => nobody.close(resolve));
    const d = new H2Connection(`http://127.0.0.1:${port}`, undefined, () => undefined);
    const refused = collect();
    d.request(post('/echo'), Buffer.from('x'), refused.handler);
    assert.match((await refused.answer).outcome, /^failed never connected: .*ECONNREFUSED/);
  });
});

describe('H2Connection with a peer that breaks the protocol', () => {
  test('a header block past MAX_HEADER_BLOCK_BYTES (endless CONTINUATIONs) ends the connection; the stream fails', async () => {
    const sockets: Socket[] = [];
    let sent = 0;
    // A peer written by hand: SETTINGS, then a HEADERS frame for stream 1 that CONTINUATIONs never end.
    const peer = createTcpServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.write(settingsFrame([]));
      let answered = false;
      socket.on('data', () => {
        if (answered) return;
        answered = true;
        socket.write(frame(FrameType.headers, 0, 1, Buffer.alloc(16_384, 0x40)));
        const piece = frame(FrameType.continuation, 0, 1, Buffer.alloc(16_384, 0x40));
        const more = () => {
          while (!socket.destroyed && sent <= 2 * MAX_HEADER_BLOCK_BYTES) {
            sent += 16_384;
            if (!socket.write(piece)) return void socket.once('drain', more);
          }
        };
        more();
      });
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    try {
      const c = new H2Connection(`http://127.0.0.1:${(peer.address() as AddressInfo).port}`, undefined, () => undefined);
      const call = collect();
      c.request(post('/echo'), Buffer.from('x'), call.handler);
      assert.match((await call.answer).outcome, /^failed connected: etcd broke the HTTP\/2 protocol: a header block of over 1048576 bytes/);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => peer.close(resolve));
    }
  });
});
