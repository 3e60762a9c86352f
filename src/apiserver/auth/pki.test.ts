import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAdminCredentials, ensureAdminToken } from './admin-credentials.js';
import { ensurePki, loadCaKey, pkiPaths, servingNames, tlsServerOptions, type Pki } from './pki.js';

const DAY = 24 * 60 * 60 * 1000;

describe('ensurePki and ensureAdminCredentials', () => {
  let root: string;
  let first: string; // a data dir after one start on 127.0.0.1
  let pki: Pki;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'conductor-pki-'));
    first = join(root, 'first');
    pki = await ensurePki(first, '127.0.0.1');
    await ensureAdminCredentials(first, pki);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function copyOfFirst(name: string): Promise<string> {
    const dir = join(root, name);
    await cp(first, dir, { recursive: true });
    return dir;
  }

  test('first start creates every file, keys and tokens readable only by the owner', async () => {
    const p = pkiPaths(first);
    const want: Array<[string, number]> = [
      [p.caCert, 0o600],
      [p.caKey, 0o600],
      [p.serverCert, 0o600],
      [p.serverKey, 0o600],
      [p.adminCert, 0o600],
      [p.adminKey, 0o600],
      [p.adminToken, 0o600],
    ];
    for (const [path, mode] of want) {
      const s = await stat(path);
      assert.equal(s.mode & 0o777, mode, `mode of ${path}`);
    }
    assert.equal((await stat(p.dir)).mode & 0o777, 0o700, 'the pki directory is private');
    assert.equal(await readFile(p.caCert, 'utf8'), pki.caCertPem);
    assert.equal(await readFile(p.serverKey, 'utf8'), pki.serverKeyPem);
  });

  test('the CA is a CA and the serving certificate verifies against it for the loopback names', () => {
    const ca = new X509Certificate(pki.caCertPem);
    const cert = new X509Certificate(pki.serverCertPem);
    assert.equal(ca.ca, true);
    assert.equal(cert.ca, false);
    assert.equal(cert.verify(ca.publicKey), true);
    assert.equal(cert.checkIssued(ca), true);
    assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(cert.checkIP('::1'), '::1');
    assert.equal(cert.checkHost('localhost'), 'localhost');
    assert.equal(cert.checkHost('example.com'), undefined);
    assert.equal(cert.checkIP('10.0.0.1'), undefined);
    assert.match(cert.keyUsage?.join(',') ?? '', /1\.3\.6\.1\.5\.5\.7\.3\.1/, 'extended key usage serverAuth');
    assert.ok(Date.parse(cert.validTo) - Date.now() > 300 * DAY, 'valid for about a year');
    assert.ok(Date.parse(ca.validTo) - Date.now() > 9 * 365 * DAY, 'the CA is valid for about ten years');
    assert.match(cert.serialNumber, /^[4-7]/, 'the serial is positive and minimally encoded');
  });

  test('a second start loads the same CA, serving certificate, token and admin certificate', async () => {
    const dir = await copyOfFirst('second');
    const p = pkiPaths(dir);
    const before = await Promise.all([p.caCert, p.serverCert, p.adminCert, p.adminToken].map((f) => stat(f)));
    const pki2 = await ensurePki(dir, '127.0.0.1');
    const admin = await ensureAdminCredentials(dir, pki2);
    assert.deepEqual(pki2, pki);
    assert.equal(admin.token, (await readFile(pkiPaths(first).adminToken, 'utf8')).trim());
    assert.equal(admin.certPem, await readFile(pkiPaths(first).adminCert, 'utf8'));
    const afterStats = await Promise.all([p.caCert, p.serverCert, p.adminCert, p.adminToken].map((f) => stat(f)));
    assert.deepEqual(
      afterStats.map((s) => [s.ino, s.mtimeMs]),
      before.map((s) => [s.ino, s.mtimeMs]),
      'no file was rewritten',
    );
  });

  test('a new host re-issues only the serving certificate', async () => {
    const dir = await copyOfFirst('new-host');
    const pki2 = await ensurePki(dir, 'conductor.example.com');
    const admin = await ensureAdminCredentials(dir, pki2);
    assert.equal(pki2.caCertPem, pki.caCertPem);
    assert.notEqual(pki2.serverCertPem, pki.serverCertPem);
    assert.notEqual(pki2.serverKeyPem, pki.serverKeyPem);
    const cert = new X509Certificate(pki2.serverCertPem);
    assert.equal(cert.checkHost('conductor.example.com'), 'conductor.example.com');
    assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1', 'the loopback names stay');
    assert.equal(cert.verify(new X509Certificate(pki.caCertPem).publicKey), true);
    assert.equal(admin.certPem, await readFile(pkiPaths(first).adminCert, 'utf8'), 'the admin certificate stays');
    // Back on a host the new certificate covers: nothing changes.
    assert.deepEqual(await ensurePki(dir, 'localhost'), pki2);
  });

  test('certificates that expire within 30 days are re-issued on start', async () => {
    const dir = join(root, 'expiring');
    const longAgo = new Date(Date.now() - 340 * DAY);
    const old = await ensurePki(dir, '127.0.0.1', { now: longAgo });
    const oldAdmin = await ensureAdminCredentials(dir, old, { now: longAgo });
    const fresh = await ensurePki(dir, '127.0.0.1');
    const freshAdmin = await ensureAdminCredentials(dir, fresh);
    assert.equal(fresh.caCertPem, old.caCertPem);
    assert.notEqual(fresh.serverCertPem, old.serverCertPem);
    assert.notEqual(freshAdmin.certPem, oldAdmin.certPem);
    assert.equal(freshAdmin.token, oldAdmin.token, 'the token is kept');
    assert.ok(Date.parse(new X509Certificate(fresh.serverCertPem).validTo) - Date.now() > 300 * DAY);
  });

  test('a damaged serving certificate or admin certificate is replaced', async () => {
    const dir = await copyOfFirst('damaged');
    const p = pkiPaths(dir);
    await writeFile(p.serverCert, 'not a certificate');
    await writeFile(p.adminCert, pki.serverCertPem); // signed by the CA, but the wrong subject and key
    const pki2 = await ensurePki(dir, '127.0.0.1');
    const admin = await ensureAdminCredentials(dir, pki2);
    assert.notEqual(pki2.serverCertPem, 'not a certificate');
    assert.equal(new X509Certificate(pki2.serverCertPem).verify(new X509Certificate(pki.caCertPem).publicKey), true);
    assert.match(new X509Certificate(admin.certPem).subject, /CN=conductor-admin/);
  });

  test('a CA with one of its two files missing is an error, not a new CA', async () => {
    const dir = await copyOfFirst('half-ca');
    await unlink(pkiPaths(dir).caKey);
    await assert.rejects(ensurePki(dir, '127.0.0.1'), /cannot load the CA: found .*ca\.crt but not .*ca\.key/);
    await assert.rejects(loadCaKey(dir), /ca\.key does not exist/);
  });

  test('a CA key that does not belong to the CA certificate is an error', async () => {
    const dir = await copyOfFirst('wrong-ca-key');
    await writeFile(pkiPaths(dir).caKey, pki.serverKeyPem);
    await assert.rejects(ensurePki(dir, '127.0.0.1'), /ca\.key is not the key of .*ca\.crt/);
  });

  test('an empty host is refused', async () => {
    await assert.rejects(ensurePki(join(root, 'empty-host'), ' '), /the host is empty/);
  });

  test('the admin token is 32 random bytes in base64url, and an empty token file gets a new one', async () => {
    const dir = await copyOfFirst('token');
    const token = (await readFile(pkiPaths(dir).adminToken, 'utf8')).trim();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
    await writeFile(pkiPaths(dir).adminToken, '');
    const admin = await ensureAdminCredentials(dir, pki);
    assert.match(admin.token, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(admin.token, token);
    await writeFile(pkiPaths(dir).adminToken, 'two words\n');
    await assert.rejects(ensureAdminCredentials(dir, pki), /characters not allowed in a bearer token/);
  });

  test('the admin token comes before any key (the server authenticates while its keys are made), and the credentials made later carry it', async () => {
    const dir = join(root, 'token-first');
    const token = await ensureAdminToken(dir);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    await assert.rejects(stat(pkiPaths(dir).caKey), { code: 'ENOENT' });
    assert.equal(await ensureAdminToken(dir), token, 'a second call reads the same token');
    const admin = await ensureAdminCredentials(dir, await ensurePki(dir, '127.0.0.1'));
    assert.equal(admin.token, token);
    await writeFile(pkiPaths(dir).adminToken, 'two words\n');
    await assert.rejects(ensureAdminToken(dir), /characters not allowed in a bearer token/);
  });

  test('tlsServerOptions requests client certificates and leaves the verdict to the authenticator', () => {
    assert.deepEqual(tlsServerOptions(pki), {
      key: pki.serverKeyPem,
      cert: pki.serverCertPem,
      ca: pki.caCertPem,
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    });
  });
});

describe('servingNames', () => {
  const cases: Array<{ reason: string; host: string; extra?: string[]; want: string[] }> = [
    { reason: 'an IPv4 host comes first', host: '10.1.2.3', want: ['10.1.2.3', 'localhost', '127.0.0.1', '::1'] },
    { reason: 'a DNS host is lower-cased', host: 'API.Example.COM', want: ['api.example.com', 'localhost', '127.0.0.1', '::1'] },
    { reason: 'a loopback host is not repeated', host: 'localhost', want: ['localhost', '127.0.0.1', '::1'] },
    { reason: 'IPv6 brackets are removed', host: '[fd00::1]', want: ['fd00::1', 'localhost', '127.0.0.1', '::1'] },
    {
      reason: 'a wildcard address adds the machine name',
      host: '0.0.0.0',
      want: ['0.0.0.0', 'localhost', '127.0.0.1', '::1', hostname().toLowerCase()],
    },
    {
      reason: 'extra names are appended',
      host: '127.0.0.1',
      extra: ['conductor.local', '192.168.1.5'],
      want: ['127.0.0.1', 'localhost', '::1', 'conductor.local', '192.168.1.5'],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      assert.deepEqual(servingNames(c.host, c.extra), [...new Set(c.want)]);
    });
  }
});
