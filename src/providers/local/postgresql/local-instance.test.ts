import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import pg from 'pg';
import type { ConnectionDetails, ExternalClient } from '../../spi.js';
import { createLocalProvider, type LocalProvider } from '../local-provider.js';
import type { LocalPostgreSQLInstance } from './kinds.js';
import { freePort, isAlive, waitForExit } from '../process/processes.js';
import { tempDataDir } from './testing.js';
import { fixture } from '../../testing.js';

async function query(details: ConnectionDetails, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: details.uri, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function instance(name: string, spec: Record<string, unknown> = {}): LocalPostgreSQLInstance {
  return fixture<LocalPostgreSQLInstance>({
    apiVersion: 'database.local.conductor.io/v1alpha1',
    kind: 'LocalPostgreSQLInstance',
    metadata: { namespace: 'conductor-system', name },
    spec,
  });
}

function kindOf(provider: LocalProvider) {
  const kind = provider.kinds.find((k) => k.kind === 'LocalPostgreSQLInstance');
  assert.ok(kind);
  return kind;
}

describe('LocalPostgreSQLInstance with real server processes', { timeout: 120_000 }, () => {
  let dataDir: string;
  let provider: LocalProvider;
  let client: ExternalClient<LocalPostgreSQLInstance>;
  const resource = instance('orders-db', { masterUsername: 'orders', databaseName: 'orders' });

  before(async () => {
    dataDir = await tempDataDir('conductor-local-');
    provider = await createLocalProvider({ dataDir, fastInitdb: true, env: {} });
    assert.equal(provider.postgresUnavailable, undefined);
    client = await kindOf(provider).connector.connect(resource, {});
  });

  after(async () => {
    await client?.delete(resource).catch(() => {});
    await provider?.stopAll();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('lifecycle: create, use, kill -9, drift, restart with data kept, delete', async () => {
    assert.deepEqual(await client.observe(resource), { exists: false, upToDate: false });

    const created = await client.create(resource);
    assert.equal(created.externalName, 'conductor-system_orders-db');
    const details = created.connectionDetails!;
    assert.equal(details.username, 'orders');
    assert.equal(details.database, 'orders');
    assert.equal(details.host, '127.0.0.1');
    await query(details, 'CREATE TABLE notes (body text)');
    await query(details, "INSERT INTO notes VALUES ('kept across restarts')");

    const again = await client.create(resource);
    assert.deepEqual(again.connectionDetails, details, 'create is idempotent');

    const healthy = await client.observe(resource);
    assert.equal(healthy.exists, true);
    assert.equal(healthy.upToDate, true, healthy.drift);
    assert.equal(healthy.atProvider?.running, true);
    assert.equal(healthy.atProvider?.version, provider.postgresBinaries!.version);
    assert.deepEqual(healthy.connectionDetails, details);
    const dir = join(dataDir, 'providers', 'local', 'postgresql', 'conductor-system_orders-db');
    assert.equal(healthy.atProvider?.directory, dir);
    assert.equal(Number(await readFile(join(dir, 'postgres.pid'), 'utf8')), healthy.atProvider?.pid);

    const pid = healthy.atProvider?.pid as number;
    process.kill(pid, 'SIGKILL');
    assert.ok(await waitForExit(pid, 10_000));
    assert.ok(await exists(join(dir, 'data', 'postmaster.pid')), 'a killed server leaves its lock file behind');

    const drifted = await client.observe(resource);
    assert.equal(drifted.exists, true);
    assert.equal(drifted.upToDate, false);
    assert.match(drifted.drift ?? '', /not running/);

    const updated = await client.update(resource);
    assert.deepEqual(updated.connectionDetails, details, 'the restarted server keeps its port and passwords');
    assert.deepEqual((await query(details, 'SELECT body FROM notes')).rows, [{ body: 'kept across restarts' }]);
    const restarted = await client.observe(resource);
    assert.equal(restarted.upToDate, true);
    assert.notEqual(restarted.atProvider?.pid, pid);

    // Killed and restarted at once: the dying process must not pass for a running server.
    process.kill(restarted.atProvider?.pid as number, 'SIGKILL');
    const immediately = await client.update(resource);
    assert.deepEqual((await query(immediately.connectionDetails!, 'SELECT body FROM notes')).rows, [{ body: 'kept across restarts' }]);
    const final = await client.observe(resource);
    assert.equal(final.upToDate, true);

    await client.delete(resource);
    assert.equal(await isAlive(final.atProvider?.pid as number), false, 'the server process is gone');
    assert.equal(await exists(dir), false, 'the directory is gone');
    await client.delete(resource);
    assert.deepEqual(await client.observe(resource), { exists: false, upToDate: false });
  });

  test('a new provider over the same data directory adopts a running server; stopAll stops it', async () => {
    const r = instance('adopted');
    const first = await client.create(r);
    const before = await client.observe(r);

    const second = await createLocalProvider({ dataDir, fastInitdb: true, env: {} });
    const other = await kindOf(second).connector.connect(r, {});
    const seen = await other.observe(r);
    assert.equal(seen.upToDate, true);
    assert.equal(seen.atProvider?.pid, before.atProvider?.pid, 'the same process, adopted');
    assert.deepEqual(second.postgresServers!.trackedPids(), [before.atProvider?.pid]);
    assert.deepEqual(seen.connectionDetails, first.connectionDetails);

    await second.stopAll();
    assert.equal(await isAlive(before.atProvider?.pid as number), false);
    assert.equal((await client.observe(r)).upToDate, false);

    // A lock file naming a live process that is not this server (a reused pid) is stale too.
    const dir = second.postgresServers!.dirFor('conductor-system', 'adopted');
    const stranger = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, 'data', 'postmaster.pid'), `${stranger.pid}\n${join(dir, 'data')}\n0\n1\n\n127.0.0.1\n0 0\nready\n`);
      await writeFile(join(dir, 'postgres.pid'), `${stranger.pid}\n`);
      const recovered = await client.create(r);
      assert.deepEqual(recovered.connectionDetails, first.connectionDetails);
      await query(recovered.connectionDetails!, 'SELECT 1');
    } finally {
      stranger.kill();
    }
    await client.delete(r);
  });

  test('scrub empties the database and rotates the password', async () => {
    const r = instance('recycled');
    const { connectionDetails: old } = await client.create(r);
    await query(old!, 'CREATE TABLE t (x int)');
    await client.scrub!(r);
    await client.scrub!(r);
    const fresh = await client.observe(r);
    assert.equal(fresh.upToDate, true);
    assert.notEqual(fresh.connectionDetails?.password, old!.password);
    await assert.rejects(query(old!, 'SELECT 1'), /password authentication failed/);
    const tables = await query(fresh.connectionDetails!, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
    assert.deepEqual(tables.rows, [{ n: 0 }]);
    await client.delete(r);
  });

  test('an interrupted initdb is redone; a pinned port is used and a changed one is drift', async () => {
    const [first, second] = [await freePort(), await freePort()];
    const r = instance('pinned', { port: first });
    const dir = provider.postgresServers!.dirFor('conductor-system', 'pinned');
    // What a crash in the middle of initdb leaves: a half-built data directory.
    await mkdir(join(dir, 'data.init'), { recursive: true });
    await writeFile(join(dir, 'data.init', 'PG_VERSION'), 'junk');
    const created = await client.create(r);
    assert.equal(created.connectionDetails?.port, String(first));
    assert.equal(await exists(join(dir, 'data.init')), false);

    const moved = instance('pinned', { port: second });
    const drifted = await client.observe(moved);
    assert.equal(drifted.upToDate, false);
    assert.equal(drifted.drift, `the server listens on port ${first}, spec.port is ${second}`);
    const updated = await client.update(moved);
    assert.equal(updated.connectionDetails?.port, String(second));
    await query(updated.connectionDetails, 'SELECT 1');
    assert.equal((await client.observe(moved)).upToDate, true);
    await client.delete(moved);
  });

  test('discover lists instance directories; a version the binaries cannot serve is refused', async () => {
    const r = instance('listed');
    await client.create(r);
    const found = await client.discover!();
    assert.deepEqual(
      found.map((d) => [d.externalName, d.namespace, d.name]),
      [['conductor-system_listed', 'conductor-system', 'listed']],
    );
    await client.delete(r);

    const major = Number(provider.postgresBinaries!.version.split('.')[0]);
    const old = instance('too-old', { version: String(major - 1) });
    await assert.rejects(client.create(old), new RegExp(`asks for PostgreSQL "${major - 1}" but the binaries`));
    assert.deepEqual(await client.observe(old), { exists: false, upToDate: false });
  });
});
