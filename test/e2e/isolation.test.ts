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
import { existsSync } from 'node:fs';
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
    assert.match(out, /\*\.storage\.conductor\.io/);
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
  // Issue 10 item 2: a load balancer target that reaches a host Unix socket (`#` commented out
  // the port in haproxy.cfg) or a cloud metadata address. A tenant's claim is refused with a
  // 422 naming the field; an infrastructure admin who writes such a target straight into a
  // concrete resource gets a 422 for the socket, and the provider refuses the metadata
  // address before it writes any config.
  test('load balancer targets: no Unix sockets, no link-local or metadata addresses', async () => {
    const lbClaim = (name: string, address: string) => `apiVersion: network.conductor.io/v1alpha1
kind: LoadBalancer
metadata: {name: ${name}, namespace: team-a}
spec:
  protocol: TCP
  ports: [13306]
  targets: [{address: ${JSON.stringify(address)}}]
`;
    const hostile = [
      { name: 'socket', address: 'unix@/var/run/mysqld/mysqld.sock#:3306', why: /must be host:port/ },
      { name: 'metadata', address: '169.254.169.254:80', why: /must not be a link-local address/ },
      { name: 'metadata-v6', address: '[fd00:ec2::254]:80', why: /must not be a link-local address/ },
      { name: 'metadata-name', address: 'metadata.google.internal:80', why: /must not be a link-local address/ },
    ];
    for (const h of hostile) {
      const r = await kubectl(kc['dev-a'], ['create', '-f', '-'], { input: lbClaim(h.name, h.address) });
      assert.notEqual(r.code, 0, `${h.address} was accepted`);
      assert.match(r.stderr, new RegExp(`The LoadBalancer "${h.name}" is invalid: spec\\.targets\\[0\\]\\.address`), r.stderr);
      assert.match(r.stderr, h.why, r.stderr);
      const body = { apiVersion: 'network.conductor.io/v1alpha1', kind: 'LoadBalancer', metadata: { name: h.name, namespace: 'team-a' }, spec: { targets: [{ address: h.address }] } };
      const raw = await api.request('POST', '/apis/network.conductor.io/v1alpha1/namespaces/team-a/loadbalancers', body);
      assert.equal(raw.status, 422, `${h.address}: ${raw.text}`);
    }
    await kubectlOk(kc['dev-a'], ['create', '-f', '-'], { input: lbClaim('fine', 'db.example.com:3306') });

    const concrete = (name: string, address: string) => `apiVersion: network.local.conductor.io/v1alpha1
kind: HAProxyLoadBalancer
metadata: {name: ${name}, namespace: ${SYS}}
spec:
  providerRef: {name: local}
  protocol: TCP
  targets: [{address: ${JSON.stringify(address)}}]
`;
    const socket = await kubectl(kc.infra, ['create', '-f', '-'], { input: concrete('socket', 'unix@/var/run/mysqld/mysqld.sock#:3306') });
    assert.notEqual(socket.code, 0);
    assert.match(socket.stderr, /is invalid: spec\.targets\[0\]\.address: .*must be host:port/, socket.stderr);

    await kubectlOk(kc.infra, ['create', '-f', '-'], { input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
` });
    await kubectlOk(kc.infra, ['create', '-f', '-'], { input: concrete('imds', '169.254.169.254:80') });
    const refused = await eventually(async () => {
      const r = (await api.request('GET', `/apis/network.local.conductor.io/v1alpha1/namespaces/${SYS}/haproxyloadbalancers/imds`)).json();
      const c = (r.status?.conditions ?? []).find((x: { message?: string }) => /refusing to configure the listener/.test(x.message ?? ''));
      return c ? String(c.message) : undefined;
    }, 'the provider to refuse the metadata target', 30_000);
    assert.match(refused, /169\.254\.169\.254 is link-local/);
    assert.equal(existsSync(join(server.dataDir, 'providers', 'local', 'loadbalancer', 'haproxy', `${SYS}_imds`)), false, 'no listener directory or config was written');
  });
});
