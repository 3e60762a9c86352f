import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { eventually } from '../../../../test/support/eventually.js';
import { processCommand, processesIn } from '../process/processes.js';
import { resolveRunAs } from '../process/run-as.js';
import { processGone, processGroup } from '../process/testing.js';
import { LocalServers } from './local-servers.js';
import { systemOrAnyBinaries, tempDataDir } from './testing.js';

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('LocalPostgreSQLInstance: a start cancelled while initdb runs', { timeout: 120_000 }, () => {
  let root: string;
  let servers: LocalServers | undefined;
  before(async () => {
    root = await tempDataDir('conductor-pg-initdb-abort-');
  });
  after(async () => {
    await servers?.stopAll();
    await rm(root, { recursive: true, force: true });
  });

  test("kills initdb and the postgres it runs, and rejects with the signal's reason", async () => {
    const binaries = await systemOrAnyBinaries();
    // initdb with its final fsync (fastInitdb off) takes long enough to be caught running.
    servers = new LocalServers({ root: join(root, 'instances'), binaries, runAs: await resolveRunAs() });
    const dir = servers.dirFor('sys', 'stuck');
    const call = new AbortController();
    const starting = servers.ensureRunning(dir, { namespace: 'sys', name: 'stuck' }, call.signal);
    starting.catch(() => {}); // awaited below
    const initdb = await eventually(
      async () => {
        for (const pid of await processesIn(dir)) if (basename((await processCommand(pid))?.[0] ?? '') === 'initdb') return pid;
        return undefined;
      },
      'initdb running',
      90_000,
      20,
    );
    call.abort();
    await assert.rejects(starting, (err: Error) => err.name === 'AbortError');
    assert.equal(await exists(join(dir, 'data')), false, 'initdb was stopped before it finished: no data directory was made');
    await eventually(() => processGone(initdb), `initdb ${initdb} gone after the abort`, 30_000);
    await eventually(async () => (await processGroup(initdb)).length === 0, 'every process initdb started gone', 30_000);
    await eventually(async () => (await processesIn(dir)).length === 0, `no process left running in ${dir}`, 30_000);
  });
});
