import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowaway } from './throwaway.js';

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('startThrowaway', () => {
  test('returns what start returns; stop removes the server and the root', async () => {
    const root = await mkdtemp(join(tmpdir(), 'throwaway-test-'));
    const removed: string[] = [];
    const server = await startThrowaway(root, { remove: async (dir) => void removed.push(dir) }, `${root}/server`, async () => ({ port: 5433 }));
    assert.equal(server.port, 5433);
    assert.ok(await exists(root));
    await server.stop();
    assert.deepEqual(removed, [`${root}/server`]);
    assert.equal(await exists(root), false);
  });

  test('a failed start removes what it left and passes the error on', async () => {
    const root = await mkdtemp(join(tmpdir(), 'throwaway-test-'));
    const removed: string[] = [];
    await assert.rejects(
      startThrowaway(root, { remove: async (dir) => void removed.push(dir) }, `${root}/server`, () => Promise.reject(new Error('initdb failed'))),
      /initdb failed/,
    );
    assert.deepEqual(removed, [`${root}/server`]);
    assert.equal(await exists(root), false);
  });
});
