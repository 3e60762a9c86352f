/**
 * The isolation matrix of DESIGN section 1 with the real kubectl: an infrastructure admin,
 * a platform admin and two application developers (dev-a in team-a, dev-b in team-b), each
 * with a client certificate from `conductor user add`. Every row asserts an allow or a deny,
 * some through `kubectl auth can-i`, most through real requests. Also: a claim in a
 * namespace a class's allowedNamespaces excludes stays Pending and says why.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { cliPath, kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';

const run = promisify(execFile);
const SYS = 'conductor-system';

type Who = 'infra' | 'platform' | 'dev-a' | 'dev-b';
const groups: Record<Who, string[]> = {
  infra: ['conductor:infrastructure-admins'],
  platform: ['conductor:platform-admins'],
  'dev-a': [],
  'dev-b': [],
};

interface Row {
  who: Who;
  /** What is tried, for the failure message. */
  what: string;
  /** kubectl arguments; rows starting with `auth can-i` are answered yes/no. */
  args: string[];
  input?: string;
  allow: boolean;
}

const claim = (ns: string, name: string, cls = '') => `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: ${name}, namespace: ${ns}}
spec:
  ${cls ? `resourceClass: ${cls}\n  ` : ''}requirements: {capacity: {storage: 1Gi}}
`;
const pgServer = (ns: string) => `apiVersion: database.local.conductor.io/v1alpha1
kind: PostgreSQLServer
metadata: {name: stolen, namespace: ${ns}}
spec:
  host: 127.0.0.1
  port: 5432
  adminCredentialsSecretRef: {name: pg-admin}
  rebindPolicy: Delete
  sharing: {mode: Shared}
  capabilities: {capacity: {storage: 10Gi}}
`;
const resourceClass = (ns: string, name: string, allowed?: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${name}, namespace: ${ns}}
resourceClass: ${name}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
providerRef: {name: memory}
capabilities: {capacity: {storage: 20Gi}}
${allowed ? `allowedNamespaces: {matchLabels: {kubernetes.io/metadata.name: ${allowed}}}\n` : ''}template:
  apiVersion: database.memory.conductor.io/v1alpha1
  kind: MemoryDatabase
  spec: {}
