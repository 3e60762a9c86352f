import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RebindPolicy } from './spi.js';
import { releaseShare } from './rebind.js';

describe('releaseShare', () => {
  const run = async (policy: string): Promise<string[]> => {
    const done: string[] = [];
    await releaseShare(policy as RebindPolicy, { recycle: () => void done.push('recycle'), delete: async () => void done.push('delete') });
    return done;
  };
  for (const c of [
    { reason: 'Retain leaves the share as it is', policy: 'Retain', want: [] },
    { reason: 'Recycle empties it', policy: 'Recycle', want: ['recycle'] },
    { reason: 'Delete removes it', policy: 'Delete', want: ['delete'] },
  ]) {
    test(c.reason, async () => assert.deepEqual(await run(c.policy), c.want));
  }
  test('a policy outside the three is refused, naming the ones there are', async () => {
    await assert.rejects(run('Keep'), /rebind policy "Keep" is not supported: want Retain, Delete or Recycle/);
  });
  test("an action's failure is the caller's failure", async () => {
    await assert.rejects(releaseShare('Delete', { recycle: () => {}, delete: () => Promise.reject(new Error('cannot drop')) }), /cannot drop/);
  });
});
