import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import type { KObject } from '../../../machinery/object.js';
import type { ConnectionDetails } from '../../spi.js';
import type { MySQLServer } from './kinds.js';
import { endpointDetails } from './connection.js';
import { ensureShare } from './admin.js';
import { claimIdentifier, legacyClaimIdentifier } from './names.js';
import { mysqlServerConnector, mysqlServerConcreteKind, sharedServerShare, MySQLServerClient } from './shared-server.js';
import { startThrowawayMariaDb, type ThrowawayMariaDb } from './testing.js';
import { fixture } from '../../testing.js';

const claim = (name: string): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'MySQLInstance',
  metadata: { namespace: 'team', name, uid: `uid-${name}` },
  spec: {},
});

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
  const withBindings = (...names: string[]): MySQLServer =>
    fixture<MySQLServer>({
      ...resource,
      status: { bindings: names.map((name) => ({ claimRef: { namespace: 'team', name, uid: `uid-${name}` } })) },
    });

  before(async () => {
    db = await startThrowawayMariaDb();
    resource = fixture<MySQLServer>({
      apiVersion: 'database.local.conductor.io/v1alpha1',
      kind: 'MySQLServer',
      metadata: { namespace: 'sys', name: 'shared' },
      spec: { host: db.host, port: db.port, adminCredentialsSecretRef: { name: 'admin' } },
    });
    const connected = await mysqlServerConnector.connect(resource, { credentials: { username: db.username, password: db.password } });
    assert.ok(connected instanceof MySQLServerClient);
    client = connected;
  });
  after(async () => {
    await db?.stop();
  });

  test('the connector wants both credentials and names what is missing', async () => {
    await assert.rejects(mysqlServerConnector.connect(resource, { credentials: { username: 'x' } }), /Secret admin lacks password/);
    assert.deepEqual(mysqlServerConcreteKind.credentialsSecretRef?.(resource), { namespace: 'sys', name: 'admin' });
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
    assert.match(a.uri, /^mysql:\/\//);
    await asClaim(a, 'CREATE TABLE t (x INT)');
    await asClaim(a, 'INSERT INTO t VALUES (1)');
    assert.deepEqual(await asClaim(a, 'SELECT x FROM t'), [{ x: 1 }]);
    await assert.rejects(asClaim(b, `SELECT * FROM \`${a.database}\`.t`), /denied/, "claims cannot reach each other's data");
    const again = await client.bindClaim(resource, claim('a'), a);
    assert.equal(again.password, a.password, 'a repeated bind does not rotate the password');
  });

  test("drift: observe reports a claim's missing database and user as a broken share; bindClaim recreates them with the claim's password", async () => {
    const a = await client.bindClaim(resource, claim('a'));
    const share = sharedServerShare({ namespace: 'team', name: 'a' });
    assert.deepEqual((await client.observe(withBindings('a'))).brokenShares, []);
    await asAdmin((c) => c.query(`DROP DATABASE \`${share.database}\``));
    const ghost = sharedServerShare({ namespace: 'team', name: 'never-made' });
    const seen = await client.observe(withBindings('a', 'never-made'));
    assert.equal(seen.upToDate, true, 'the server itself is fine');
    assert.deepEqual(seen.brokenShares, [
      { claim: { namespace: 'team', name: 'a', uid: 'uid-a' }, missing: `database ${share.database}` },
      { claim: { namespace: 'team', name: 'never-made', uid: 'uid-never-made' }, missing: `database ${ghost.database} and user ${ghost.user}` },
    ]);
    await client.update(withBindings('a', 'never-made'));
    assert.equal((await client.observe(withBindings('a'))).brokenShares?.length, 1, 'update leaves shares to the claim controller');
    assert.deepEqual(await client.bindClaim(resource, claim('a'), a), a);
    assert.deepEqual((await client.observe(withBindings('a'))).brokenShares, []);
    await asClaim(a, 'SELECT 1');

    await asAdmin(async (c) => {
      await c.query(`DROP DATABASE \`${share.database}\``);
      await c.query(`DROP USER '${share.user}'@'%'`);
    });
    assert.equal((await client.observe(withBindings('a'))).brokenShares?.[0]?.missing, `database ${share.database} and user ${share.user}`);
    assert.deepEqual(await client.bindClaim(resource, claim('a'), a), a, 'the same details');
    assert.deepEqual(await asClaim(a, 'SELECT DATABASE() AS db'), [{ db: a.database }], 'they log in again');

    await asAdmin((c) => c.query(`ALTER USER '${share.user}'@'%' IDENTIFIED BY 'changed-by-hand'`));
    assert.deepEqual(await client.bindClaim(resource, claim('a'), a), a);
    await asClaim(a, 'SELECT 1');
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

  // Two tenants whose claims earlier versions named alike (same readable part, same 32-bit
  // hash, found by a birthday search): the second bind used to reset the first claim's
  // password and hand its database over.
  const colliding = [
    { namespace: `tenant-${'x'.repeat(49)}-a`, name: 'db-216053' },
    { namespace: `tenant-${'x'.repeat(49)}-b`, name: 'db-23649' },
  ] as const;
  const claimIn = (ref: { namespace: string; name: string }): KObject => ({
    apiVersion: 'storage.conductor.io/v1alpha1',
    kind: 'MySQLInstance',
    metadata: { ...ref, uid: `uid-${ref.namespace}-${ref.name}` },
    spec: {},
  });

  test('two claims whose earlier names collided get their own databases and users', async () => {
    const [a, b] = colliding;
    assert.equal(legacyClaimIdentifier(a.namespace, a.name), legacyClaimIdentifier(b.namespace, b.name));
    const da = await client.bindClaim(resource, claimIn(a));
    await asClaim(da, 'CREATE TABLE mine (id int)');
    const dbb = await client.bindClaim(resource, claimIn(b));
    assert.notEqual(da.username, dbb.username);
    assert.notEqual(da.database, dbb.database);
    assert.ok(da.username.length <= 32 && dbb.username.length <= 32);
    // a still logs in with its own password, and b does not see a's table.
    await asClaim(da, 'SELECT * FROM mine');
    await assert.rejects(asClaim(dbb, 'SELECT * FROM mine'), /doesn't exist/);
    await client.unbindClaim(resource, b, 'Delete', dbb);
    await asClaim(da, 'SELECT * FROM mine');
  });

  test('a share made by an earlier version under its 8-hex name keeps working: bind, observe, release', async () => {
    const ref = { namespace: 'upgraded', name: 'orders' };
    const old = legacyClaimIdentifier(ref.namespace, ref.name);
    const password = 'earlier-password-1';
    await asAdmin((c) => ensureShare(c, { user: old, database: old, host: '%' }, password));
    const recorded = endpointDetails({ host: db.host, port: db.port, username: old, password, database: old });
    await asClaim(recorded, 'CREATE TABLE orders (id int)');
    await asClaim(recorded, 'INSERT INTO orders VALUES (42)');
    const details = await client.bindClaim(resource, claimIn(ref), recorded);
    assert.equal(details.username, old);
    assert.equal(details.database, old);
    assert.equal(details.password, password);
    assert.deepEqual(await asClaim(details, 'SELECT id FROM orders'), [{ id: 42 }]);
    const bound = { ...resource, status: { bindings: [{ claimRef: { ...ref, uid: 'uid-upgraded-orders' } }] } } as MySQLServer;
    assert.deepEqual((await client.observe(bound)).brokenShares, []);
    await client.unbindClaim(resource, ref, 'Delete', details);
    const left = await asAdmin(async (c) => {
      const [dbs] = await c.query('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN (?, ?)', [old, claimIdentifier(ref.namespace, ref.name)]);
      const [users] = await c.query('SELECT 1 FROM mysql.user WHERE User IN (?, ?)', [old, claimIdentifier(ref.namespace, ref.name)]);
      return [(dbs as unknown[]).length, (users as unknown[]).length];
    });
    assert.deepEqual(left, [0, 0]);
  });
});
