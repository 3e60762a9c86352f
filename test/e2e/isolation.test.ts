/**
 * The isolation matrix of the design's section 1 with the real kubectl: an infrastructure admin,
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
import { createClient } from 'redis';
import { startThrowawayRedis } from '../../src/providers/local/redis/testing.js';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { instanceRoots } from '../support/leftovers.js';
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

  test("item 5: an infrastructure admin cannot point a shared server's credentials at a tenant's Secret", async () => {
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
      assert.match(
        r.stderr,
        /Error from server \(Forbidden\): .*postgresqlservers\.database\.local\.conductor\.io "borrowed" is forbidden: spec\.adminCredentialsSecretRef names Secret "app-secret" in namespace "team-a", and User "infra" cannot get secrets there/,
      );
    }
    // Nor by changing the reference of a server someone else made there.
    await kubectlOk(server, ['create', '-f', '-'], { input: borrowed('team-b', '{name: admin-made}') });
    const moved = await kubectl(kc.infra, [
      'patch',
      'postgresqlserver',
      'borrowed',
      '-n',
      'team-b',
      '--type=merge',
      '-p',
      '{"spec":{"adminCredentialsSecretRef":{"name":"app-secret"}}}',
    ]);
    assert.match(moved.stderr, /forbidden: spec\.adminCredentialsSecretRef names Secret "app-secret" in namespace "team-b"/);
    // A Provider's credentials likewise; in conductor-system, where the credentials belong, it is allowed.
    const provider = (ns: string) =>
      `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: p, namespace: ${ns}}\nspec: {type: local, credentialsSecretRef: {name: app-secret}}\n`;
    const prov = await kubectl(kc.infra, ['create', '--dry-run=server', '-f', '-'], { input: provider('team-a') });
    assert.match(prov.stderr, /providers\.core\.conductor\.io "p" is forbidden: spec\.credentialsSecretRef names Secret "app-secret" in namespace "team-a"/);
    await kubectlOk(kc.infra, ['create', '--dry-run=server', '-f', '-'], { input: provider(SYS) });
    await kubectlOk(kc.infra, ['create', '--dry-run=server', '-f', '-'], { input: borrowed(SYS, '{name: provider-creds}') });
  });

  // ---- claims rows (issue 10, items 1, 8, 10, 11): what the claim controller must refuse on its own.

  /** Runs one Redis command with nothing but the given connection details. */
  const redisRun = async (details: Record<string, string>, args: string[]): Promise<unknown> => {
    const r = createClient({ url: details.uri, socket: { reconnectStrategy: false, connectTimeout: 3000 } });
    r.on('error', () => {});
    await r.connect();
    try {
      return await r.sendCommand(args);
    } finally {
      r.destroy();
    }
  };
  const secretAs = async (who: Who | 'admin', ns: string, name: string): Promise<Record<string, string> | undefined> => {
    const r = await kubectl(who === 'admin' ? server : kc[who], ['get', 'secret', name, '-n', ns, '-o', 'json']);
    if (r.code !== 0) {
      assert.match(r.stderr, /NotFound/, `reading Secret ${ns}/${name}: ${r.stderr}`);
      return undefined;
    }
    const data = (JSON.parse(r.stdout).data ?? {}) as Record<string, string>;
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const redisClaim = (ns: string, name: string, spec: string) => `apiVersion: cache.conductor.io/v1alpha1
kind: RedisCluster
metadata: {name: ${name}, namespace: ${ns}}
spec: ${spec}
`;
  const claimJson = async (who: Who | 'admin', plural: string, ns: string, name: string) =>
    JSON.parse(await kubectlOk(who === 'admin' ? server : kc[who], ['get', plural, name, '-n', ns, '-o', 'json']));
  const readyClaim = (who: Who, plural: string, ns: string, name: string) =>
    eventually(async () => {
      const c = await claimJson(who, plural, ns, name);
      return c.status?.conditions?.some((x: { type: string; status: string }) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
    }, `${plural} ${ns}/${name} Ready`);
  const REDIS_CLAIMS = 'redisclusters.cache.conductor.io';

  test("item 1: a claim whose status names another tenant's resource gets nothing from the controller", async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
---
apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: iso-dedicated-redis, namespace: ${SYS}}
supportedResources: [RedisCluster.v1alpha1.cache.conductor.io]
rebindPolicy: Delete
providerRef: {name: local}
template:
  apiVersion: cache.local.conductor.io/v1alpha1
  kind: LocalRedisInstance
  spec: {}
`,
    });
    await kubectlOk(kc['dev-a'], ['create', '-f', '-'], { input: redisClaim('team-a', 'victim-cache', '{resourceClass: iso-dedicated-redis}') });
    try {
      const victim = await readyClaim('dev-a', REDIS_CLAIMS, 'team-a', 'victim-cache');
      const victimDetails = (await secretAs('dev-a', 'team-a', 'victim-cache'))!;
      assert.equal(await redisRun(victimDetails, ['SET', 'k', 'team-a data']), 'OK');

      // dev-b asks for a resource that does not exist, then its status is made to name the
      // victim's resource. The write is made as the admin: tenants lose /status (item 1a), so
      // this proves the controller alone refuses.
      await kubectlOk(kc['dev-b'], ['create', '-f', '-'], { input: redisClaim('team-b', 'thief', '{resourceName: does-not-exist}') });
      await eventually(async () => (await claimJson('dev-b', REDIS_CLAIMS, 'team-b', 'thief')).status?.phase === 'Pending', 'the thief claim Pending');
      const forged = { status: { phase: 'Bound', resourceRef: victim.status.resourceRef } };
      await kubectlOk(server, ['patch', REDIS_CLAIMS, 'thief', '-n', 'team-b', '--subresource=status', '--type=merge', '-p', JSON.stringify(forged)]);
      await kubectlOk(kc['dev-b'], ['label', REDIS_CLAIMS, 'thief', '-n', 'team-b', 'touched=yes']);
      const thief = await eventually(async () => {
        const c = await claimJson('dev-b', REDIS_CLAIMS, 'team-b', 'thief');
        const leaked = await secretAs('dev-b', 'team-b', 'thief');
        return c.status?.phase === 'Lost' || leaked ? c : undefined;
      }, 'the controller to judge the forged claim');
      assert.equal(await secretAs('dev-b', 'team-b', 'thief'), undefined, "no Secret with the victim's details in team-b");
      const secrets = JSON.parse(await kubectlOk(kc['dev-b'], ['get', 'secrets', '-n', 'team-b', '-o', 'json'])).items as { data?: Record<string, string> }[];
      const everything = secrets.flatMap((s) => Object.values(s.data ?? {}).map((v) => Buffer.from(v, 'base64').toString()));
      assert.ok(!everything.some((v) => v.includes(victimDetails.password)), "the victim's password is nowhere in team-b");
      assert.equal(thief.status.phase, 'Lost');
      assert.match(thief.status.conditions.find((x: { type: string }) => x.type === 'Bound').message, /no longer exists or is not bound to this claim/);

      // Deleting the thief releases nothing of the victim's; the victim keeps working.
      await kubectlOk(kc['dev-b'], ['delete', REDIS_CLAIMS, 'thief', '-n', 'team-b', '--timeout=60s']);
      assert.equal(await redisRun(victimDetails, ['GET', 'k']), 'team-a data');
      const still = await claimJson('dev-a', REDIS_CLAIMS, 'team-a', 'victim-cache');
      assert.equal(still.status.phase, 'Bound');
      assert.deepEqual(await secretAs('dev-a', 'team-a', 'victim-cache'), victimDetails);
    } finally {
      await kubectl(kc['dev-a'], ['delete', REDIS_CLAIMS, 'victim-cache', '-n', 'team-a', '--timeout=60s']);
    }
  });

  test('item 8: claims y-c in x and c in x-y get binding Secrets and credentials of their own', async () => {
    const redis = await startThrowawayRedis();
    try {
      await kubectlOk(server, ['create', 'namespace', 'x']);
      await kubectlOk(server, ['create', 'namespace', 'x-y']);
      await kubectlOk(server, ['create', 'rolebinding', 'developers', '--clusterrole=conductor:app-developer', '--user=dev-a', '-n', 'x']);
      await kubectlOk(server, ['create', 'rolebinding', 'developers', '--clusterrole=conductor:app-developer', '--user=dev-b', '-n', 'x-y']);
      await kubectlOk(server, ['create', 'secret', 'generic', 'iso-redis-admin', '-n', SYS, `--from-literal=password=${redis.password}`]);
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: cache.local.conductor.io/v1alpha1
kind: RedisServer
metadata: {name: iso-shared-redis, namespace: ${SYS}}
spec:
  host: ${redis.host}
  port: ${redis.port}
  adminCredentialsSecretRef: {name: iso-redis-admin}
  rebindPolicy: Delete
  sharing: {mode: Shared, maxClaims: 10}
`,
      });
      await kubectlOk(kc['dev-a'], ['create', '-f', '-'], { input: redisClaim('x', 'y-c', '{resourceName: iso-shared-redis}') });
      await readyClaim('dev-a', REDIS_CLAIMS, 'x', 'y-c');
      const first = (await secretAs('dev-a', 'x', 'y-c'))!;
      assert.equal(await redisRun(first, ['PING']), 'PONG');
      await kubectlOk(kc['dev-b'], ['create', '-f', '-'], { input: redisClaim('x-y', 'c', '{resourceName: iso-shared-redis}') });
      await readyClaim('dev-b', REDIS_CLAIMS, 'x-y', 'c');
      const second = (await secretAs('dev-b', 'x-y', 'c'))!;
      assert.notEqual(second.username, first.username);
      assert.notEqual(second.password, first.password);
      // Each logs in as itself; the first claim's password was not rotated by the second bind.
      assert.equal(await redisRun(first, ['PING']), 'PONG');
      assert.equal(await redisRun(second, ['PING']), 'PONG');
      assert.deepEqual(await secretAs('dev-a', 'x', 'y-c'), first);
      const binding = JSON.parse(await kubectlOk(server, ['get', 'secrets', '-n', SYS, '-o', 'json']))
        .items.map((o: { metadata: { name: string } }) => o.metadata.name)
        .filter((n: string) => n.startsWith('iso-shared-redis-'));
      assert.equal(binding.length, 2, `one binding Secret per claim: ${binding.join(', ')}`);
      // One leaving (Delete) takes only its own user.
      await kubectlOk(kc['dev-b'], ['delete', REDIS_CLAIMS, 'c', '-n', 'x-y', '--timeout=60s']);
      await assert.rejects(redisRun(second, ['PING']));
      assert.equal(await redisRun(first, ['PING']), 'PONG');
      await kubectlOk(kc['dev-a'], ['delete', REDIS_CLAIMS, 'y-c', '-n', 'x', '--timeout=60s']);
    } finally {
      await redis.stop();
    }
  });

  const memoryClass = (ns: string, name: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${name}, namespace: ${ns}}
