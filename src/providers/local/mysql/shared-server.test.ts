import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import type { KObject } from '../../../machinery/object.js';
import type { ConnectionDetails } from '../../spi.js';
import type { MySQLServer } from './kinds.js';
import { mysqlServerConnector, mysqlServerKind, sharedServerShare, MySQLServerClient } from './shared-server.js';
import { startThrowawayMariaDb, type ThrowawayMariaDb } from './testing.js';

const claim = (name: string): KObject => ({ apiVersion: 'storage.conductor.io/v1alpha1', kind: 'MySQLInstance', metadata: { namespace: 'team', name, uid: `uid-${name}` }, spec: {} });

describe('MySQLServer on a real MariaDB', () => {
  let db: ThrowawayMariaDb;
  let resource: MySQLServer;
  let client: MySQLServerClient;

  const asAdmin = async <T>(fn: (c: mysql.Connection) => Promise<T>): Promise<T> => {
    const c = await mysql.createConnection({ host: db.host, port: db.port, user: db.username, password: db.password });
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  const asClaim = async (d: ConnectionDetails, sql: string) => {
    const c = await mysql.createConnection({ host: d.host, port: Number(d.port), user: d.username, password: d.password, database: d.database });
    try {
      const [rows] = await c.query(sql);
      return rows as Record<string, unknown>[];
    } finally {
      await c.end();
    }
  };
  const withBindings = (...names: string[]): MySQLServer => ({
    ...resource,
    status: { bindings: names.map((name) => ({ claimRef: { namespace: 'team', name, uid: `uid-${name}` } })) },
  });

  before(async () => {
    db = await startThrowawayMariaDb();
    resource = {
      apiVersion: 'database.local.conductor.io/v1alpha1',
      kind: 'MySQLServer',
      metadata: { namespace: 'sys', name: 'shared' },
      spec: { host: db.host, port: db.port, adminCredentialsSecretRef: { name: 'admin' } },
    };
    const connected = await mysqlServerConnector.connect(resource, { credentials: { username: db.username, password: db.password } });
    assert.ok(connected instanceof MySQLServerClient);
    client = connected;
  });
  after(async () => {
    await db?.stop();
  });

  test('the connector wants both credentials and names what is missing', async () => {
    await assert.rejects(mysqlServerConnector.connect(resource, { credentials: { username: 'x' } }), /Secret admin lacks password/);
    assert.deepEqual(mysqlServerKind.credentialsSecretRef?.(resource), { namespace: 'sys', name: 'admin' });
  });

  test('observe reports the version and refuses an admin without the needed privileges', async () => {
    const seen = await client.observe(resource);
    assert.equal(seen.upToDate, true);
    assert.match(String(seen.atProvider?.version), /MariaDB/);
    await asAdmin((c) => c.query("CREATE USER IF NOT EXISTS 'weak'@'%' IDENTIFIED BY 'weakpw'"));
    const weak = await mysqlServerConnector.connect(resource, { credentials: { username: 'weak', password: 'weakpw' } });
    await assert.rejects(weak.observe(resource), /cannot host claims: account weak@% lacks CREATE USER, CREATE, GRANT OPTION, SELECT on mysql.user: want/);
  });

  test('bindClaim gives each claim its own database and user, and keeps a working password', async () => {
    const a = await client.bindClaim(resource, claim('a'));
    const b = await client.bindClaim(resource, claim('b'));
    assert.notEqual(a.database, b.database);
    assert.match(a.uri!, /^mysql:\/\//);
    await asClaim(a, 'CREATE TABLE t (x INT)');
    await asClaim(a, 'INSERT INTO t VALUES (1)');
    assert.deepEqual(await asClaim(a, 'SELECT x FROM t'), [{ x: 1 }]);
    await assert.rejects(asClaim(b, `SELECT * FROM \`${a.database}\`.t`), /denied/, 'claims cannot reach each other\'s data');
    const again = await client.bindClaim(resource, claim('a'), a);
    assert.equal(again.password, a.password, 'a repeated bind does not rotate the password');
  });

  test('drift: update recreates a dropped database, and a dropped user with the password the claim already has', async () => {
    const a = await client.bindClaim(resource, claim('a'));
    const share = sharedServerShare({ namespace: 'team', name: 'a' });
    await asAdmin((c) => c.query(`DROP DATABASE \`${share.database}\``));
    const seen = await client.observe(withBindings('a', 'b'));
    assert.equal(seen.upToDate, false);
    assert.match(seen.drift ?? '', new RegExp(`database ${share.database} of claim team/a missing`));
    await client.update(withBindings('a', 'b'));
    assert.equal((await client.observe(withBindings('a', 'b'))).upToDate, true);
    await asClaim(a, 'SELECT 1');

    await asAdmin(async (c) => {
      await c.query(`DROP DATABASE \`${share.database}\``);
      await c.query(`DROP USER '${share.user}'@'%'`);
    });
    assert.match((await client.observe(withBindings('a'))).drift ?? '', /database .* and user .* of claim team\/a missing/);
    await client.update(withBindings('a'));
    assert.equal((await client.observe(withBindings('a'))).upToDate, true);
    assert.deepEqual(await asClaim(a, 'SELECT DATABASE() AS db'), [{ db: a.database }], 'the unchanged details log in again');
    assert.deepEqual(await client.bindClaim(resource, claim('a'), a), a, 'a later bind keeps them');

    await asAdmin((c) => c.query(`ALTER USER '${share.user}'@'%' IDENTIFIED BY 'changed-by-hand'`));
    assert.deepEqual(await client.bindClaim(resource, claim('a'), a), a);
    await asClaim(a, 'SELECT 1');
  });

  test('a claim whose password is not the derived one keeps it while it works, and gets the derived one when it stops working', async () => {
    const b = await client.bindClaim(resource, claim('b'));
    const share = sharedServerShare({ namespace: 'team', name: 'b' });
    await asAdmin((c) => c.query(`ALTER USER '${share.user}'@'%' IDENTIFIED BY 'from-an-older-release'`));
    const older = { ...b, password: 'from-an-older-release' };
    assert.equal((await client.bindClaim(resource, claim('b'), older)).password, 'from-an-older-release');
    await asAdmin((c) => c.query(`DROP DATABASE \`${share.database}\``));
    assert.equal((await client.bindClaim(resource, claim('b'), older)).password, 'from-an-older-release', 'a dropped database does not rotate it');
    await asClaim(older, 'SELECT 1');
    await asAdmin((c) => c.query(`DROP USER '${share.user}'@'%'`));
    await client.update(withBindings('b'));
    await assert.rejects(asClaim(older, 'SELECT 1'), /denied/);
    const now = await client.bindClaim(resource, claim('b'), older);
    assert.equal(now.password, b.password, 'the derived password');
    await asClaim(now, 'SELECT 1');
  });

  test('unbindClaim: Retain keeps, Recycle empties, Delete drops (twice is fine)', async () => {
    const r = await client.bindClaim(resource, claim('r'));
    await asClaim(r, 'CREATE TABLE kept (x INT)');
    await client.unbindClaim(resource, { namespace: 'team', name: 'r' }, 'Retain');
    assert.equal((await asClaim(r, 'SHOW TABLES')).length, 1);
    await client.unbindClaim(resource, { namespace: 'team', name: 'r' }, 'Recycle');
    assert.equal((await asClaim(r, 'SHOW TABLES')).length, 0, 'Recycle empties the database; the user still logs in');
    await client.unbindClaim(resource, { namespace: 'team', name: 'r' }, 'Delete');
    await client.unbindClaim(resource, { namespace: 'team', name: 'r' }, 'Delete');
    const left = await asAdmin(async (c) => {
      const [dbs] = await c.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [r.database]);
      const [users] = await c.query('SELECT User FROM mysql.user WHERE User = ?', [r.username]);
      return [(dbs as unknown[]).length, (users as unknown[]).length];
    });
    assert.deepEqual(left, [0, 0]);
  });
});
