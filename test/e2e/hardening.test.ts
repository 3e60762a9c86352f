/**
 * Hardening: body, header and URL size limits, JSON depth and label size, the per-user rate
 * limit (429 + Retry-After), TLS 1.2+ only, CONNECT refused with a Status.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { serverForSuite } from '../support/server.js';

const userToken = 'hardening-user-token-0123456789';
const tokenDir = mkdtempSync(join(tmpdir(), 'conductor-hardening-'));
writeFileSync(join(tokenDir, 'tokens.csv'), `${userToken},limited-user,u-1,"people"\n`);
const cms = '/api/v1/namespaces/default/configmaps';

/** Sends raw bytes over TLS and returns the status code and body of the answer. */
function rawTls(url: string, ca: string, bytes: string | Buffer): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = connect({ host: u.hostname, port: Number(u.port), ca, servername: 'localhost' }, () => sock.end(bytes));
    let text = '';
    sock.on('data', (d: Buffer) => (text += d.toString('latin1')));
    sock.on('error', reject);
    sock.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe('hardening', () => {
  const t = serverForSuite({ args: ['--token-file', join(tokenDir, 'tokens.csv'), '--max-requests-per-second', '2', '--max-request-burst', '5'], env: { CONDUCTOR_CONTROLLERS: 'false' } });

  test('a body over the limit is a 413 Status naming the limit', async () => {
    const r = await t.api.request('POST', cms, JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(4 * 1024 * 1024) } }));
    assert.equal(r.status, 413);
    assert.match(r.json().message, /limit is 3145728 bytes/);
  });

  test('headers over the limit are a 431 Status', async () => {
    const r = await t.api.request('GET', cms, undefined, { 'X-Padding': 'p'.repeat(40 * 1024) });
    assert.equal(r.status, 431);
    assert.match(r.json().message, /too large: the limit is 32768 bytes/);
  });

  test('a URL over the limit is a 414 Status naming the limit', async () => {
    const r = await t.api.request('GET', `${cms}?labelSelector=${'a'.repeat(20 * 1024)}`);
    assert.equal(r.status, 414);
    assert.match(r.json().message, /limit is 16384/);
  });

  test('JSON nested too deep is a 400 naming the limit; a label value too long is a 422 naming the field', async () => {
    const deep = await t.api.request('POST', cms, `{"metadata":{"name":"deep"},"data":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    assert.equal(deep.status, 400);
    assert.match(deep.json().message, /nests deeper than 100 levels/);
    const label = await t.api.request('POST', cms, { metadata: { name: 'lbl', labels: { k: 'v'.repeat(64) } } });
    assert.equal(label.status, 422);
    assert.match(label.json().message, /metadata\.labels/);
    const key = await t.api.request('POST', cms, { metadata: { name: 'lbl', labels: { ['k'.repeat(64)]: 'v' } } });
    assert.equal(key.status, 422);
    assert.match(key.json().message, /metadata\.labels/);
  });

  test('a user over the rate limit gets 429 with Retry-After and a Status; the admin (system:masters) never does', async () => {
    const asUser = () =>
      new Promise<{ status: number; retryAfter?: string; body: string }>((resolve, reject) => {
        const req = request(`${t.api.url}/version`, { ca: t.api.ca, headers: { Authorization: `Bearer ${userToken}` } }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
        });
        req.on('error', reject);
        req.end();
      });
    const answers = await Promise.all(Array.from({ length: 20 }, asUser));
    const limited = answers.filter((a) => a.status === 429);
    assert.ok(limited.length >= 10, `want most of 20 requests refused, got codes ${answers.map((a) => a.status).join(',')}`);
    assert.ok(Number(limited[0]!.retryAfter) >= 1);
    const status = JSON.parse(limited[0]!.body);
    assert.equal(status.reason, 'TooManyRequests');
    assert.match(status.message, /limited-user/);
    const admin = await Promise.all(Array.from({ length: 50 }, () => t.api.request('GET', '/version')));
    assert.deepEqual([...new Set(admin.map((r) => r.status))], [200]);
  });

  test('TLS below 1.2 is refused; TLS 1.2 and 1.3 are accepted', async () => {
    const u = new URL(t.api.url);
    const handshake = (min: 'TLSv1' | 'TLSv1.2' | 'TLSv1.3', max: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3') =>
      new Promise<string>((resolve) => {
        // SECLEVEL=0 lets this client offer TLS 1.1 at all, so the refusal is the server's.
        const s = connect({ host: u.hostname, port: Number(u.port), ca: t.api.ca, servername: 'localhost', minVersion: min, maxVersion: max, ciphers: 'DEFAULT:@SECLEVEL=0' }, () => {
          resolve(s.getProtocol() ?? '');
          s.end();
        });
        s.on('error', (err: NodeJS.ErrnoException) => resolve(`error: ${err.code ?? err.message}`));
      });
    assert.match(await handshake('TLSv1', 'TLSv1.1'), /^error: .*(VERSION|PROTOCOL|ALERT)/i);
    assert.equal(await handshake('TLSv1.2', 'TLSv1.2'), 'TLSv1.2');
    assert.equal(await handshake('TLSv1.3', 'TLSv1.3'), 'TLSv1.3');
  });

  test('CONNECT and an unknown method get a 405 Status instead of a dropped connection', async () => {
    const connectAnswer = await rawTls(t.api.url, t.api.ca, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.equal(connectAnswer.status, 405);
    assert.equal(JSON.parse(connectAnswer.body).kind, 'Status');
    const bogus = await rawTls(t.api.url, t.api.ca, 'FROB / HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.ok(bogus.status >= 400 && bogus.status < 500, `got ${bogus.status}`);
    const garbage = await rawTls(t.api.url, t.api.ca, '\x00\x01\x02 not http at all\r\n\r\n');
    assert.ok(garbage.status >= 400 && garbage.status < 500, `got ${garbage.status}`);
  });

  test('after all of this the server still answers normally', async () => {
    const r = await t.api.request('GET', '/api/v1/namespaces/default');
    assert.equal(r.status, 200);
  });
});
