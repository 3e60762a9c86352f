import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isAlive, KeyedMutex, portIsFree, processDirectory, readTail, sleep, writeFileAtomic } from './processes.js';
import { createServer } from 'node:net';

describe('processes', () => {
  test('isAlive tells a live process from a missing one', async () => {
    assert.equal(await isAlive(process.pid), true);
    assert.equal(await isAlive(2 ** 22 + 17), false);
    assert.equal(await isAlive(-1), false);
    assert.equal(await processDirectory(process.pid), process.cwd());
  });

  test('freePort gives a port that portIsFree agrees on, until someone listens', async () => {
    const port = await freePort();
    assert.equal(await portIsFree(port), true);
    const server = createServer();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    try {
      assert.equal(await portIsFree(port), false);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  test('KeyedMutex runs one function per key at a time, keys independently, and survives failures', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const step = (key: string, name: string, ms: number, fail = false) =>
      mutex.run(key, async () => {
        log.push(`start ${name}`);
        await sleep(ms);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([step('a', 'a1', 30, true), step('a', 'a2', 1), step('b', 'b1', 5)]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'fulfilled'],
    );
    assert.ok(log.indexOf('end a1') < log.indexOf('start a2'), log.join(','));
    assert.ok(log.indexOf('start b1') < log.indexOf('end a1'), 'another key does not wait');
  });

  test('writeFileAtomic replaces content and leaves no temporary file; readTail reads the last lines', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'atomic-'));
    try {
      const file = join(dir, 'state.json');
      await writeFileAtomic(file, 'one\n');
      await writeFileAtomic(file, 'line 1\nline 2\nline 3\n');
      assert.equal(await readFile(file, 'utf8'), 'line 1\nline 2\nline 3\n');
      assert.deepEqual(await readdir(dir), ['state.json']);
      assert.equal(await readTail(file, 2), 'line 2\nline 3');
      assert.equal(await readTail(join(dir, 'missing')), '');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
