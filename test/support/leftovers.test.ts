import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instanceRoots, killLeftovers } from './leftovers.js';
import { eventually } from './eventually.js';

test('killLeftovers finds a server in the /var/tmp instance root a root Conductor uses, not only under the data dir', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leftovers-'));
  const [underData, varTmp] = instanceRoots(dataDir, 'redis');
  assert.equal(underData, join(dataDir, 'providers', 'local', 'redis'));
  assert.match(varTmp, /^\/var\/tmp\/conductor-redis-[0-9a-f]{12}$/);
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', (_code, signal) => r(signal)));
  try {
    mkdirSync(join(varTmp, 'app_cache'), { recursive: true });
    writeFileSync(join(varTmp, 'app_cache', 'redis.pid'), `${child.pid}\n`);
    assert.deepEqual(killLeftovers(dataDir, 'redis', 'redis.pid'), [child.pid]);
    assert.equal(await eventually(async () => exited, 'the left-over process ends'), 'SIGKILL');
  } finally {
    child.kill('SIGKILL');
    rmSync(varTmp, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});
