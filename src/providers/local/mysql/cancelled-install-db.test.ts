import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { eventually } from '../../../../test/support/eventually.js';
import { processCommand, processesIn } from '../process/processes.js';
import { resolveServerRunAs } from '../process/run-as.js';
import { processGone, processGroup } from '../process/testing.js';
import { resolveMariaDbBinaries } from './binaries.js';
import { MariaDbServers } from './local-servers.js';
import { smallServerArgs } from './testing.js';

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('LocalMySQLInstance: a start cancelled while mariadb-install-db runs', { timeout: 120_000 }, () => {
  let root: string;
  let servers: MariaDbServers | undefined;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'conductor-mariadb-install-abort-'));
  });
  after(async () => {
    await servers?.stopAll();
    await rm(root, { recursive: true, force: true });
  });

  test("kills mariadb-install-db and the mariadbd it runs, and rejects with the signal's reason", async () => {
    const binaries = await resolveMariaDbBinaries();
    const installDb = basename(binaries.installDb);
    servers = new MariaDbServers({ root, binaries, serverArgs: smallServerArgs, runAs: await resolveServerRunAs('mariadb') });
    const dir = servers.dirFor('sys', 'stuck');
    const call = new AbortController();
    const starting = servers.ensureRunning(dir, { namespace: 'sys', name: 'stuck' }, call.signal);
    starting.catch(() => {}); // awaited below
    // The install script (run by a shell, which changes directory) leads the group it and its mariadbd share.
    const datadir = `--datadir=${join(dir, 'data.init')}`;
    const install = await eventually(
      async () => {
        for (const entry of await readdir('/proc')) {
          const argv = /^\d+$/.test(entry) ? await processCommand(Number(entry)) : undefined;
          if (argv?.some((arg) => basename(arg) === installDb) && argv.includes(datadir)) return Number(entry);
        }
        return undefined;
      },
      `${installDb} running`,
      90_000,
      20,
    );
    call.abort();
    await assert.rejects(starting, (err: Error) => err.name === 'AbortError');
    assert.equal(await exists(join(dir, 'data')), false, `${installDb} was stopped before it finished: no data directory was made`);
    await eventually(() => processGone(install), `${installDb} ${install} gone after the abort`, 30_000);
    await eventually(async () => (await processGroup(install)).length === 0, `every process ${installDb} started gone`, 30_000);
    await eventually(async () => (await processesIn(dir)).length === 0, `no process left running in ${dir}`, 30_000);
  });
});
