import { resolveServerRunAs } from '../process/run-as.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import type { ConnectionDetails } from '../../spi.js';
import { isAlive, waitForExit } from '../process/processes.js';
import { resolveMariaDbBinaries, type MariaDbBinaries } from './binaries.js';
import type { LocalMySQLInstance } from './kinds.js';
import { LocalMySQLInstanceClient, localMySQLInstanceConcreteKind } from './local-instance.js';
import { adminConfig, MariaDbServers } from './local-servers.js';
import { smallServerArgs } from './testing.js';
import { fixture } from '../../testing.js';

const resource: LocalMySQLInstance = fixture<LocalMySQLInstance>({
  apiVersion: 'database.local.conductor.io/v1alpha1',
  kind: 'LocalMySQLInstance',
  metadata: { namespace: 'sys', name: 'dedicated' },
  spec: { databaseName: 'shop', masterUsername: 'shopper', version: '>= 5.6' },
});

const query = async (d: ConnectionDetails, sql: string) => {
  const c = await mysql.createConnection({ host: d.host, port: Number(d.port), user: d.username, password: d.password, database: d.database });
  try {
    const [rows] = await c.query(sql);
    return rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
};

describe('LocalMySQLInstance with a real mariadbd', () => {
  let root: string;
  let binaries: MariaDbBinaries;
  let servers: MariaDbServers;
  let client: LocalMySQLInstanceClient;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'conductor-mysql-test-'));
    binaries = await resolveMariaDbBinaries();
    servers = new MariaDbServers({ root, binaries, serverArgs: smallServerArgs, runAs: await resolveServerRunAs('mariadb') });
    client = new LocalMySQLInstanceClient(servers, binaries);
  });
  after(async () => {
    await servers?.stopAll();
    await servers?.remove(servers.dirFor('sys', 'dedicated')).catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  test('observe before create: nothing exists', async () => {
    assert.deepEqual(await client.observe(resource), { exists: false, upToDate: false });
  });

  test('create starts a server whose details log in as the claim user', async () => {
    const created = await client.create(resource);
    assert.equal(created.externalName, 'sys_dedicated');
    const d = created.connectionDetails!;
    assert.equal(d.database, 'shop');
    assert.deepEqual(await query(d, 'SELECT CURRENT_USER() AS u, DATABASE() AS db'), [{ u: 'shopper@%', db: 'shop' }]);
    await query(d, 'CREATE TABLE items (x INT)');
    const seen = await client.observe(resource);
    assert.equal(seen.upToDate, true);
    assert.match(String(seen.atProvider?.version), /MariaDB/);
    assert.deepEqual(seen.connectionDetails, d);
  });

  test('drift: a killed server is reported and restarted on the same port with the same password', async () => {
    const before = (await client.observe(resource)).connectionDetails!;
    const status = await servers.status(servers.dirFor('sys', 'dedicated'));
    process.kill(status.pid!, 'SIGKILL');
    // A killed server is gone a moment after the signal (before that, connections are reset).
    assert.ok(await waitForExit(status.pid!, 5000), 'the killed mariadbd exits');
    const seen = await client.observe(resource);
    assert.equal(seen.upToDate, false);
    assert.equal(seen.drift, 'the MariaDB server process is not running');
    const updated = await client.update(resource);
    assert.deepEqual(updated.connectionDetails, before);
    assert.equal((await query(before, 'SHOW TABLES')).length, 1, 'the data survived');
  });

  test('drift: a user dropped by hand is reported and recreated', async () => {
    const status = await servers.status(servers.dirFor('sys', 'dedicated'));
    const admin = await mysql.createConnection(adminConfig(status.state!, status.port!));
    await admin.query("DROP USER 'shopper'@'%'");
    await admin.end();
    const seen = await client.observe(resource);
    assert.equal(seen.drift, 'user "shopper" missing');
    const { connectionDetails } = await client.update(resource);
    await query(connectionDetails!, 'SELECT 1');
  });

  test('a new supervisor adopts the running server instead of starting another', async () => {
    const dir = servers.dirFor('sys', 'dedicated');
    const pid = (await servers.status(dir)).pid!;
    const again = new MariaDbServers({ root, binaries, serverArgs: smallServerArgs, runAs: await resolveServerRunAs('mariadb') });
    const got = await again.ensureRunning(dir, { namespace: 'sys', name: 'dedicated' });
    assert.equal(got.pid, pid);
    assert.equal(got.started, false);
  });

  test('scrub empties the database and rotates the password', async () => {
    const old = (await client.observe(resource)).connectionDetails!;
    await client.scrub(resource);
    const fresh = (await client.observe(resource)).connectionDetails!;
    assert.notEqual(fresh.password, old.password);
    assert.equal((await query(fresh, 'SHOW TABLES')).length, 0);
    await assert.rejects(query(old, 'SELECT 1'), /denied/);
  });

  test('a version the binaries do not satisfy is refused with both versions named', async () => {
    await assert.rejects(
      client.create({ ...resource, spec: { ...resource.spec, version: '>= 8.0' } }),
      /asks for version ">= 8.0" but .* is 10\.\d+\.\d+-MariaDB/,
    );
  });

  test('delete stops the server and removes its directory; twice is fine', async () => {
    const dir = servers.dirFor('sys', 'dedicated');
    const pid = (await servers.status(dir)).pid!;
    await client.delete(resource);
    await client.delete(resource);
    assert.equal(await isAlive(pid), false);
    await assert.rejects(stat(dir), /ENOENT/);
  });

  test('without binaries the kind stays usable for matching and says why it cannot connect', async () => {
    const kind = localMySQLInstanceConcreteKind(undefined, undefined, 'mariadbd not found in /nowhere');
    await assert.rejects(kind.connector.connect(resource, {}), /LocalMySQLInstance is unavailable on this machine: mariadbd not found in \/nowhere/);
  });
});