`;
const provider = `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: extra, namespace: ${SYS}}
spec: {type: local}
`;

const canI = (who: Who, allow: boolean, verb: string, resource: string, ns?: string): Row => ({
  who,
  what: `can-i ${verb} ${resource}${ns ? ` -n ${ns}` : ' (cluster)'}`,
  args: ['auth', 'can-i', verb, resource, ...(ns ? ['-n', ns] : [])],
  allow,
});
const req = (who: Who, allow: boolean, what: string, args: string[], input?: string): Row => ({ who, what, args, allow, ...(input ? { input } : {}) });
const createDry = (who: Who, allow: boolean, what: string, yaml: string): Row => req(who, allow, what, ['create', '--dry-run=server', '-f', '-'], yaml);

const CLAIMS = 'postgresqlinstances.storage.conductor.io';
const matrix: Row[] = [
  // application developer dev-a (conductor:app-developer in team-a)
  createDry('dev-a', true, 'create a claim in team-a', claim('team-a', 'db1')),
  createDry('dev-a', false, 'create a claim in team-b', claim('team-b', 'db1')),
  req('dev-a', true, 'get a secret in team-a', ['get', 'secret', 'app-secret', '-n', 'team-a']),
  req('dev-a', false, 'get a secret in team-b', ['get', 'secret', 'app-secret', '-n', 'team-b']),
  req('dev-a', true, 'list configmaps in team-a', ['get', 'configmaps', '-n', 'team-a']),
  req('dev-a', false, 'list namespaces', ['get', 'namespaces']),
  req('dev-a', false, 'get provider credentials in conductor-system', ['get', 'secret', 'provider-creds', '-n', SYS]),
  createDry('dev-a', false, 'create a PostgreSQLServer in team-a', pgServer('team-a')),
  createDry('dev-a', false, 'create a ResourceClass in team-a', resourceClass('team-a', 'mine')),
  req('dev-a', false, 'list claims in every namespace', ['get', CLAIMS, '-A']),
  req('dev-a', true, 'list claims in team-a', ['get', CLAIMS, '-n', 'team-a']),
  req('dev-a', true, 'list ResourceClasses everywhere (read-only)', ['get', 'resourceclasses.core.conductor.io', '-A']),
  req('dev-a', false, 'create a RoleBinding in team-a', ['create', 'rolebinding', 'me-admin', '--clusterrole=cluster-admin', '--user=dev-a', '-n', 'team-a']),
  canI('dev-a', true, 'delete', 'secrets', 'team-a'),
  canI('dev-a', false, 'delete', 'secrets', 'team-b'),
  canI('dev-a', true, 'create', 'redisclusters.cache.conductor.io', 'team-a'),
  canI('dev-a', true, 'create', 'messagequeues.messaging.conductor.io', 'team-a'),
  canI('dev-a', false, 'create', 'providers.core.conductor.io', SYS),
  canI('dev-a', false, 'create', 'namespaces'),
  canI('dev-a', false, 'get', 'postgresqlservers.database.local.conductor.io', SYS),
  // application developer dev-b (team-b)
  req('dev-b', true, 'get a secret in team-b', ['get', 'secret', 'app-secret', '-n', 'team-b']),
  req('dev-b', false, 'get a secret in team-a', ['get', 'secret', 'app-secret', '-n', 'team-a']),
  createDry('dev-b', false, 'create a claim in team-a', claim('team-a', 'db2')),
  createDry('dev-b', true, 'create a claim in team-b', claim('team-b', 'db2')),
  // platform admin
  createDry('platform', true, 'create a ResourceClass in conductor-system', resourceClass(SYS, 'plat-class')),
  req('platform', false, 'read provider credentials', ['get', 'secret', 'provider-creds', '-n', SYS]),
  req('platform', false, 'list secrets in every namespace', ['get', 'secrets', '-A']),
  req('platform', true, 'list namespaces', ['get', 'namespaces']),
  req('platform', true, 'list claims in every namespace', ['get', CLAIMS, '-A']),
  req('platform', true, 'list concrete resources in every namespace', ['get', 'postgresqlservers.database.local.conductor.io', '-A']),
  createDry('platform', false, 'create a PostgreSQLServer', pgServer(SYS)),
  canI('platform', true, 'create', 'namespaces'),
  canI('platform', true, 'create', 'claimquotas.core.conductor.io', 'team-a'),
  canI('platform', true, 'update', 'schedulerprofiles.core.conductor.io', SYS),
  canI('platform', false, 'create', 'providers.core.conductor.io', SYS),
  canI('platform', false, 'get', 'secrets', 'team-a'),
  // infrastructure admin
  createDry('infra', true, 'create a Provider', provider),
  createDry('infra', true, 'create a PostgreSQLServer in conductor-system', pgServer(SYS)),
  req('infra', true, 'read provider credentials in conductor-system', ['get', 'secret', 'provider-creds', '-n', SYS]),
  req('infra', false, 'read an application secret', ['get', 'secret', 'app-secret', '-n', 'team-a']),
  req('infra', true, 'list claims in every namespace', ['get', CLAIMS, '-A']),
  createDry('infra', false, 'create a ResourceClass', resourceClass(SYS, 'infra-class')),
  canI('infra', true, 'create', 'secrets', SYS),
  canI('infra', false, 'delete', 'namespaces'),
  canI('infra', false, 'create', CLAIMS, 'team-a'),
];

describe('isolation matrix', () => {
  let server: ServerProcess;
  let api: ApiHandle;
  const kc = {} as Record<Who, { kubeconfig: string }>;

  before(async () => {
    server = await startServer();
    api = apiFromKubeconfig(server.kubeconfig);
    const admin = (args: string[], input?: string) => kubectlOk(server, args, input ? { input } : {});
    await Promise.all([
      admin(['wait', '--for=condition=Established', `crd/${CLAIMS}`, '--timeout=30s']),
      admin(['create', 'namespace', 'team-a']),
      admin(['create', 'namespace', 'team-b']),
      admin(['create', 'secret', 'generic', 'provider-creds', '-n', SYS, '--from-literal=token=cloud-secret']),
      ...(Object.keys(groups) as Who[]).map(async (who) => {
        const out = join(server.dataDir, 'users', `${who}.kubeconfig`);
        await run(process.execPath, [cliPath, 'user', 'add', who, '--data-dir', server.dataDir, '--out', out, ...groups[who].flatMap((g) => ['--group', g])]);
        kc[who] = { kubeconfig: out };
      }),
    ]);
    await Promise.all(
      ['team-a', 'team-b'].flatMap((ns) => [
        admin(['create', 'secret', 'generic', 'app-secret', '-n', ns, '--from-literal=password=p']),
        admin(['create', 'rolebinding', 'developers', '--clusterrole=conductor:app-developer', `--user=dev-${ns.slice(-1)}`, '-n', ns]),
      ]),
    );
  });
  after(async () => {
    api?.close();
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('every identity is who its certificate says', async () => {
    const who = JSON.parse(await kubectlOk(kc['dev-a'], ['auth', 'whoami', '-o', 'json']));
    assert.equal(who.status.userInfo.username, 'dev-a');
    const plat = JSON.parse(await kubectlOk(kc.platform, ['auth', 'whoami', '-o', 'json']));
    assert.ok(plat.status.userInfo.groups.includes('conductor:platform-admins'));
  });

  test(`${matrix.length} rows: every allow and every deny`, async () => {
    const failures: string[] = [];
    // Small concurrent batches keep the file fast without flooding a 2-core machine.
    for (let i = 0; i < matrix.length; i += 6) {
      await Promise.all(
        matrix.slice(i, i + 6).map(async (row) => {
          const r = await kubectl(kc[row.who], row.args, row.input ? { input: row.input } : {});
          const canI = row.args[0] === 'auth';
          const allowed = r.code === 0;
          const line = `${row.who}: ${row.what} — wanted ${row.allow ? 'allowed' : 'denied'}, got exit ${r.code}: ${(r.stdout + r.stderr).trim().split('\n')[0]}`;
          if (allowed !== row.allow) return void failures.push(line);
          if (canI) {
            if (!(row.allow ? /^yes/ : /^no/).test(r.stdout)) failures.push(`${line} (can-i printed ${JSON.stringify(r.stdout)})`);
          } else if (!row.allow && !/forbidden/i.test(r.stderr)) {
            failures.push(`${line} (denied for another reason than Forbidden)`);
          }
        }),
      );
    }
    assert.deepEqual(failures, []);
  });

  test('a 403 names the user, the verb, the resource, the namespace and why', async () => {
    const r = await kubectl(kc['dev-a'], ['get', 'secret', 'app-secret', '-n', 'team-b']);
    assert.match(r.stderr, /secrets "app-secret" is forbidden: User "dev-a" cannot get resource "secrets" in API group "" in the namespace "team-b": RBAC: /);
  });

  test('can-i --list shows a developer their rules in their namespace', async () => {
    const out = await kubectlOk(kc['dev-a'], ['auth', 'can-i', '--list', '-n', 'team-a']);
    assert.match(out, /^secrets\s+\[\]\s+\[\]\s+\[\*\]/m);
    assert.match(out, /^postgresqlinstances\.storage\.conductor\.io\s+\[\]\s+\[\]\s+\[\*\]/m);
    assert.match(out, /^postgresqlinstances\.storage\.conductor\.io\/status\s+\[\]\s+\[\]\s+\[get list watch\]/m, 'status only to read');
    const other = await kubectlOk(kc['dev-a'], ['auth', 'can-i', '--list', '-n', 'team-b']);
    assert.doesNotMatch(other, /^secrets\s/m);
  });

  test('a developer may watch claims in their namespace but not across namespaces', async () => {
    const path = (ns: string) => `/apis/storage.conductor.io/v1alpha1${ns ? `/namespaces/${ns}` : ''}/postgresqlinstances?watch=1&timeoutSeconds=1`;
    const [mine, all] = await Promise.all([kubectl(kc['dev-a'], ['get', '--raw', path('team-a')]), kubectl(kc['dev-a'], ['get', '--raw', path('')])]);
    assert.equal(mine.code, 0, mine.stderr);
    assert.notEqual(all.code, 0);
    assert.match(all.stderr, /forbidden/i);
  });

  test("a class's allowedNamespaces keeps another namespace's claim Pending and says why", async () => {
    await kubectlOk(kc.platform, ['create', '-f', '-'], { input: resourceClass(SYS, 'team-a-only', 'team-a') });
    await kubectlOk(kc['dev-b'], ['create', '-f', '-'], { input: claim('team-b', 'wants-a-class', 'team-a-only') });
    const cond = await eventually(async () => {
      const c = (await api.request('GET', `/apis/storage.conductor.io/v1alpha1/namespaces/team-b/postgresqlinstances/wants-a-class`)).json();
      const s = c.status?.conditions?.find((x: { type: string }) => x.type === 'Scheduled');
      return s?.status === 'False' ? { phase: c.status?.phase, message: String(s.message) } : undefined;
    }, 'the claim in team-b to be refused by the class');
    assert.equal(cond.phase, 'Pending');
    assert.match(cond.message, /namespace "team-b" not allowed by the class/);
  });

  test('item 5: an infrastructure admin cannot point a shared server\'s credentials at a tenant\'s Secret', async () => {
    // The server in the tenant's namespace: its Secret reference resolves there, and the controller would read
    // app-secret with its own rights and quote it back in status, Events and the log.
    const borrowed = (ns: string, ref: string) => `apiVersion: database.local.conductor.io/v1alpha1
