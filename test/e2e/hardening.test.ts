/**
 * Hardening: body, header and URL size limits, JSON depth and label size, the per-user rate
 * limit (429 + Retry-After), TLS 1.2+ only, CONNECT refused with a Status.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { cliPath, removeDir, serverForSuite, startServer, tempDir } from '../support/server.js';
import { apiFromKubeconfig } from '../support/api.js';
import { eventually } from '../support/eventually.js';

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
  const t = serverForSuite({
    args: ['--token-file', join(tokenDir, 'tokens.csv'), '--max-requests-per-second', '2', '--max-request-burst', '5'],
    env: { CONDUCTOR_CONTROLLERS: 'false' },
  });

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
    assert.ok(Number(limited[0].retryAfter) >= 1);
    const status = JSON.parse(limited[0].body);
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
        const s = connect(
          { host: u.hostname, port: Number(u.port), ca: t.api.ca, servername: 'localhost', minVersion: min, maxVersion: max, ciphers: 'DEFAULT:@SECLEVEL=0' },
          () => {
            resolve(s.getProtocol() ?? '');
            s.end();
          },
        );
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

/** Every file and directory under `dir` (dir included) with its permission bits. */
function modes(dir: string): { path: string; mode: number; dir: boolean }[] {
  const out: { path: string; mode: number; dir: boolean }[] = [];
  const walk = (p: string) => {
    const st = statSync(p);
    out.push({ path: p, mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
  };
  walk(dir);
  return out;
}

/** Runs `conductor server` expecting it to refuse to start; returns its exit code and stderr. */
function refusedStart(dataDir: string, args: string[] = []): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'server', '--data-dir', dataDir, '--port', '0', '--log-level', 'warn', ...args], {
      env: { ...process.env, CONDUCTOR_CONTROLLERS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('conductor ready')) {
        child.kill('SIGKILL');
        reject(new Error(`the server started on ${dataDir}; stderr: ${stderr}`));
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('data directory', () => {
  test('in a data directory that existed before, every file Conductor creates is 0600 and every directory 0700', async () => {
    const dataDir = tempDir();
    chmodSync(dataDir, 0o755);
    const audit = join(dataDir, 'logs', 'audit.log');
    const server = await startServer({ dataDir, args: ['--audit-log', audit], env: { CONDUCTOR_CONTROLLERS: 'false' } });
    try {
      const r = await server.stop();
      assert.equal(r, 0);
      const all = modes(dataDir).filter((m) => m.path !== dataDir);
      assert.ok(
        all.some((m) => m.path.endsWith('state.db')) &&
          all.some((m) => m.path.endsWith('kubeconfig')) &&
          all.some((m) => m.path.endsWith('ca.crt')) &&
          all.some((m) => m.path.endsWith('audit.log')),
      );
      const loose = all.filter((m) => m.mode !== (m.dir ? 0o700 : 0o600)).map((m) => `${m.path} ${m.mode.toString(8)}`);
      assert.deepEqual(loose, []);
    } finally {
      await server.kill();
      removeDir(dataDir);
    }
  });

  test('files an older version left readable by others (state.db, its WAL, certificates, audit log) are made 0600 at start', async () => {
    const dataDir = tempDir();
    const audit = join(dataDir, 'audit.log');
    const first = await startServer({ dataDir, args: ['--audit-log', audit], env: { CONDUCTOR_CONTROLLERS: 'false' } });
    assert.equal(await first.stop(), 0);
    for (const m of modes(dataDir)) if (m.path !== dataDir) chmodSync(m.path, m.dir ? 0o755 : 0o644);
    writeFileSync(join(dataDir, 'state.db-wal'), '', { flag: 'a', mode: 0o644 });
    chmodSync(join(dataDir, 'state.db-wal'), 0o644);
    const second = await startServer({ dataDir, args: ['--audit-log', audit], env: { CONDUCTOR_CONTROLLERS: 'false' } });
    try {
      const loose = modes(dataDir)
        .filter((m) => m.path !== dataDir && m.mode !== (m.dir ? 0o700 : 0o600))
        .map((m) => `${m.path} ${m.mode.toString(8)}`);
      assert.deepEqual(loose, []);
    } finally {
      await second.kill();
      removeDir(dataDir);
    }
  });

  for (const [mode, who] of [
    [0o775, 'its group'],
    [0o757, 'all users'],
    [0o777, 'its group and all users'],
  ] as const) {
    test(`a data directory writable by ${who} (${mode.toString(8)}) is refused with a clear error`, async () => {
      const dataDir = tempDir();
      chmodSync(dataDir, mode);
      try {
        const r = await refusedStart(dataDir);
        assert.equal(r.code, 1);
        assert.match(r.stderr, new RegExp(`the data directory ${dataDir} is writable by ${who} \\(mode 0${mode.toString(8)}\\).*chmod 700`));
        assert.deepEqual(readdirSync(dataDir), [], 'nothing was written there');
      } finally {
        removeDir(dataDir);
      }
    });
  }

  test('a read-only data directory is refused at start with an error naming it (not "disk I/O error")', async (t) => {
    const mnt = tempDir('conductor-ro-');
    // A real read-only file system: a small tmpfs, remounted read-only (needs root).
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', mnt]);
    if (mounted.status !== 0) {
      removeDir(mnt);
      t.skip(`cannot mount a tmpfs here (${mounted.stderr.toString().trim()}): needs root`);
      return;
    }
    try {
      const dataDir = join(mnt, 'data');
      mkdirSync(dataDir, { mode: 0o700 });
      const first = await startServer({ dataDir, env: { CONDUCTOR_CONTROLLERS: 'false' } });
      assert.equal(await first.stop(), 0);
      assert.equal(spawnSync('mount', ['-o', 'remount,ro', mnt]).status, 0);
      const r = await refusedStart(dataDir);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`the data directory ${dataDir} is on a read-only file system`));
      assert.doesNotMatch(r.stderr, /disk I\/O error/);
    } finally {
      spawnSync('umount', [mnt]);
      removeDir(mnt);
    }
  });
});

describe('full disk', () => {
  test(
    'a write the full disk refuses is a 507 saying the data directory is full; reads go on; writes recover when space returns',
    { timeout: 180_000 },
    async (t) => {
      const mnt = tempDir('conductor-full-');
      // A real full disk: the data directory on a small tmpfs (needs root), filled with a file.
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0700', 'tmpfs', mnt]);
      if (mounted.status !== 0) {
        removeDir(mnt);
        t.skip(`cannot mount a tmpfs here (${mounted.stderr.toString().trim()}): needs root`);
        return;
      }
      const dataDir = join(mnt, 'data');
      mkdirSync(dataDir, { mode: 0o700 });
      const server = await startServer({ dataDir, env: { CONDUCTOR_CONTROLLERS: 'false' } });
      const api = apiFromKubeconfig(server.kubeconfig);
      const filler = join(mnt, 'filler');
      try {
        const cm = (name: string) => ({ metadata: { name }, data: { blob: 'x'.repeat(200 * 1024) } });
        assert.equal((await api.request('POST', cms, cm('before'))).status, 201);
        // Fill the file system to the last byte.
        const fd = openSync(filler, 'w');
        const block = Buffer.alloc(1024 * 1024, 1);
        try {
          for (let size = block.length; size >= 1;) {
            try {
              writeSync(fd, block, 0, size);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
              size = Math.floor(size / 2);
            }
          }
        } finally {
          closeSync(fd);
        }
        // The WAL may still have room for a write or two; then the disk refuses.
        let refused: { status: number; text: string } | undefined;
        const codes: number[] = [];
        for (let i = 0; i < 200 && !refused; i++) {
          const r = await api.request('POST', cms, cm(`full-${i}`));
          codes.push(r.status);
          if (r.status !== 201) refused = r;
        }
        assert.ok(refused, `no write was refused: ${codes.join(',')}`);
        assert.equal(refused.status, 507, refused.text);
        const st = JSON.parse(refused.text);
        assert.equal(st.kind, 'Status');
        assert.equal(st.reason, 'InsufficientStorage');
        assert.match(st.message, /data directory is full/);
        // An update and a delete are refused the same way, never with a 500.
        const upd = await api.request('PATCH', `${cms}/before`, { data: { more: 'y'.repeat(200 * 1024) } }, { 'Content-Type': 'application/merge-patch+json' });
        assert.ok(upd.status === 507 || upd.status === 200, upd.text);
        // Reads go on.
        assert.equal((await api.request('GET', `${cms}/before`)).status, 200);
        assert.equal((await api.request('GET', cms)).status, 200);
        // Space returns: writes succeed again, without a restart.
        rmSync(filler);
        await eventually(async () => (await api.request('POST', cms, cm('after'))).status === 201, 'a write succeeds once space is freed', 60_000);
        assert.equal((await api.request('GET', `${cms}/after`)).status, 200);
        assert.equal(server.child.exitCode, null);
        assert.doesNotMatch(server.stderr(), /unexpected error while serving a request/);
      } finally {
        api.close();
        await server.kill();
        spawnSync('umount', [mnt]);
        removeDir(mnt);
      }
    },
  );
});
