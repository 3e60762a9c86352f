import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureUsage } from './usage.js';

describe('measureUsage', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'usage-test-'));
    await mkdir(join(dir, 'a', 'b'), { recursive: true });
    await writeFile(join(dir, 'one.bin'), Buffer.alloc(1000));
    await writeFile(join(dir, 'a', 'two.bin'), Buffer.alloc(200));
    await writeFile(join(dir, 'a', 'b', 'three.bin'), Buffer.alloc(30));
    await symlink('/etc', join(dir, 'link-out')); // not followed
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const cases = [
    { reason: 'a walk within the limit sees everything', limit: 100, want: { bytes: 1230, files: 3, entries: 6, complete: true } },
    { reason: 'a walk that reaches the limit stops and says so', limit: 2, want: { entries: 2, complete: false } },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const got = await measureUsage(dir, c.limit);
      for (const [k, v] of Object.entries(c.want)) assert.equal(got[k as keyof typeof got], v, k);
    });
  }

  test("a walk stops when the call's signal aborts, with the signal's reason", async () => {
    const many = join(dir, 'many');
    await mkdir(many);
    for (let i = 0; i < 2000; i++) await writeFile(join(many, `f${i}`), '');
    const call = new AbortController();
    const walking = measureUsage(many, 100_000, call.signal);
    setImmediate(() => call.abort()); // the walk has begun: it awaits one lstat per file
    await assert.rejects(walking, (err: Error) => err.name === 'AbortError');
    await rm(many, { recursive: true });
  });

  test('a missing directory measures as empty', async () => {
    assert.deepEqual(await measureUsage(join(dir, 'nope'), 10), { bytes: 0, files: 0, entries: 0, complete: true });
  });
});