kind: PostgreSQLServer
metadata: {name: borrowed, namespace: ${ns}}
spec:
  host: 127.0.0.1
  port: 5432
  adminCredentialsSecretRef: ${ref}
  sharing: {mode: Shared}
`;
    for (const ref of ['{name: app-secret}', '{name: app-secret, usernameKey: password}']) {
      const r = await kubectl(kc.infra, ['create', '-f', '-'], { input: borrowed('team-a', ref) });
      assert.notEqual(r.code, 0, `created: ${r.stdout}`);
      assert.match(r.stderr, /Error from server \(Forbidden\): .*postgresqlservers\.database\.local\.conductor\.io "borrowed" is forbidden: spec\.adminCredentialsSecretRef names Secret "app-secret" in namespace "team-a", and User "infra" cannot get secrets there/);
    }
    // Nor by changing the reference of a server someone else made there.
    await kubectlOk(server, ['create', '-f', '-'], { input: borrowed('team-b', '{name: admin-made}') });
    const moved = await kubectl(kc.infra, ['patch', 'postgresqlserver', 'borrowed', '-n', 'team-b', '--type=merge', '-p', '{"spec":{"adminCredentialsSecretRef":{"name":"app-secret"}}}']);
    assert.match(moved.stderr, /forbidden: spec\.adminCredentialsSecretRef names Secret "app-secret" in namespace "team-b"/);
    // A Provider's credentials likewise; in conductor-system, where the credentials belong, it is allowed.
    const provider = (ns: string) => `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: p, namespace: ${ns}}\nspec: {type: local, credentialsSecretRef: {name: app-secret}}\n`;
    const prov = await kubectl(kc.infra, ['create', '--dry-run=server', '-f', '-'], { input: provider('team-a') });
    assert.match(prov.stderr, /providers\.core\.conductor\.io "p" is forbidden: spec\.credentialsSecretRef names Secret "app-secret" in namespace "team-a"/);
    await kubectlOk(kc.infra, ['create', '--dry-run=server', '-f', '-'], { input: provider(SYS) });
    await kubectlOk(kc.infra, ['create', '--dry-run=server', '-f', '-'], { input: borrowed(SYS, '{name: provider-creds}') });
  });
});
