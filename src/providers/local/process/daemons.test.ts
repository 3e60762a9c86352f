import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findDaemon, isDaemonOf, startDaemon, stopDaemon } from './daemons.js';
import { findExecutable } from './executable-lookup.js';

describe('daemons', () => {
  const dirs: string[] = [];
  after(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  test('a started daemon is found through its pid file, not from another directory, and stopped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conductor-daemon-'));
    dirs.push(dir);
    const sleep = await findExecutable({ name: 'sleep' });
    const started = await startDaemon({ program: sleep, args: ['30'], cwd: dir, logFile: join(dir, 'log'), pidFile: join(dir, 'pid') });
    try {
      assert.equal(await findDaemon(join(dir, 'pid'), sleep, dir), started.pid);
      assert.equal(await isDaemonOf(started.pid, sleep, tmpdir()), false, 'another directory is another server');
      assert.equal(await isDaemonOf(started.pid, '/usr/bin/redis-server', dir), false, 'another program is another server');
    } finally {
      assert.equal(await stopDaemon(started.pid, join(dir, 'pid')), true);
    }
    assert.equal(await findDaemon(join(dir, 'pid'), sleep, dir), undefined);
  });

  test('a stale pid file is ignored and removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'conductor-daemon-'));
    dirs.push(dir);
    await writeFile(join(dir, 'pid'), '999999999\n');
    assert.equal(await findDaemon(join(dir, 'pid'), 'x', dir), undefined);
  });

  test('findExecutable: an explicit path that is not a program is an error naming its source', async () => {
    await assert.rejects(
      findExecutable({ name: 'redis-server', envVar: 'X_BIN', env: { X_BIN: '/nonexistent/redis' } }),
      /from X_BIN\) is not an executable file/,
    );
    await assert.rejects(findExecutable({ name: 'no-such-program-xyz', envVar: 'X_BIN', env: { PATH: '' } }), /cannot find no-such-program-xyz.*set X_BIN/);
  });
});