resourceClass: ${name}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template:
  apiVersion: database.memory.conductor.io/v1alpha1
  kind: MemoryDatabase
  spec: {version: "16.4"}
`;

  test("item 10: a class in a tenant's namespace provisions into conductor-system and serves only that namespace", async () => {
    await kubectlOk(kc.platform, ['create', '-f', '-'], { input: memoryClass('team-a', 'team-a-own') });
    await kubectlOk(kc['dev-a'], ['create', '-f', '-'], { input: claim('team-a', 'own-db', 'team-a-own') });
    await kubectlOk(kc['dev-b'], ['create', '-f', '-'], { input: claim('team-b', 'borrowed-db', 'team-a-own') });
    const own = await readyClaim('dev-a', CLAIMS, 'team-a', 'own-db');
    assert.equal(own.status.resourceRef.namespace, SYS);
    const inTeamA = JSON.parse(await kubectlOk(server, ['get', 'memorydatabases.database.memory.conductor.io', '-n', 'team-a', '-o', 'json'])).items;
    assert.deepEqual(inTeamA, [], 'nothing provisioned in team-a');
    const borrowed = await eventually(async () => {
      const c = await claimJson('dev-b', CLAIMS, 'team-b', 'borrowed-db');
      const s = c.status?.conditions?.find((x: { type: string }) => x.type === 'Scheduled');
      return s?.status === 'False' ? c : undefined;
    }, "team-b's claim refused by team-a's class");
    assert.equal(borrowed.status.phase, 'Pending');
    assert.match(borrowed.status.conditions.find((x: { type: string }) => x.type === 'Scheduled').message, /class of another namespace/);
    assert.equal(await secretAs('dev-b', 'team-b', 'borrowed-db'), undefined);
  });

  test('item 11: naming a resource bound to another claim reads exactly like naming one that does not exist', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], { input: memoryClass(SYS, 'iso-taken') });
    await kubectlOk(kc['dev-a'], ['create', '-f', '-'], { input: claim('team-a', 'holder', 'iso-taken') });
    const holder = await readyClaim('dev-a', CLAIMS, 'team-a', 'holder');
    const taken = holder.status.resourceRef.name as string;
    const named = (name: string, target: string) => `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: ${name}, namespace: team-b}
