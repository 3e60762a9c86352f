import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AuditLog, type AuditEntry } from './audit-log.js';
import { RequestAuditor } from './request-auditor.js';

function entry(n: number): AuditEntry {
  return {
    time: new Date(0).toISOString(),
    requestId: `r${n}`,
    user: 'u',
    groups: [],
    verb: 'get',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'secrets',
    subresource: '',
    namespace: 'ns',
    name: `s${n}`,
    path: '/api/v1/namespaces/ns/secrets',
    method: 'GET',
    code: 200,
    latencyMs: 1,
    sourceIP: '127.0.0.1',
    userAgent: 'test',
  };
}

describe('AuditLog', () => {
  test('entries become JSON lines in order in a 0600 file, and close flushes them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-audit-'));
    try {
      const path = join(dir, 'sub', 'audit.log');
      const log = await AuditLog.toFile(path);
      for (let i = 0; i < 100; i++) log.record(entry(i));
      await log.close();
      const lines = readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as AuditEntry);
      assert.deepEqual(
        lines.map((l) => l.requestId),
        Array.from({ length: 100 }, (_, i) => `r${i}`),
      );
      assert.equal(statSync(path).mode & 0o777, 0o600);
      log.record(entry(100)); // after close: ignored, not thrown
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a stuck sink never blocks recording: entries beyond the buffer are dropped and counted', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const written: string[] = [];
    const warnings: unknown[] = [];
    const logger = { warn: (o: unknown) => warnings.push(o), error: () => undefined } as unknown as import('pino').Logger;
    const lineBytes = JSON.stringify(entry(0)).length + 1;
    const log = new AuditLog(
      async (text) => {
        await gate;
        written.push(text);
      },
      { maxBufferedBytes: lineBytes * 10, logger },
    );
    // record() is synchronous and returns while the sink is still stuck: it never waits for the disk.
    for (let i = 0; i < 1000; i++) assert.equal(log.record(entry(i)), undefined);
    assert.deepEqual(written, [], 'the sink has written nothing yet');
    await new Promise((r) => setImmediate(r));
    assert.ok(log.dropped >= 980, `dropped ${log.dropped}`);
    release();
    await log.close();
    const lines = written.join('').trim().split('\n');
    assert.equal(lines.length + log.dropped, 1000);
    assert.ok(warnings.length > 0, 'the drop count is logged');
  });

  test('a failing sink counts its entries as dropped and keeps going', async () => {
    let fail = true;
    const written: string[] = [];
    const log = new AuditLog(async (text) => {
      if (fail) throw new Error('disk full');
      written.push(text);
    });
    log.record(entry(1));
    await new Promise((r) => setTimeout(r, 10));
    fail = false;
    log.record(entry(2));
    await log.close();
    assert.equal(log.dropped, 1);
    assert.match(written.join(''), /"requestId":"r2"/);
  });
});

describe('RequestAuditor', () => {
  function fakeExchange(url: string) {
    const req = Object.assign(new EventEmitter(), {
      url,
      method: 'GET',
      headers: { 'user-agent': 'kubectl/v1.32' },
      socket: { remoteAddress: '10.0.0.7' },
    }) as unknown as IncomingMessage;
    const headers: Record<string, string> = {};
    const res = Object.assign(new EventEmitter(), {
      statusCode: 200,
      headersSent: false,
      setHeader: (k: string, v: string) => (headers[k] = v),
    }) as unknown as ServerResponse;
    return { req, res, headers };
  }
  async function entries(run: (a: RequestAuditor) => void): Promise<AuditEntry[]> {
    const out: string[] = [];
    const log = new AuditLog(async (t) => void out.push(t));
    run(new RequestAuditor(log));
    await log.close();
    return out
      .join('')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditEntry);
  }

  test('one entry per request with who, what, the code, the id it sent back and no query string', async () => {
    let sentId = '';
    const got = await entries((a) => {
      const { req, res, headers } = fakeExchange('/api/v1/namespaces/ns/secrets/s?fieldManager=x');
      a.begin(req, res);
      a.identify(req, { name: 'alice', groups: ['dev'] });
      a.describe(req, { verb: 'get', group: '', version: 'v1', resource: 'secrets', subresource: '', namespace: 'ns', name: 's' });
      res.statusCode = 404;
      res.emit('finish');
      res.emit('close');
      sentId = headers['Audit-Id']!;
    });
    assert.equal(got.length, 1);
    const e = got[0];
    assert.deepEqual(
      {
        user: e.user,
        groups: e.groups,
        verb: e.verb,
        resource: e.resource,
        namespace: e.namespace,
        name: e.name,
        code: e.code,
        path: e.path,
        sourceIP: e.sourceIP,
        userAgent: e.userAgent,
        requestId: e.requestId,
      },
      {
        user: 'alice',
        groups: ['dev'],
        verb: 'get',
        resource: 'secrets',
        namespace: 'ns',
        name: 's',
        code: 404,
        path: '/api/v1/namespaces/ns/secrets/s',
        sourceIP: '10.0.0.7',
        userAgent: 'kubectl/v1.32',
        requestId: sentId,
      },
    );
  });

  test('a watch is recorded when it starts, not again when it ends; a request the client abandons has code 0', async () => {
    const got = await entries((a) => {
      const w = fakeExchange('/api/v1/secrets?watch=true');
      a.begin(w.req, w.res);
      a.describe(w.req, { verb: 'watch', group: '', version: 'v1', resource: 'secrets', subresource: '', namespace: '', name: '' });
      a.started(w.req, w.res);
      w.res.emit('finish');
      const gone = fakeExchange('/api/v1/secrets');
      a.begin(gone.req, gone.res);
      gone.res.emit('close');
    });
    assert.deepEqual(
      got.map((e) => [e.verb, e.code]),
      [
        ['watch', 200],
        ['', 0],
      ],
    );
  });
});
