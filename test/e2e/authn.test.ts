/**
 * Authentication end to end with the real kubectl: ServiceAccount tokens (`kubectl create sa`,
 * `kubectl create token`, `--token`), `conductor user add` kubeconfigs, the static token file,
 * client certificates from a foreign CA, anonymous requests, and `kubectl auth whoami`.
 * The authorizer may be MastersOnly or RBAC: non-admin identities are only asked to do what
 * neither allows them (read Secrets cluster-wide, list namespaces), so 403 means "authenticated".
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { ensurePki, issueClientCertificate, loadCaKey } from '../../src/apiserver/auth/index.js';
import { cliPath, kubectl, kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

/** raw sends one HTTPS request with only the headers given (no credentials unless asked). */
function raw(server: ServerProcess, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const ca = readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8');
  return new Promise((resolve, reject) => {
    const req = request(server.url + path, { method: 'GET', ca, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** conductor runs the conductor CLI and returns its exit code and output. */
function conductor(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const UNAUTHORIZED = /You must be logged in to the server \(Unauthorized\)/;

describe('authentication', () => {
  let server: ServerProcess;
  let work: string;
  /** kubeconfig writes a kubeconfig for the server with the given user entry. */
  let kubeconfig: (name: string, user: Record<string, string>) => { kubeconfig: string };

  before(async () => {
    work = tempDir('conductor-authn-');
    const tokenFile = join(work, 'tokens.csv');
    writeFileSync(tokenFile, 'static-token-1,carol,carol-uid,"ops,auditors"\nstatic-token-2,dave,,\n');
    server = await startServer({ args: ['--token-file', tokenFile] });
    const caData = Buffer.from(readFileSync(join(server.dataDir, 'pki', 'ca.crt'))).toString('base64');
    kubeconfig = (name, user) => {
      const path = join(work, `${name}.kubeconfig`);
      const userLines = Object.entries(user).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`);
      writeFileSync(
        path,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          '- name: c',
          '  cluster:',
          `    server: ${JSON.stringify(server.url)}`,
          `    certificate-authority-data: ${caData}`,
          'users:',
          '- name: u',
          '  user:',
          ...userLines,
          'contexts:',
          '- name: x',
          '  context: {cluster: c, user: u}',
          'current-context: x',
          '',
        ].join('\n'),
      );
      return { kubeconfig: path };
    };
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
    if (work) removeDir(work);
  });

  test('anonymous requests get 401 except the health checks', async () => {
    for (const path of ['/api', '/apis', '/version', '/api/v1/namespaces', '/apis/authentication.k8s.io/v1/selfsubjectreviews']) {
      const r = await raw(server, path);
      assert.equal(r.status, 401, `${path}: ${r.body}`);
      assert.equal(JSON.parse(r.body).reason, 'Unauthorized');
    }
    for (const path of ['/healthz', '/livez', '/readyz']) assert.equal((await raw(server, path)).status, 200, path);
    const bad = await raw(server, '/api', { Authorization: 'Bearer not-a-known-token' });
    assert.equal(bad.status, 401);
  });

  test('kubectl auth whoami shows the admin', async () => {
    const out = await kubectlOk(server, ['auth', 'whoami']);
    assert.match(out, /Username\s+conductor-admin/);
    assert.match(out, /Groups\s+\[system:masters system:authenticated\]/);
  });

  test('a ServiceAccount token from kubectl create token authenticates as the account', async () => {
    await kubectlOk(server, ['create', 'serviceaccount', 'builder', '-n', 'default']);
    const uid = await kubectlOk(server, ['get', 'sa', 'builder', '-n', 'default', '-o', 'jsonpath={.metadata.uid}']);
    const token = (await kubectlOk(server, ['create', 'token', 'builder', '-n', 'default'])).trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    assert.equal(claims.sub, 'system:serviceaccount:default:builder');
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'default', serviceaccount: { name: 'builder', uid } });
    assert.equal(claims.exp - claims.iat, 3600);

    const sa = kubeconfig('sa', { token });
    const who = JSON.parse(await kubectlOk(sa, ['auth', 'whoami', '-o', 'json']));
    assert.deepEqual(who.status.userInfo, {
      username: 'system:serviceaccount:default:builder',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    // --token on the admin's kubeconfig works the same way.
    assert.match(await kubectlOk(server, ['auth', 'whoami', '--token', token]), /Username\s+system:serviceaccount:default:builder/);
    // Authenticated but not allowed: 403, not 401.
    const forbidden = await kubectl(sa, ['get', '--raw', '/api/v1/secrets']);
    assert.notEqual(forbidden.code, 0);
    assert.match(forbidden.stderr, /Forbidden/);
    assert.equal((await raw(server, '/api/v1/secrets', { Authorization: `Bearer ${token}` })).status, 403);
  });

  test('kubectl create token honours --duration and --audience; tokens for another audience do not authenticate', async () => {
    await kubectlOk(server, ['create', 'serviceaccount', 'aud', '-n', 'default']);
    const long = JSON.parse(await kubectlOk(server, ['create', 'token', 'aud', '-n', 'default', '--duration', '2h', '-o', 'json']));
    assert.equal(long.kind, 'TokenRequest');
    assert.equal(long.spec.expirationSeconds, 7200);
    assert.ok(Date.parse(long.status.expirationTimestamp) - Date.now() > 7000_000);
    const vault = (await kubectlOk(server, ['create', 'token', 'aud', '-n', 'default', '--audience', 'vault'])).trim();
    assert.deepEqual(JSON.parse(Buffer.from(vault.split('.')[1], 'base64url').toString()).aud, ['vault']);
    const r = await kubectl(kubeconfig('vault', { token: vault }), ['auth', 'whoami']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, UNAUTHORIZED);

    const short = await kubectl(server, ['create', 'token', 'aud', '-n', 'default', '--duration', '1m']);
    assert.notEqual(short.code, 0);
    assert.match(short.stderr, /spec.expirationSeconds: may not specify a duration less than 600 seconds/);
    const missing = await kubectl(server, ['create', 'token', 'ghost', '-n', 'default']);
    assert.match(missing.stderr, /serviceaccounts "ghost" not found/);
  });

  test('deleting a ServiceAccount revokes its tokens, also when one of the same name is created again', async () => {
    await kubectlOk(server, ['create', 'serviceaccount', 'temp', '-n', 'default']);
    const token = (await kubectlOk(server, ['create', 'token', 'temp', '-n', 'default'])).trim();
    const kc = kubeconfig('temp', { token });
    await kubectlOk(kc, ['auth', 'whoami']);
    await kubectlOk(server, ['delete', 'serviceaccount', 'temp', '-n', 'default']);
    const gone = await kubectl(kc, ['auth', 'whoami']);
    assert.match(gone.stderr, UNAUTHORIZED);
    await kubectlOk(server, ['create', 'serviceaccount', 'temp', '-n', 'default']);
    const again = await kubectl(kc, ['auth', 'whoami']);
    assert.match(again.stderr, UNAUTHORIZED);
    // A tampered token (another account's name in the payload) is refused too.
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.sub = 'system:serviceaccount:default:builder';
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    assert.equal((await raw(server, '/apis', { Authorization: `Bearer ${forged}` })).status, 401);
  });

  test('conductor user add issues a kubeconfig that authenticates with a client certificate', async () => {
    const r = await conductor(['user', 'add', 'alice', '--group', 'developers', '--group', 'team-a', '--data-dir', server.dataDir]);
    assert.equal(r.code, 0, r.stderr);
    const path = join(server.dataDir, 'users', 'alice.kubeconfig');
    assert.match(r.stdout, new RegExp(`kubeconfig written to ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(r.stdout, /kubectl --kubeconfig .* auth whoami/);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const alice = { kubeconfig: path };
    const who = await kubectlOk(alice, ['auth', 'whoami']);
    assert.match(who, /Username\s+alice/);
    assert.match(who, /Groups\s+\[developers team-a system:authenticated\]/);
    const denied = await kubectl(alice, ['get', '--raw', '/api/v1/secrets']);
    assert.match(denied.stderr, /Forbidden/);

    const bad = await conductor(['user', 'add', '../evil', '--data-dir', server.dataDir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /user name "..\/evil" is not valid/);
    const badGroup = await conductor(['user', 'add', 'eve', '--group', 'system:authenticated', '--data-dir', server.dataDir]);
    assert.equal(badGroup.code, 2);
  });

  test('a client certificate from another CA authenticates nobody', async () => {
    const other = tempDir('conductor-other-ca-');
    try {
      const pki = await ensurePki(other, '127.0.0.1');
      const cert = issueClientCertificate(pki, await loadCaKey(other), { commonName: 'mallory', organizations: ['system:masters'] });
      const kc = kubeconfig('foreign', {
        'client-certificate-data': Buffer.from(cert.certPem).toString('base64'),
        'client-key-data': Buffer.from(cert.keyPem).toString('base64'),
      });
      const r = await kubectl(kc, ['auth', 'whoami']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, UNAUTHORIZED);
    } finally {
      removeDir(other);
    }
  });

  test('static token file users authenticate with their groups', async () => {
    const carol = JSON.parse(await kubectlOk(kubeconfig('carol', { token: 'static-token-1' }), ['auth', 'whoami', '-o', 'json']));
    assert.deepEqual(carol.status.userInfo, { username: 'carol', uid: 'carol-uid', groups: ['ops', 'auditors', 'system:authenticated'] });
    const dave = JSON.parse(await kubectlOk(kubeconfig('dave', { token: 'static-token-2' }), ['auth', 'whoami', '-o', 'json']));
    assert.deepEqual(dave.status.userInfo, { username: 'dave', groups: ['system:authenticated'] });
  });
});
