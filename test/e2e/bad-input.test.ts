/**
 * Bad input gets a 4xx Status that says what is wrong — never a 500, never a crash.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import type { ApiHandle } from '../support/api.js';
import { kubectl, serverForSuite } from '../support/server.js';

const cms = '/api/v1/namespaces/default/configmaps';

interface Case {
  reason: string;
  method: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  status: number;
  message?: RegExp;
}

describe('bad input', () => {
  const t = serverForSuite({});

  const cases: Case[] = [
    { reason: 'malformed JSON', method: 'POST', path: cms, body: '{"metadata": {"name": "x"', status: 400, message: /not valid JSON/ },
    {
      reason: 'malformed YAML',
      method: 'POST',
      path: cms,
      body: 'metadata:\n  name: [unclosed',
      headers: { 'Content-Type': 'application/yaml' },
      status: 400,
      message: /not valid YAML/,
    },
    { reason: 'a JSON array instead of an object', method: 'POST', path: cms, body: '[1,2,3]', status: 400 },
    { reason: 'an empty body', method: 'POST', path: cms, body: '', status: 400, message: /empty/ },
    { reason: 'invalid UTF-8', method: 'POST', path: cms, body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), status: 400, message: /UTF-8/ },
    {
      reason: 'wrong type for data',
      method: 'POST',
      path: cms,
      body: JSON.stringify({ metadata: { name: 'typed' }, data: 'not-a-map' }),
      status: 422,
      message: /data/,
    },
    {
      reason: 'wrong type for a data value',
      method: 'POST',
      path: cms,
      body: JSON.stringify({ metadata: { name: 'typed2' }, data: { a: 5 } }),
      status: 422,
      message: /data\[a\]|data\.a/,
    },
    { reason: 'an invalid name', method: 'POST', path: cms, body: JSON.stringify({ metadata: { name: 'Not_Valid' } }), status: 422, message: /metadata\.name/ },
    {
      reason: 'an invalid label',
      method: 'POST',
      path: cms,
      body: JSON.stringify({ metadata: { name: 'lbl', labels: { 'bad key!': 'v' } } }),
      status: 422,
      message: /metadata\.labels/,
    },
    {
      reason: 'a kind that does not match the URL',
      method: 'POST',
      path: cms,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } }),
      status: 400,
    },
    { reason: 'an unknown resource', method: 'GET', path: '/api/v1/namespaces/default/gizmos', status: 404 },
    { reason: 'an unknown group', method: 'GET', path: '/apis/nope.example.com/v1/things', status: 404 },
    { reason: 'a bad label selector', method: 'GET', path: `${cms}?labelSelector=${encodeURIComponent('a in (b')}`, status: 400 },
    { reason: 'a bad field selector', method: 'GET', path: `${cms}?fieldSelector=${encodeURIComponent('metadata.name~x')}`, status: 400 },
    { reason: 'an unsupported field selector', method: 'GET', path: `${cms}?fieldSelector=spec.x%3D1`, status: 400, message: /field label not supported/ },
    { reason: 'a bad limit', method: 'GET', path: `${cms}?limit=-3`, status: 400, message: /limit/ },
    { reason: 'a bad continue token', method: 'GET', path: `${cms}?limit=1&continue=garbage`, status: 400, message: /continue/ },
    { reason: 'a bad resourceVersion', method: 'GET', path: `${cms}?resourceVersion=abc`, status: 400, message: /resourceVersion/ },
    { reason: 'an unsupported patch type', method: 'PATCH', path: `${cms}/x`, body: '{}', headers: { 'Content-Type': 'text/plain' }, status: 415 },
    {
      reason: 'a JSON patch that is not a list',
      method: 'PATCH',
      path: `${cms}/target`,
      body: '{"op":"add"}',
      headers: { 'Content-Type': 'application/json-patch+json' },
      status: 400,
    },
    { reason: 'a wrong method', method: 'POST', path: `${cms}/named`, body: '{}', status: 405 },
    { reason: 'a bad dryRun value', method: 'POST', path: `${cms}?dryRun=Some`, body: '{"metadata":{"name":"d"}}', status: 400 },
    { reason: 'a path traversal in the name', method: 'GET', path: `${cms}/..%2F..%2Fsecrets`, status: 404 },
    // Issue 10 item 3: nesting by indentation, which has no bracket to count.
    {
      reason: 'YAML sequences 100,000 deep (- - - x)',
      method: 'POST',
      path: cms,
      body: `${'- '.repeat(100_000)}x`,
      headers: { 'Content-Type': 'application/yaml' },
      status: 400,
      message: /nests deeper than 100 levels/,
    },
    {
      reason: 'an apply patch 100,000 deep (- - - x)',
      method: 'PATCH',
      path: `${cms}/deep-apply?fieldManager=fuzz`,
      body: `${'- '.repeat(100_000)}x`,
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      status: 400,
      message: /nests deeper than 100 levels/,
    },
    {
      reason: 'YAML mappings nested by indentation',
      method: 'POST',
      path: cms,
      body: Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n'),
      headers: { 'Content-Type': 'application/yaml' },
      status: 400,
      message: /nests deeper than 100 levels/,
    },
    // Issue 10 item 14: numbers a double cannot hold.
    {
      reason: 'a JSON number too large for a double',
      method: 'POST',
      path: cms,
      body: '{"metadata":{"name":"inf"},"data":{"a":"b"},"extra":{"size":1e400}}',
      status: 422,
      message: /extra\.size: Invalid value: Infinity/,
    },
    {
      reason: 'a negative one',
      method: 'POST',
      path: cms,
      body: '{"metadata":{"name":"inf","labels":{"a":"b"}},"extra":[-1e400]}',
      status: 422,
      message: /extra\[0\]: Invalid value: -Infinity/,
    },
    {
      reason: 'YAML .nan',
      method: 'POST',
      path: cms,
      body: 'metadata: {name: nan}\nextra: .nan\n',
      headers: { 'Content-Type': 'application/yaml' },
      status: 422,
      message: /extra: Invalid value: NaN/,
    },
    {
      reason: 'a merge patch with .inf',
      method: 'PATCH',
      path: `${cms}/target`,
      body: '{"metadata":{"annotations":null},"extra":1e999}',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      status: 422,
      message: /extra: Invalid value: Infinity/,
    },
  ];

  for (const c of cases) {
    test(`${c.reason} → ${c.status}`, async () => {
      if (c.path.endsWith('/target')) await t.api.request('POST', cms, { metadata: { name: 'target' } });
      const r = await t.api.request(c.method, c.path, c.body, c.headers);
      assert.equal(r.status, c.status, `${c.reason}: ${r.text}`);
      const st = r.json();
      assert.equal(st.kind, 'Status');
      assert.equal(st.code, c.status);
      if (c.message) assert.match(st.message, c.message);
    });
  }

  // The server refuses a body over its limit (3 MiB) with a 413 Status naming the limit: with a
  // Content-Length over the limit before reading any of it, with a chunked body as soon as it
  // has read past the limit. It reads and drops the rest of the body (up to 64 MiB) so the
  // client, still sending, can read the answer. These tests read the raw bytes the server sent
  // and pass only when they are a complete 413 answer: a reset with no answer (as the server
  // gave when it closed the connection at once: the kernel resets a connection closed with
  // unread bytes, and the client lost the 413), or any other answer, fails them.
  const LIMIT = 3 * 1024 * 1024;
  const big = Buffer.from(JSON.stringify({ metadata: { name: 'big' }, data: { blob: 'x'.repeat(4 * 1024 * 1024) } }));
  for (const framing of ['content-length', 'chunked'] as const) {
    test(`an oversized body (${framing}) is answered with a 413 naming the limit, and the server keeps serving`, async () => {
      const { answer, sendError } = await rawPost(t.api, cms, big, framing);
      const why = `the server's answer: ${JSON.stringify(answer.slice(0, 300))}; the client's error: ${sendError?.message ?? 'none'}`;
      const res = parseHttpResponse(answer);
      assert.ok(res, `no complete HTTP response came back (${why})`);
      assert.equal(res.status, 413, why);
      const st = JSON.parse(res.body);
      assert.equal(st.kind, 'Status');
      assert.equal(st.code, 413);
      assert.equal(st.reason, 'RequestEntityTooLarge');
      assert.equal(st.message, `the request body is too large: the limit is ${LIMIT} bytes`);
      assert.equal((await t.api.request('GET', '/version')).status, 200);
      assert.equal((await t.api.request('GET', `${cms}/big`)).status, 404, 'nothing was created');
    });
  }

  test('deeply nested JSON is a 400, not a crash', async () => {
    const deep = '{"metadata":{"name":"deep"},"data":' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) + '}';
    const r = await t.api.request('POST', cms, deep);
    assert.ok(r.status >= 400 && r.status < 500, r.text);
    assert.equal((await t.api.request('GET', '/version')).status, 200);
  });

  test('kubectl reports an invalid object with the field that is wrong', async () => {
    const r = await kubectl(t.server, ['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: UPPER}\n' });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /metadata\.name/);
  });

  test('no case above produced a 500 in the server log', () => {
    assert.doesNotMatch(t.server.stderr(), /unexpected error while serving a request/);
  });
});

/**
 * POSTs `body` over a TLS connection of its own and collects the bytes the server sends until
 * they make a complete response or the connection closes. A failed write (the server closed
 * while the body was still going out) is returned, not thrown: what the server answered before
 * that is the result.
 */
