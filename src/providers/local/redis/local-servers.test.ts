import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, waitForExit } from '../process/processes.js';
import { withRedis } from './admin.js';
import { resolveRedisBinary, type RedisBinary } from './binaries.js';
import { RedisServers, renderRedisConfig } from './local-servers.js';

describe('renderRedisConfig', () => {
  test('listens on 127.0.0.1 only, with the password and eviction settings', () => {
    const text = renderRedisConfig({ namespace: 'a', name: 'b', port: 7000, password: 'pw', createdAt: '' }, '/d', {
      evictionPolicy: 'allkeys-lru',
      maxMemory: '64mb',
    });
    assert.match(text, /^bind 127\.0\.0\.1$/m);
    assert.match(text, /^port 7000$/m);
    assert.match(text, /^requirepass "pw"$/m);
    assert.match(text, /^maxmemory-policy allkeys-lru$/m);
    assert.match(text, /^maxmemory 64mb$/m);
  });
  test('defaults to noeviction and no memory limit', () => {
    const text = renderRedisConfig({ namespace: 'a', name: 'b', port: 7000, password: 'pw', createdAt: '' }, '/d', {});
    assert.match(text, /^maxmemory-policy noeviction$/m);
    assert.match(text, /^maxmemory 0$/m);
  });
});

describe('RedisServers on a real redis-server', () => {
  let root: string;
  let binary: RedisBinary;
  let servers: RedisServers;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'conductor-redis-test-'));
    binary = await resolveRedisBinary();
    servers = new RedisServers({ root, binary });
  });
  after(async () => {
    await servers.remove(servers.dirFor('t', 'one')).catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  test('starts a server that requires its password, keeps data, and is adopted by a new supervisor', async () => {
    const dir = servers.dirFor('t', 'one');
    const first = await servers.ensureRunning(dir, { namespace: 't', name: 'one' }, { evictionPolicy: 'allkeys-lru' });
    assert.equal(first.started, true);
    await assert.rejects(
      withRedis({ host: '127.0.0.1', port: first.port }, (r) => r.send(['GET', 'x'])),
      'no password, no access',
    );
    await withRedis({ host: '127.0.0.1', port: first.port, password: first.state.password }, async (r) => {
      await r.send(['SET', 'k', 'v']);
      await r.send(['SAVE']); // appendfsync everysec may hold the last second back from a SIGKILL
    });
    assert.match(await readFile(join(dir, 'redis.conf'), 'utf8'), /maxmemory-policy allkeys-lru/);

    const again = new RedisServers({ root, binary });
    const adopted = await again.ensureRunning(dir, { namespace: 't', name: 'one' }, { evictionPolicy: 'allkeys-lru' });
    assert.equal(adopted.started, false, 'the running server is adopted, not started twice');
    assert.equal(adopted.pid, first.pid);
    assert.deepEqual(again.trackedPids(), [first.pid]);

    process.kill(first.pid, 'SIGKILL');
    await waitForExit(first.pid, 5000);
    assert.equal((await again.status(dir)).running, false);
    const restarted = await again.ensureRunning(dir, { namespace: 't', name: 'one' }, { evictionPolicy: 'allkeys-lru' });
    assert.equal(restarted.started, true);
    assert.equal(restarted.port, first.port, 'the port is kept');
    const value = await withRedis({ host: '127.0.0.1', port: restarted.port, password: restarted.state.password }, (r) => r.send(['GET', 'k']));
    assert.equal(value, 'v', 'the append-only file kept the data through a kill');

    await again.remove(dir);
    assert.equal(await isAlive(restarted.pid), false);
    assert.equal((await again.status(dir)).provisioned, false);
  });
});
