/**
 * The last-resort handler: an exception thrown while a request is served — in the handler,
 * in a callback or timer it scheduled, in a promise nobody awaits, after the headers went
 * out, in a listener after the response finished — answers that request (500 Status, or the
 * response ended) and the server goes on serving. The throwing routes exist only in the test
 * entry point test/support/last-resort-server.ts.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:https';
import { join } from 'node:path';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { removeDir, repoRoot, tempDir } from '../support/server.js';
import { eventually } from '../support/eventually.js';

describe('last-resort handler', () => {
  const dataDir = tempDir();
  let child: ChildProcess;
  let api: ApiHandle;
  let stderr = '';

  before(async () => {
    child = spawn(process.execPath, [join(repoRoot, 'dist', 'test', 'support', 'last-resort-server.js'), dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    let out = '';
    const kubeconfig = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /conductor ready on \S+ \(kubeconfig: (.+)\)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${stderr}`)));
    });
    api = apiFromKubeconfig(kubeconfig);
  });

  after(async () => {
    api?.close();
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    removeDir(dataDir);
  });

  /** The server process is alive and serves a read and a write. */
  async function stillServing(after: string): Promise<void> {
    assert.equal(child.exitCode, null, `the server exited after ${after}: ${stderr.slice(-2000)}`);
    assert.equal((await api.request('GET', '/version')).status, 200, `after ${after}`);
    const name = `after-${after.replace(/[^a-z]+/g, '-')}`.slice(0, 60).replace(/-+$/, '');
    const created = await api.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name }, data: { k: 'v' } });
    assert.equal(created.status, 201, created.text);
  }

  for (const [path, where] of [
    ['/test-only/throw', 'in the handler'],
    ['/test-only/throw-in-callback', 'in a callback'],
    ['/test-only/reject-unawaited', 'in an unawaited promise'],
  ] as const) {
    test(`an exception ${where} is a 500 Status for that request; the server goes on`, async () => {
      const r = await api.request('GET', path);
      assert.equal(r.status, 500, r.text);
      const st = r.json();
      assert.equal(st.kind, 'Status');
      assert.equal(st.reason, 'InternalError');
      assert.match(st.message, new RegExp(`deliberate test failure: ${where}`));
      await stillServing(where);
    });
  }

  test('an exception after the headers went out ends that response; the server goes on', async () => {
    const got = await new Promise<{ status: number; body: string; complete: boolean }>((resolve, reject) => {
      const req = request(`${api.url}/test-only/throw-after-headers`, { ca: api.ca, headers: { Authorization: `Bearer ${api.token}` } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, complete: res.complete }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, body, complete: false }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(got.status, 200);
    assert.equal(got.body, 'partial ');
    await stillServing('an exception after the headers');
  });

  test('an exception in a listener after the response finished is logged; the server goes on', async () => {
    const r = await api.request('GET', '/test-only/throw-after-finish');
    assert.equal(r.status, 200);
    assert.equal(r.text, 'done');
    await eventually(() => stderr.includes('deliberate test failure: in a finish listener'), 'the exception is logged', 15_000);
    await stillServing('an exception in a finish listener');
  });

  test('every exception was logged with its request', () => {
    for (const where of ['in a callback', 'in an unawaited promise', 'after the headers']) {
      assert.match(stderr, new RegExp(`deliberate test failure: ${where}`));
    }
    assert.match(stderr, /the request is answered 500 and the server goes on/);
  });
});
