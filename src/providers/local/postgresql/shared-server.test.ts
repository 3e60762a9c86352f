import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { KObject } from '../../../machinery/object.js';
import { isSharedClient, type ConnectionDetails, type SharedExternalClient } from '../../spi.js';
import { ensureShare, withClient } from './admin.js';
import { endpointDetails, formatPostgresConnection } from './connection.js';
import type { PostgreSQLServer } from './kinds.js';
import { claimIdentifier, legacyClaimIdentifier } from './names.js';
import { postgresqlServerConcreteKind, sharedServerConnector } from './shared-server.js';
import { startThrowawayServer, type ThrowawayServer } from './testing.js';
import { fixture } from '../../testing.js';

function claim(namespace: string, name: string): KObject {
  return {
    apiVersion: 'storage.conductor.io/v1alpha1',
    kind: 'PostgreSQLInstance',
    metadata: { namespace, name, uid: `uid-${namespace}-${name}` },
    spec: {},
  };
}

/** Runs a query using nothing but the claim's formatted connection details (its URI). */
async function queryAsClaim(details: ConnectionDetails, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: details.uri, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

async function sqlState(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return String((err as { code?: unknown }).code ?? (err as Error).message);
  }
  return 'no error';
}

describe('PostgreSQLServer against a real server', { timeout: 120_000 }, () => {
  let server: ThrowawayServer;
  let resource: PostgreSQLServer;
  let client: SharedExternalClient<PostgreSQLServer>;
  const admin = (sql: string, values: unknown[] = []) =>
    withClient({ host: server.host, port: server.port, user: server.username, password: server.password, database: 'postgres' }, (c) => c.query(sql, values));
  const roleExists = async (role: string) => (await admin('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
  const databaseExists = async (db: string) => (await admin('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount === 1;

  before(async () => {
    server = await startThrowawayServer();
    resource = fixture<PostgreSQLServer>({
      apiVersion: 'database.local.conductor.io/v1alpha1',
      kind: 'PostgreSQLServer',
      metadata: { namespace: 'conductor-system', name: 'shared' },
      spec: { host: server.host, port: server.port, adminCredentialsSecretRef: { name: 'pg-admin', usernameKey: 'user' } },
    });
    const external = await sharedServerConnector.connect(resource, { credentials: { user: server.username, password: server.password } });
    assert.ok(isSharedClient(external));
    client = external;
  });

  after(async () => {
    await server?.stop();
  });

  test('observe connects as the admin and reports the server version; create and update only verify', async () => {
    const observed = await client.observe(resource);
    assert.equal(observed.exists, true);
    assert.equal(observed.upToDate, true);
    assert.equal(observed.atProvider?.version, server.binaries.version);
    assert.equal(observed.atProvider?.superuser, true);
    assert.deepEqual(observed.connectionDetails, { host: server.host, port: String(server.port) });
    assert.deepEqual(await client.create(resource), { externalName: `${server.host}:${server.port}` });
    assert.deepEqual(await client.update(resource), {});
    await client.delete(resource);
    assert.equal((await client.observe(resource)).exists, true, 'delete forgets the server, it does not stop it');
  });

  test('the kind names the admin Secret for the controller to read', () => {
    assert.deepEqual(postgresqlServerConcreteKind.credentialsSecretRef?.(resource), { namespace: 'conductor-system', name: 'pg-admin' });
  });

  test('binding three claims gives each its own database and role, usable with only the details', async () => {
    const claims = [claim('team-a', 'orders'), claim('team-b', 'orders'), claim('team-a', 'billing-db')];
    const bound = await Promise.all(claims.map((c) => client.bindClaim(resource, c)));
    const names = claims.map((c) => claimIdentifier(c.metadata.namespace!, c.metadata.name!));
    assert.equal(new Set(names).size, 3);
    for (const [i, raw] of bound.entries()) {
      const details = formatPostgresConnection(raw);
      assert.deepEqual(Object.keys(details).sort(), ['database', 'host', 'password', 'port', 'uri', 'username']);
      assert.equal(details.database, names[i]);
      assert.equal(details.username, names[i]);
      assert.ok(await roleExists(names[i]));
      assert.ok(await databaseExists(names[i]));
      await queryAsClaim(details, 'CREATE TABLE items (id int PRIMARY KEY, label text)');
      await queryAsClaim(details, `INSERT INTO items VALUES (1, 'claim ${i}')`);
      const rows = await queryAsClaim(details, 'SELECT label, current_user AS who FROM items');
      assert.deepEqual(rows.rows, [{ label: `claim ${i}`, who: names[i] }]);
    }
    // A claim cannot open another claim's database.
    const intruder = { ...bound[0], database: bound[1].database, uri: '' };
    const formatted = formatPostgresConnection(intruder);
    assert.equal(await sqlState(queryAsClaim(formatted, 'SELECT 1')), '42501');
  });

  test('binding again with the published details keeps the password (a password changed by hand is set back); without them rotates it', async () => {
    const c = claim('team-c', 'app');
    const first = await client.bindClaim(resource, c);
    assert.deepEqual(await client.bindClaim(resource, c, first), first);
    await queryAsClaim(first, 'SELECT 1');

    await admin(`ALTER ROLE "${first.username}" PASSWORD 'changed-by-hand'`);
    assert.equal(await sqlState(queryAsClaim(first, 'SELECT 1')), '28P01');
    assert.deepEqual(await client.bindClaim(resource, c, first), first, 'the published details are the truth');
    await queryAsClaim(first, 'SELECT 1');

    const rotated = await client.bindClaim(resource, c);
    assert.notEqual(rotated.password, first.password);
    await queryAsClaim(rotated, 'SELECT 1');
    assert.equal(await sqlState(queryAsClaim(first, 'SELECT 1')), '28P01', 'the old password no longer works');
  });

  test("drift: observe reports a claim's missing database and role as a broken share; bindClaim recreates them with the claim's password", async () => {
    const c = claim('team-d', 'drifty');
    const d = await client.bindClaim(resource, c);
    const bound = { ...resource, status: { bindings: [{ claimRef: { namespace: 'team-d', name: 'drifty', uid: c.metadata.uid } }] } } as PostgreSQLServer;
    await queryAsClaim(d, 'CREATE TABLE t (x int)');
    const whole = await client.observe(bound);
    assert.deepEqual([whole.upToDate, whole.atProvider?.claims, whole.brokenShares], [true, 1, []]);

    await admin(`DROP DATABASE "${d.database}" WITH (FORCE)`);
    const seen = await client.observe(bound);
    assert.equal(seen.upToDate, true, 'the server itself is fine');
    assert.deepEqual(seen.brokenShares, [{ claim: { namespace: 'team-d', name: 'drifty', uid: c.metadata.uid }, missing: `database ${d.database}` }]);
    await client.update(bound);
    assert.equal((await client.observe(bound)).brokenShares?.length, 1, 'update leaves shares to the claim controller');
    assert.deepEqual(await client.bindClaim(resource, c, d), d);
    assert.deepEqual((await client.observe(bound)).brokenShares, []);
    await queryAsClaim(d, 'SELECT 1');

    await admin(`DROP DATABASE "${d.database}" WITH (FORCE)`);
    await admin(`DROP OWNED BY "${d.username}"`);
    await admin(`DROP ROLE "${d.username}"`);
    assert.equal((await client.observe(bound)).brokenShares?.[0]?.missing, `database ${d.database} and role ${d.username}`);
    assert.deepEqual(await client.bindClaim(resource, c, d), d, 'the same details');
    assert.equal((await queryAsClaim(d, 'SELECT current_database() AS db')).rows[0]?.db, d.database, 'they log in again');
  });

  test('Delete drops the database and role, ending open sessions; repeating it is harmless', async () => {
    const c = claim('team-d', 'temp');
    const details = await client.bindClaim(resource, c);
    const id = details.database;
    const held = new pg.Client({ connectionString: details.uri });
    held.on('error', () => {});
    await held.connect();
    await held.query('SELECT 1');

    await client.unbindClaim(resource, { namespace: 'team-d', name: 'temp' }, 'Delete');
    assert.equal(await databaseExists(id), false);
    assert.equal(await roleExists(id), false);
    assert.notEqual(await sqlState(held.query('SELECT 1')), 'no error', 'the open session was ended');
    await held.end().catch(() => {});

    await client.unbindClaim(resource, { namespace: 'team-d', name: 'temp' }, 'Delete');
    assert.equal(await sqlState(queryAsClaim(details, 'SELECT 1')), '28P01');
  });

  test('Recycle empties the database and keeps the role and its password; repeating it is harmless', async () => {
    const c = claim('team-e', 'recycled');
    const details = await client.bindClaim(resource, c);
    await queryAsClaim(details, 'CREATE TABLE kept (id int)');
    await queryAsClaim(details, 'INSERT INTO kept VALUES (1)');

    for (let i = 0; i < 2; i++) {
      await client.unbindClaim(resource, { namespace: 'team-e', name: 'recycled' }, 'Recycle');
      const tables = await queryAsClaim(details, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
      assert.deepEqual(tables.rows, [{ n: 0 }], 'the old password still logs in to an empty database');
    }
    assert.ok(await roleExists(details.username));
  });

  test('Retain keeps the database, its data and the role; repeating it is harmless', async () => {
    const c = claim('team-f', 'kept');
    const details = await client.bindClaim(resource, c);
    await queryAsClaim(details, 'CREATE TABLE kept (id int)');
    await queryAsClaim(details, 'INSERT INTO kept VALUES (7)');
    await client.unbindClaim(resource, { namespace: 'team-f', name: 'kept' }, 'Retain');
    await client.unbindClaim(resource, { namespace: 'team-f', name: 'kept' }, 'Retain');
    assert.deepEqual((await queryAsClaim(details, 'SELECT id FROM kept')).rows, [{ id: 7 }]);
  });

  test('a same-named database Conductor did not create is neither handed out nor dropped', async () => {
    const id = claimIdentifier('team-g', 'taken');
    await admin(`CREATE DATABASE "${id}"`);
    await assert.rejects(client.bindClaim(resource, claim('team-g', 'taken')), /was not created by Conductor for claim team-g\/taken/);
    await client.unbindClaim(resource, { namespace: 'team-g', name: 'taken' }, 'Delete');
    assert.equal(await databaseExists(id), true);
  });

  test('unusable admin credentials are reported with what failed', async () => {
    await assert.rejects(
      sharedServerConnector.connect(resource, { credentials: { user: server.username } }),
      /admin credentials Secret pg-admin lacks password/,
    );
    const wrong = await sharedServerConnector.connect(resource, { credentials: { user: server.username, password: 'wrong' } });
    await assert.rejects(
      wrong.observe(resource),
      /cannot connect on PostgreSQLServer conductor-system\/shared .* as "postgres": password authentication failed/,
    );
  });

  // Two tenants whose claims earlier versions named alike (same 56-character readable part,
  // same 32-bit hash, found by a birthday search): the second one's bind used to fail (or,
  // had the first claim been removed, would have been given the same database name).
  const colliding = [
    { namespace: `tenant-${'x'.repeat(49)}-a`, name: 'db-216053' },
    { namespace: `tenant-${'x'.repeat(49)}-b`, name: 'db-23649' },
  ] as const;

  test('two claims whose earlier names collided get their own databases and roles', async () => {
    const [a, b] = colliding;
    assert.equal(legacyClaimIdentifier(a.namespace, a.name), legacyClaimIdentifier(b.namespace, b.name));
    const da = await client.bindClaim(resource, claim(a.namespace, a.name));
    const db = await client.bindClaim(resource, claim(b.namespace, b.name));
    assert.notEqual(da.database, db.database);
    assert.notEqual(da.username, db.username);
    await queryAsClaim(da, 'CREATE TABLE mine (id int)');
    assert.equal(await sqlState(queryAsClaim(db, 'SELECT 1 FROM mine')), '42P01');
    await client.unbindClaim(resource, b, 'Delete', db);
    assert.equal(await databaseExists(da.database), true);
    assert.deepEqual((await queryAsClaim(da, 'SELECT count(*)::int AS n FROM mine')).rows, [{ n: 0 }]);
  });

  test('a share made by an earlier version under its 8-hex name keeps working: bind, observe, release', async () => {
    const ref = { namespace: 'upgraded', name: 'orders' };
    const old = legacyClaimIdentifier(ref.namespace, ref.name);
    const password = 'earlier-password-1';
    await withClient({ host: server.host, port: server.port, user: server.username, password: server.password, database: 'postgres' }, (c) =>
      ensureShare(c, { role: old, database: old, owner: `claim ${ref.namespace}/${ref.name}` }, password),
    );
    const recorded = endpointDetails({ host: server.host, port: server.port, username: old, password, database: old });
    await queryAsClaim(recorded, 'CREATE TABLE orders (id int)');
    await queryAsClaim(recorded, 'INSERT INTO orders VALUES (42)');
    const details = await client.bindClaim(resource, claim(ref.namespace, ref.name), recorded);
    assert.equal(details.username, old);
    assert.equal(details.database, old);
    assert.equal(details.password, password);
    assert.deepEqual((await queryAsClaim(details, 'SELECT id FROM orders')).rows, [{ id: 42 }]);
    assert.equal(await databaseExists(claimIdentifier(ref.namespace, ref.name)), false);
    const bound = { ...resource, status: { bindings: [{ claimRef: { ...ref, uid: `uid-${ref.namespace}-${ref.name}` } }] } } as PostgreSQLServer;
    assert.deepEqual((await client.observe(bound)).brokenShares, []);
    await client.unbindClaim(resource, ref, 'Delete', details);
    assert.equal(await databaseExists(old), false);
    assert.equal(await roleExists(old), false);
  });
});
