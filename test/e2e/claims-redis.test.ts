/**
 * RedisCluster claims end to end on real redis-server processes: a registered shared server
 * gives each claim an ACL user limited to its key prefix (Delete, Retain and Recycle act on
 * the user and its keys; a user removed by hand comes back), and a class provisions a
 * dedicated server per claim (killed → restarted with its data; Delete stops and removes
 * it; Recycle empties it for the next claim).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { startThrowawayRedis, type ThrowawayRedis } from '../../src/providers/local/redis/testing.js';
import { ensureAclUser, withRedis } from '../../src/providers/local/redis/admin.js';
import { redisEndpointDetails } from '../../src/providers/local/redis/connection.js';
import { legacyRedisShare, redisShare } from '../../src/providers/local/redis/shared-server.js';
import { apiFromKubeconfig, type ApiHandle } from '../support/api.js';
import { kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';
import { killLeftovers } from '../support/leftovers.js';

const SYS = 'conductor-system';
const claimsPath = (name = '') => `/apis/cache.conductor.io/v1alpha1/namespaces/app/redisclusters${name ? `/${name}` : ''}`;
const localPath = (name = '') => `/apis/cache.local.conductor.io/v1alpha1/namespaces/${SYS}/localredisinstances${name ? `/${name}` : ''}`;

/** run sends one command with only the given connection details. */
async function run(details: Record<string, string>, args: string[]): Promise<unknown> {
  const c = createClient({ url: details.uri, socket: { reconnectStrategy: false, connectTimeout: 2000 } });
  c.on('error', () => {});
  await c.connect();
  try {
    return await c.sendCommand(args);
  } finally {
    c.destroy();
  }
}

