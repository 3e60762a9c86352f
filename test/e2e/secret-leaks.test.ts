/**
 * No secret material outside Secrets (trust issue, item 5). A real scenario on a real
 * PostgreSQL server — a shared PostgreSQLServer registered with wrong admin credentials, then
 * with the right ones, one more pointed (by the all-powerful admin) at a tenant's Secret with
 * its keys swapped so the tenant's password is sent as a user name, two claims bound and
 * released — and then every place a value could have gone is searched for every secret value
 * the test made or the controllers generated: every object of every listable kind except
 * Secrets (status, conditions, Events included), the server's log at debug level, the audit
 * log, and the bytes of the SQLite database and its WAL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startThrowawayServer, type ThrowawayServer } from '../../src/providers/local/postgresql/testing.js';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const SYS = 'conductor-system';
const unique = (what: string) => `${what}-${randomBytes(9).toString('hex')}`;

describe('secret values stay in Secrets', () => {
  let pgServer: ThrowawayServer;
  let server: ServerProcess;
  const dataDir = tempDir();
  const auditLog = join(dataDir, 'audit.log');
  let log = '';
  /** Every secret value of the run: the test's own and, later, the generated ones. */
  const secrets = new Map<string, string>();

  const admin = (args: string[], input?: string) => kubectlOk(server, args, input ? { input } : {});
  const json = async (args: string[]) => JSON.parse(await admin([...args, '-o', 'json']));
  const sharedServer = (name: string, ns: string, ref: string) => `apiVersion: database.local.conductor.io/v1alpha1
kind: PostgreSQLServer
metadata: {name: ${name}, namespace: ${ns}}
spec:
  host: ${pgServer.host}
  port: ${pgServer.port}
  adminCredentialsSecretRef: ${ref}
  rebindPolicy: Delete
  sharing: {mode: Shared, maxClaims: 5}
  capabilities: {capacity: {storage: 10Gi}}
`;
  const claim = (name: string) => `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: ${name}, namespace: team-a}
spec:
  resourceName: shared
  requirements: {capacity: {storage: 1Gi}}
`;
  const syncedMessage = async (ns: string, name: string) => {
    const o = await json(['get', 'postgresqlserver', name, '-n', ns]);
    const c = (o.status?.conditions ?? []).find((x: { type: string }) => x.type === 'Synced');
    return c?.status === 'False' ? String(c.message) : undefined;
  };

  before(async () => {
    pgServer = await startThrowawayServer();
    server = await startServer({ dataDir, args: ['--log-level', 'debug', '--audit-log', auditLog], env: { CONDUCTOR_POLL_INTERVAL_MS: '2000' } });
    server.child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    await admin([
      'wait',
      '--for=condition=Established',
      'crd/postgresqlservers.database.local.conductor.io',
      'crd/postgresqlinstances.storage.conductor.io',
      '--timeout=30s',
    ]);
    await admin(['create', 'namespace', 'team-a']);
    secrets.set('wrong admin user', unique('wronguser'));
    secrets.set('wrong admin password', unique('wrongpass'));
    secrets.set('tenant password', unique('tenantpass'));
    secrets.set('tenant token', unique('tenanttoken'));
    secrets.set('admin password', pgServer.password);
    await admin([
      'create',
      'secret',
      'generic',
      'wrong-admin',
      '-n',
      SYS,
      `--from-literal=username=${secrets.get('wrong admin user')}`,
      `--from-literal=password=${secrets.get('wrong admin password')}`,
    ]);
    await admin([
      'create',
      'secret',
      'generic',
      'right-admin',
      '-n',
      SYS,
      `--from-literal=username=${pgServer.username}`,
      `--from-literal=password=${pgServer.password}`,
    ]);
    await admin([
      'create',
      'secret',
      'generic',
      'app-secret',
      '-n',
      'team-a',
      `--from-literal=password=${secrets.get('tenant password')}`,
      `--from-literal=token=${secrets.get('tenant token')}`,
    ]);
  });
  after(async () => {
    await server?.stop();
    removeDir(dataDir);
    await pgServer?.stop();
  });

  test('a real run: wrong and right credentials, a tenant Secret sent as a user name, claims bound and released', async () => {
    // Wrong credentials: the login fails, and PostgreSQL's error quotes the user name.
    await admin(['apply', '-f', '-'], sharedServer('shared', SYS, '{name: wrong-admin}'));
    const wrong = await eventually(() => syncedMessage(SYS, 'shared'), 'the shared server to fail with the wrong credentials');
    assert.match(wrong, /\[redacted\]/, `the failed login is reported, without the user name: ${wrong}`);
    // The keys swapped: the tenant's password is sent as the user name (an admin may; nobody else may, see isolation).
    await admin(['apply', '-f', '-'], sharedServer('sneaky', 'team-a', '{name: app-secret, usernameKey: password, passwordKey: token}'));
    const sneaky = await eventually(() => syncedMessage('team-a', 'sneaky'), 'the sneaky server to fail');
    assert.match(sneaky, /\[redacted\]/, sneaky);
    await admin(['delete', 'postgresqlserver', 'sneaky', '-n', 'team-a', '--wait=true', '--timeout=60s']);

    // The right credentials: claims bind and get working Secrets.
    await admin(['patch', 'postgresqlserver', 'shared', '-n', SYS, '--type=merge', '-p', '{"spec":{"adminCredentialsSecretRef":{"name":"right-admin"}}}']);
    await admin(['apply', '-f', '-'], `${claim('orders')}---\n${claim('users')}`);
    for (const name of ['orders', 'users']) {
      await eventually(async () => {
        const c = await json(['get', 'postgresqlinstance', name, '-n', 'team-a']);
        return c.status?.conditions?.some((x: { type: string; status: string }) => x.type === 'Ready' && x.status === 'True');
      }, `claim ${name} Ready`);
      const s = await json(['get', 'secret', name, '-n', 'team-a']);
      const data = Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
      assert.ok(data.password && data.password.length >= 8, `claim ${name} has a password`);
      secrets.set(`${name} password`, data.password);
      secrets.set(`${name} uri`, data.uri);
    }
    // Released: the Delete policy drops each claim's database and role.
    await admin(['delete', 'postgresqlinstance', 'orders', 'users', '-n', 'team-a', '--wait=true', '--timeout=60s']);
    await eventually(async () => {
      const o = await json(['get', 'postgresqlserver', 'shared', '-n', SYS]);
      return (o.status?.bindings ?? []).length === 0;
    }, 'both bindings released');
    // Wrong credentials once more, after the claims: the error path again, now with claims' history.
    await admin(['patch', 'postgresqlserver', 'shared', '-n', SYS, '--type=merge', '-p', '{"spec":{"adminCredentialsSecretRef":{"name":"wrong-admin"}}}']);
    await eventually(() => syncedMessage(SYS, 'shared'), 'the shared server to fail again');
  });

  test('no secret value in any object but Secrets, in Events, in the log, in the audit log, or in the database files', async () => {
    const forms = [...secrets].flatMap(([what, v]) => [
      { what, v },
      { what: `${what} (base64)`, v: Buffer.from(v).toString('base64') },
    ]);
    const found: string[] = [];
    const scan = (where: string, text: string) => {
      for (const f of forms) if (text.includes(f.v)) found.push(`${f.what} in ${where}`);
    };
    const resources = (await admin(['api-resources', '--verbs=list', '-o', 'name'])).split('\n').filter((r) => r && r !== 'secrets');
    assert.ok(resources.includes('events') && resources.includes('postgresqlservers.database.local.conductor.io'), resources.join(' '));
    for (const r of resources) {
      const out = await kubectl(server, ['get', r, '-A', '-o', 'json']);
      if (out.code !== 0) continue; // (a kind that cannot be listed across namespaces)
      scan(`kubectl get ${r}`, out.stdout);
    }
    scan('the server log', log);
    scan('the audit log', readFileSync(auditLog, 'utf8'));
    for (const f of readdirSync(dataDir).filter((n) => n.startsWith('state.db'))) scan(f, readFileSync(join(dataDir, f)).toString('latin1'));
    assert.deepEqual(found, []);
    // The scan looked where the values would have been.
    assert.match(await admin(['get', 'events', '-A', '-o', 'json']), /\[redacted\]/, 'the failed logins were reported as Events');
    assert.match(log, /"level":20/, 'the log was written at debug level');
  });
});
