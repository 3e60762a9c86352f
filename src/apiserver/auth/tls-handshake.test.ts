import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAdminCredentials, type AdminCredentials } from './admin-credentials.js';
import { Authenticator } from './authenticator.js';
import { issueClientCertificate } from './client-certificates.js';
import { ensurePki, loadCaKey, tlsServerOptions, type Pki } from './pki.js';
import { adminUser } from './user-info.js';
import { createCertificate, generateRsaKey } from './x509.js';

interface Reply {
  status: number;
  body: string;
}

describe('TLS handshake with tlsServerOptions', () => {
  let dir: string;
  let pki: Pki;
  let admin: AdminCredentials;
  let server: Server;
  let port: number;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conductor-tls-'));
    pki = await ensurePki(dir, '127.0.0.1');
    admin = await ensureAdminCredentials(dir, pki);
    const auth = new Authenticator({ tokens: new Map([[admin.token, adminUser()]]) });
    server = createServer(tlsServerOptions(pki), (req, res) => {
      const user = auth.authenticateRequest(req);
      res.writeHead(user ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(user ?? null));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  // get connects to 127.0.0.1; the client checks the serving certificate for servername when
  // given (sent as SNI), else for 127.0.0.1.
  function get(opts: { servername?: string; cert?: string; key?: string; token?: string; ca?: string }): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          servername: opts.servername,
          port,
          path: '/',
          ca: opts.ca ?? pki.caCertPem,
          cert: opts.cert,
          key: opts.key,
          agent: false,
          headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  test('the admin client certificate authenticates as conductor-admin in system:masters', async () => {
    const reply = await get({ cert: admin.certPem, key: admin.keyPem });
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { name: 'conductor-admin', groups: ['system:masters', 'system:authenticated'] });
  });

  test('the admin token authenticates over TLS without a client certificate', async () => {
    const reply = await get({ token: admin.token });
    assert.deepEqual([reply.status, JSON.parse(reply.body)], [200, adminUser()]);
  });

  test('a certificate issued later for another user maps CN and every O', async () => {
    const caKeyPem = await loadCaKey(dir);
    const user = issueClientCertificate(pki, caKeyPem, { commonName: 'jane', organizations: ['dev', 'ops'], days: 1 });
    const reply = await get({ cert: user.certPem, key: user.keyPem });
    assert.deepEqual([reply.status, JSON.parse(reply.body)], [200, { name: 'jane', groups: ['dev', 'ops', 'system:authenticated'] }]);
  });

  test('a client certificate from another CA is not trusted', async () => {
    const key = await generateRsaKey();
    const certPem = createCertificate(
      { profile: 'client', commonName: 'conductor-admin', organizations: ['system:masters'], publicKeyPem: key.publicKeyPem, days: 1 },
      { keyPem: key.keyPem },
    );
    const reply = await get({ cert: certPem, key: key.keyPem });
    assert.deepEqual([reply.status, JSON.parse(reply.body)], [401, null]);
  });

  test('no credentials at all gets 401', async () => {
    assert.equal((await get({})).status, 401);
  });

  test('the serving certificate is accepted for the name localhost', async () => {
    const reply = await get({ servername: 'localhost', token: admin.token });
    assert.equal(reply.status, 200);
  });

  test('the serving certificate is refused for a name it does not cover', async () => {
    await assert.rejects(get({ servername: 'example.com', token: admin.token }), /Hostname\/IP does not match|altnames/);
  });

  test('a client that does not trust the CA refuses the server', async () => {
    await assert.rejects(get({ ca: admin.certPem, token: admin.token }), /self.signed|unable to (get|verify)|certificate/i);
  });
});