describe('RedisCluster claims on real Redis', () => {
  let redis: ThrowawayRedis;
  let server: ServerProcess;
  let api: ApiHandle;

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const get = async (path: string) => (await api.request('GET', path)).json();
  const boundAndReady = (name: string) =>
    eventually(
      async () => {
        const c = await get(claimsPath(name));
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `claim app/${name} Bound and Ready`,
      45_000,
    );
  const secretOf = async (ns: string, name: string) => {
    const s = await get(`/api/v1/namespaces/${ns}/secrets/${name}`);
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const admin = (args: string[]) => run({ uri: `redis://default:${redis.password}@${redis.host}:${redis.port}` }, args);
  const shared = (name: string, policy: string) => `apiVersion: cache.local.conductor.io/v1alpha1
kind: RedisServer
metadata: {name: ${name}, namespace: ${SYS}, labels: {pool: ${name}}}
spec:
  host: ${redis.host}
  port: ${redis.port}
  adminCredentialsSecretRef: {name: redis-admin}
  rebindPolicy: ${policy}
  sharing: {mode: Shared, maxClaims: 10}
`;
  const claim = (name: string, spec: string) => `apiVersion: cache.conductor.io/v1alpha1
kind: RedisCluster
metadata: {name: ${name}, namespace: app}
spec: ${spec}
`;
  const deleteClaim = (name: string) => kubectlOk(server, ['delete', 'rediscluster', name, '-n', 'app', '--timeout=60s']);

  before(async () => {
    redis = await startThrowawayRedis();
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '1000' } });
    api = apiFromKubeconfig(server.kubeconfig);
    await kubectlOk(server, [
      'wait',
      '--for=condition=Established',
      'crd/redisclusters.cache.conductor.io',
      'crd/redisservers.cache.local.conductor.io',
      '--timeout=30s',
    ]);
    await kubectlOk(server, ['create', 'namespace', 'app']);
    await kubectlOk(server, ['create', 'secret', 'generic', 'redis-admin', '-n', SYS, `--from-literal=password=${redis.password}`]);
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: local, namespace: ${SYS}}
spec: {type: local}
---
${shared('redis-del', 'Delete')}---
${shared('redis-keep', 'Retain')}---
${shared('redis-recycle', 'Recycle')}`);
  });
  after(async () => {
    api?.close();
    await server?.stop();
    if (server) {
      killLeftovers(server.dataDir, 'redis', 'redis.pid');
      removeDir(server.dataDir);
    }
    await redis?.stop();
  });

  test('a claim on the shared server gets its own user and prefix; a user removed by hand comes back; Delete removes user and keys', async () => {
    await apply(claim('cache-a', '{resourceSelector: {matchLabels: {pool: redis-del}}}'));
    const c = await boundAndReady('cache-a');
    assert.equal(c.status.resourceRef.name, 'redis-del');
    const d = await secretOf('app', 'cache-a');
    for (const key of ['host', 'port', 'password', 'uri', 'username', 'keyPrefix']) assert.ok(d[key], `secret key ${key}`);
    assert.equal(await run(d, ['SET', `${d.keyPrefix}greeting`, 'hi']), 'OK');
    assert.equal(await run(d, ['GET', `${d.keyPrefix}greeting`]), 'hi');
    await assert.rejects(run(d, ['GET', 'someone-else:key']), /NOPERM|permission/i, 'keys outside the prefix are refused');

    await admin(['ACL', 'DELUSER', d.username]);
    await eventually(async () => (await run(d, ['PING'])) === 'PONG', 'the claim user to be recreated with the same password', 30_000);

    await deleteClaim('cache-a');
    assert.equal(((await admin(['ACL', 'USERS'])) as string[]).includes(d.username), false, 'the user is removed');
    assert.deepEqual(await admin(['KEYS', `${d.keyPrefix}*`]), [], 'its keys are deleted');
  });

  test('a claim bound by an earlier version keeps its 8-hex-named user and prefix; releasing it removes them', async () => {
    // Bind, then make the binding look like an earlier version's: its user and prefix under
    // the earlier name (with keys in it), recorded in the binding Secret; no user under the new name.
    await apply(claim('cache-old', '{resourceSelector: {matchLabels: {pool: redis-del}}}'));
    await boundAndReady('cache-old');
    const ref = { namespace: 'app', name: 'cache-old' };
    const old = legacyRedisShare(ref);
    const password = 'earlier-password-1';
    await withRedis({ host: redis.host, port: redis.port, password: redis.password }, (r) => ensureAclUser(r, old.username, password, old.keyPrefix));
    const recorded = redisEndpointDetails({ host: redis.host, port: redis.port, username: old.username, password, keyPrefix: old.keyPrefix });
    assert.equal(await run(recorded, ['SET', `${old.keyPrefix}k`, 'kept']), 'OK');
    const secrets = (await get(`/api/v1/namespaces/${SYS}/secrets`)).items as any[];
    const binding = secrets.find((o) => /^redis-del-app-cache-old-[0-9a-f]{16}$/.test(o.metadata.name));
    assert.ok(binding, 'the binding Secret');
    const data = Object.fromEntries(Object.entries(recorded).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
    const put = await api.request('PUT', `/api/v1/namespaces/${SYS}/secrets/${binding.metadata.name}`, { ...binding, data });
    assert.ok(put.status < 300, `PUT binding Secret: ${put.status}`);
    await admin(['ACL', 'DELUSER', redisShare(ref).username]);
    await kubectlOk(server, ['annotate', 'rediscluster', 'cache-old', '-n', 'app', 'touch=1']);
    const d = await eventually(
      async () => {
        const got = await secretOf('app', 'cache-old');
        return got.username === old.username ? got : undefined;
      },
      'the claim Secret to carry the earlier user',
      30_000,
    );
    assert.equal(d.keyPrefix, old.keyPrefix);
    assert.equal(d.password, password);
    assert.equal(await run(d, ['GET', `${old.keyPrefix}k`]), 'kept');
    assert.ok(!((await admin(['ACL', 'USERS'])) as string[]).includes(redisShare(ref).username), 'no user under the new name');
    await deleteClaim('cache-old');
    await eventually(
      async () => (!((await admin(['ACL', 'USERS'])) as string[]).includes(old.username) ? true : undefined),
      'the earlier user removed on release',
      30_000,
    );
    assert.equal(await admin(['EXISTS', `${old.keyPrefix}k`]), 0, 'and its keys');
  });

  test('Retain keeps user and keys; Recycle deletes the keys and keeps the user', async () => {
    await apply(
      claim('kept', '{resourceSelector: {matchLabels: {pool: redis-keep}}}') +
        '---\n' +
        claim('recycled', '{resourceSelector: {matchLabels: {pool: redis-recycle}}}'),
    );
    await Promise.all([boundAndReady('kept'), boundAndReady('recycled')]);
    const kept = await secretOf('app', 'kept');
    const rec = await secretOf('app', 'recycled');
    await run(kept, ['SET', `${kept.keyPrefix}k`, '1']);
    await run(rec, ['SET', `${rec.keyPrefix}k`, '1']);
    await Promise.all([deleteClaim('kept'), deleteClaim('recycled')]);
    const users = (await admin(['ACL', 'USERS'])) as string[];
    assert.ok(users.includes(kept.username), 'Retain keeps the user');
    assert.equal(await admin(['GET', `${kept.keyPrefix}k`]), '1', 'Retain keeps the keys');
    assert.ok(users.includes(rec.username), 'Recycle keeps the user');
    assert.equal(await admin(['EXISTS', `${rec.keyPrefix}k`]), 0, 'Recycle deletes the keys');
  });

  test('a class provisions a dedicated redis-server; a killed one is restarted with its data; Delete removes it', async () => {
    await apply(`apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: dedicated-redis, namespace: ${SYS}}
supportedResources: [RedisCluster.v1alpha1.cache.conductor.io]
rebindPolicy: Delete
providerRef: {name: local}
template:
  apiVersion: cache.local.conductor.io/v1alpha1
  kind: LocalRedisInstance
  spec: {}
`);
    await apply(claim('sessions', '{resourceClass: dedicated-redis, evictionPolicy: allkeys-lru}'));
    const c = await boundAndReady('sessions');
    assert.equal(c.status.resourceRef.kind, 'LocalRedisInstance');
    const d = await secretOf('app', 'sessions');
    assert.notEqual(Number(d.port), redis.port, 'a server of its own');
    assert.equal(await run(d, ['SET', 'session:1', 'alice']), 'OK');
    await run(d, ['SAVE']); // appendfsync everysec may hold the last second back from a SIGKILL
    assert.deepEqual(await run(d, ['CONFIG', 'GET', 'maxmemory-policy']), { 'maxmemory-policy': 'allkeys-lru' }, 'the claim eviction policy');

    const resource = await get(localPath(c.status.resourceRef.name));
    const pid = resource.status.atProvider.pid as number;
    process.kill(pid, 'SIGKILL');
    const restarted = await eventually(
      async () => {
        const r = await get(localPath(c.status.resourceRef.name));
        const now = r.status?.atProvider?.pid;
        return now && now !== pid && r.status?.atProvider?.running ? r : undefined;
      },
      'the killed server to be restarted',
      30_000,
    );
    assert.ok(restarted);
    assert.equal(await eventually(async () => run(d, ['GET', 'session:1']), 'the data after a restart', 10_000), 'alice');

    await deleteClaim('sessions');
    await eventually(
      async () => ((await api.request('GET', localPath(c.status.resourceRef.name))).status === 404 ? true : undefined),
      'the resource to be deleted',
      30_000,
    );
    await assert.rejects(run(d, ['PING']), 'the dedicated server is gone');
  });

  test('Recycle on a dedicated instance empties it and gives it a new password; Retain keeps it', async () => {
    await apply(`apiVersion: cache.local.conductor.io/v1alpha1
kind: LocalRedisInstance
metadata: {name: recycled-redis, namespace: ${SYS}}
spec: {rebindPolicy: Recycle, providerRef: {name: local}}
---
apiVersion: cache.local.conductor.io/v1alpha1
kind: LocalRedisInstance
metadata: {name: retained-redis, namespace: ${SYS}}
spec: {rebindPolicy: Retain, providerRef: {name: local}}
`);
    await apply(claim('tenant-1', '{resourceName: recycled-redis}') + '---\n' + claim('tenant-2', '{resourceName: retained-redis}'));
    await Promise.all([boundAndReady('tenant-1'), boundAndReady('tenant-2')]);
    const first = await secretOf('app', 'tenant-1');
    const second = await secretOf('app', 'tenant-2');
    await run(first, ['SET', 'secret', 'tenant-1 data']);
    await run(second, ['SET', 'secret', 'tenant-2 data']);
    await Promise.all([deleteClaim('tenant-1'), deleteClaim('tenant-2')]);
    await eventually(
      async () => ((await get(localPath('recycled-redis'))).status?.phase === 'Available' ? true : undefined),
      'the recycled instance to be Available',
    );
    await assert.rejects(run(first, ['PING']), "the previous claim's password no longer works");
    const fresh = await eventually(
      async () => {
        const s = await secretOf(SYS, 'recycled-redis-connection');
        return s.password !== first.password ? s : undefined;
      },
      "the instance's connection Secret with its new password",
      20_000,
    );
    assert.equal(await run(fresh, ['DBSIZE']), 0, 'Recycle empties it');
    await eventually(
      async () => ((await get(localPath('retained-redis'))).status?.phase === 'Released' ? true : undefined),
      'the retained instance to be Released',
    );
    assert.equal(await run(second, ['GET', 'secret']), 'tenant-2 data', 'Retain keeps the server and its data');
    await kubectlOk(server, ['delete', 'localredisinstances', '--all', '-n', SYS, '--timeout=60s']);
  });
});
