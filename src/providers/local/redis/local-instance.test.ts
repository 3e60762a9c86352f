import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../../../test/support/eventually.js';
import { isAlive, waitForExit } from '../process/processes.js';
import { withRedis } from './admin.js';
import { resolveRedisBinary } from './binaries.js';
import type { LocalRedisInstance } from './kinds.js';
import { LocalRedisClient, localRedisInstanceConcreteKind, maxMemoryBytes } from './local-instance.js';
import { RedisServers } from './local-servers.js';
import { fixture } from '../../testing.js';

describe('maxMemoryBytes', () => {
  const cases = [
    { reason: 'absent means unlimited', input: undefined, want: 0 },
    { reason: 'plain bytes', input: '1024', want: 1024 },
    { reason: 'megabytes', input: '64mb', want: 64 * 1024 * 1024 },
    { reason: 'units are case-insensitive', input: '1GB', want: 1024 ** 3 },
    { reason: 'garbage is not a number', input: 'lots', want: Number.NaN },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(maxMemoryBytes(c.input), c.want));
});

describe('localRedisInstanceConcreteKind without redis-server', () => {
  test('stays registered and says why it cannot connect', async () => {
    const kind = localRedisInstanceConcreteKind(undefined, undefined, 'cannot find redis-server');
    assert.equal(kind.kind, 'LocalRedisInstance');
    await assert.rejects(kind.connector.connect({} as LocalRedisInstance, {}), /unavailable on this machine: cannot find redis-server/);
  });
});

describe('LocalRedisInstance on a real redis-server', () => {
  let root: string;
  let servers: RedisServers;
  let client: LocalRedisClient;
  const resource = (spec: Record<string, unknown> = {}): LocalRedisInstance =>
    fixture<LocalRedisInstance>({
      apiVersion: 'cache.local.conductor.io/v1alpha1',
      kind: 'LocalRedisInstance',
      metadata: { namespace: 'sys', name: 'inst' },
      spec,
    });
  const as = (d: Record<string, string>, args: string[]) =>
    withRedis({ host: d.host, port: Number(d.port), username: d.username, password: d.password }, (r) => r.send(args));

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'conductor-localredis-test-'));
    const binary = await resolveRedisBinary();
    servers = new RedisServers({ root, binary });
    client = new LocalRedisClient(servers, binary);
  });
  after(async () => {
    await servers.stopAll();
    await rm(root, { recursive: true, force: true });
  });

  test('create, observe, drift, scrub and delete', async () => {
    assert.equal((await client.observe(resource())).exists, false);
    const created = await client.create(resource({ evictionPolicy: 'allkeys-lru' }));
    const details = created.connectionDetails!;
    assert.equal(details.username, 'default');
    assert.equal(details.keyPrefix, undefined, 'no prefix on a dedicated instance');
    assert.equal(await as(details, ['SET', 'k', 'v']), 'OK');
    const seen = await client.observe(resource({ evictionPolicy: 'allkeys-lru' }));
    assert.equal(seen.upToDate, true);
    assert.equal(seen.atProvider?.evictionPolicy, 'allkeys-lru');

    // A changed spec is drift, corrected in place.
    const changed = resource({ evictionPolicy: 'volatile-ttl', maxMemory: '64mb' });
    assert.match((await client.observe(changed)).drift ?? '', /maxmemory-policy is "allkeys-lru", spec wants "volatile-ttl"/);
    await client.update(changed);
    assert.equal((await client.observe(changed)).upToDate, true);

    // A killed server is drift, and update starts it again with its data.
    const pid = (await client.observe(changed)).atProvider?.pid as number;
    process.kill(pid, 'SIGKILL');
    await waitForExit(pid, 5000);
    assert.match((await client.observe(changed)).drift ?? '', /not running/);
    const updated = await client.update(changed);
    assert.equal(await as(updated.connectionDetails!, ['GET', 'k']), 'v');

    // Scrub: new password, old clients out, no data.
    await client.scrub(changed);
    await assert.rejects(as(details, ['PING']), 'the previous password no longer works');
    const fresh = (await client.observe(changed)).connectionDetails!;
    assert.notEqual(fresh.password, details.password);
    assert.equal(await as(fresh, ['DBSIZE']), 0);

    await client.delete(changed);
    assert.equal((await client.observe(changed)).exists, false);
    await assert.rejects(as(fresh, ['PING']), 'the server is gone');
  });
});

describe('LocalRedisInstance: a start that cannot finish', () => {
  let root: string;
  let servers: RedisServers;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'conductor-localredis-abort-'));
  });
  after(async () => {
    await servers?.stopAll();
    await rm(root, { recursive: true, force: true });
  });

  test("is cancelled through the call's signal: create rejects with the abort reason and the redis-server process is gone", async () => {
    const real = await resolveRedisBinary();
    // The real redis-server, told to listen on a Unix socket instead of its TCP port: it runs, but its port never answers.
    const noPort = join(root, 'redis-server-without-port');
    await writeFile(noPort, `#!/bin/sh\nexec '${real.path}' "$@" --port 0 --unixsocket redis.sock\n`, { mode: 0o755 });
    const binary = { path: noPort, version: real.version };
    servers = new RedisServers({ root: join(root, 'instances'), binary, startTimeoutMs: 600_000 });
    const client = new LocalRedisClient(servers, binary);
    const resource: LocalRedisInstance = {
      apiVersion: 'cache.local.conductor.io/v1alpha1',
      kind: 'LocalRedisInstance',
      metadata: { namespace: 'sys', name: 'stuck' },
      spec: { rebindPolicy: 'Delete', managementPolicy: 'Full' },
    };
    const deadline = new AbortController();
    const creating = client.create(resource, { signal: deadline.signal });
    creating.catch(() => {}); // awaited below
    const pidFile = join(servers.dirFor('sys', 'stuck'), 'redis.pid');
    const pid = await eventually(async () => {
      const p = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
      return p > 0 && (await isAlive(p)) ? p : undefined;
    }, 'the redis-server process started');
    deadline.abort(new Error('the deadline passed'));
    await eventually(async () => !(await isAlive(pid)), `redis-server ${pid} gone after the abort`, 30_000);
    await assert.rejects(creating, /the deadline passed/);
    await assert.rejects(readFile(pidFile, 'utf8'), /ENOENT/, 'the pid file of the killed server is removed');
  });
});