spec: {resourceName: ${target}}
`;
    await kubectlOk(kc['dev-b'], ['create', '-f', '-'], { input: named('probe-taken', taken) + '---\n' + named('probe-missing', 'zz-no-such-resource') });
    const explain = async (name: string) =>
      eventually(async () => {
        const c = await claimJson('dev-b', CLAIMS, 'team-b', name);
        const s = c.status?.conditions?.find((x: { type: string }) => x.type === 'Scheduled');
        if (s?.status !== 'False') return undefined;
        const events = JSON.parse(
          await kubectlOk(kc['dev-b'], ['get', 'events', '-n', 'team-b', '--field-selector', `involvedObject.name=${name}`, '-o', 'json']),
        ).items;
        const failed = events
          .filter((e: { reason: string }) => e.reason === 'FailedScheduling')
          .map((e: { type: string; message: string }) => `${e.type} ${e.message}`);
        return failed.length > 0 ? { phase: c.status.phase, reason: s.reason, message: s.message as string, events: failed as string[] } : undefined;
      }, `the Scheduled condition and Event of ${name}`);
    const [a, b] = await Promise.all([explain('probe-taken'), explain('probe-missing')]);
    const normal = (x: { phase: string; reason: string; message: string; events: string[] }, target: string) =>
      JSON.parse(JSON.stringify(x).split(target).join('<name>'));
    assert.deepEqual(normal(a, taken), normal(b, 'zz-no-such-resource'));
    assert.match(a.message, /no resource named/);
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
      const body = {
        apiVersion: 'network.conductor.io/v1alpha1',
        kind: 'LoadBalancer',
        metadata: { name: h.name, namespace: 'team-a' },
        spec: { targets: [{ address: h.address }] },
      };
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

    await kubectlOk(kc.infra, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
`,
    });
    await kubectlOk(kc.infra, ['create', '-f', '-'], { input: concrete('imds', '169.254.169.254:80') });
    const refused = await eventually(
      async () => {
        const r = (await api.request('GET', `/apis/network.local.conductor.io/v1alpha1/namespaces/${SYS}/haproxyloadbalancers/imds`)).json();
        const c = (r.status?.conditions ?? []).find((x: { message?: string }) => /refusing to configure the listener/.test(x.message ?? ''));
        return c ? String(c.message) : undefined;
      },
      'the provider to refuse the metadata target',
      30_000,
    );
    assert.match(refused, /169\.254\.169\.254 is link-local/);
    // Under the data dir, or in /var/tmp when the listeners run as another user (Conductor is root).
    for (const root of instanceRoots(server.dataDir, 'loadbalancer/haproxy')) {
      assert.equal(existsSync(join(root, `${SYS}_imds`)), false, `no listener directory or config was written in ${root}`);
    }
  });
});