function rawPost(api: ApiHandle, path: string, body: Buffer, framing: 'content-length' | 'chunked'): Promise<{ answer: string; sendError?: Error }> {
  const u = new URL(api.url);
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let sendError: Error | undefined;
    const s = connect({ host: u.hostname, port: Number(u.port), ca: api.ca, servername: 'localhost' }, () => {
      const framingHeader = framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`;
      s.write(
        `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${api.token}\r\nContent-Type: application/json\r\nAccept: application/json\r\n${framingHeader}\r\n\r\n`,
      );
      const piece = 256 * 1024;
      for (let at = 0; at < body.length; at += piece) {
        const part = body.subarray(at, at + piece);
        s.write(framing === 'chunked' ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part);
      }
      if (framing === 'chunked') s.write('0\r\n\r\n');
    });
    const answer = (): string => Buffer.concat(received).toString('latin1');
    s.on('data', (d: Buffer) => {
      received.push(d);
      if (parseHttpResponse(answer())) {
        resolve({ answer: answer(), sendError });
        s.destroy();
      }
    });
    s.on('error', (err) => (sendError = err));
    s.on('close', () => resolve({ answer: answer(), sendError }));
  });
}

/** The first HTTP/1.1 response in `raw`, or undefined when it is not complete. */
function parseHttpResponse(raw: string): { status: number; headers: Record<string, string>; body: string } | undefined {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const [statusLine, ...headerLines] = raw.slice(0, headEnd).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3}) /.exec(statusLine ?? '');
  if (!m) return undefined;
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let rest = raw.slice(headEnd + 4);
  let body = '';
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (rest.length < n) return undefined;
    body = rest.slice(0, n);
  } else if (headers['transfer-encoding'] === 'chunked') {
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd === -1) return undefined;
      const size = parseInt(rest.slice(0, lineEnd), 16);
      if (Number.isNaN(size)) return undefined;
      if (size === 0) break;
      if (rest.length < lineEnd + 2 + size) return undefined;
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 2 + size + 2);
    }
  } else {
    body = rest;
  }
  return { status: Number(m[1]), headers, body: Buffer.from(body, 'latin1').toString('utf8') };
}
