/**
 * The reliability campaign, short: a few SIGKILLs of the server (one at each crash window of
 * the local servers and one at a random moment) while dedicated PostgreSQL, MariaDB and Redis
 * servers are provisioned through claims and deleted; after each restart and after the final
 * delete the invariants of test/support/chaos.ts must hold. `npm run chaos` is the long run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runChaos } from '../support/chaos.js';

// Its own timeout: four kill-and-recover rounds, each allowed up to recoveryTimeoutMs (a full run
// takes ~15 s, but the runner's 120 s default could cut a legitimately slow recovery short).
test(
  'SIGKILLs while dedicated servers are provisioned and deleted leave one resource per claim, one server per resource, working Secrets, and nothing after the delete',
  { timeout: 600_000 },
  async (t) => {
    const lines: string[] = [];
    const result = await runChaos({
      kills: 4,
      windows: ['local.spawned-before-pid-recorded', 'local.removing-instance-dir', 'random'],
      cycle: true,
      keep: 1,
      maxRandomDelayMs: 4_000,
      recoveryTimeoutMs: 120_000,
      log: (line) => lines.push(line),
    });
    for (const line of lines) t.diagnostic(line);
    const fired = result.kills.filter((k) => k.window !== 'random' && k.fired).map((k) => k.window);
    assert.deepEqual(
      [...new Set(fired)].sort(),
      ['local.removing-instance-dir', 'local.spawned-before-pid-recorded'],
      `every crash window was reached\n${lines.join('\n')}`,
    );
    const failed = result.kills.filter((k) => k.failures.length > 0);
    assert.deepEqual(
      failed.map((k) => `round ${k.round} (${k.window}): ${k.failures.join('; ')}`),
      [],
      `seed ${result.seed}\n${lines.join('\n')}`,
    );
    assert.deepEqual(result.finalFailures, [], `seed ${result.seed}\n${lines.join('\n')}`);
  },
);
