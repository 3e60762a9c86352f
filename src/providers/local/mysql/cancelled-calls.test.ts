import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import { eventually } from '../../../../test/support/eventually.js';
import type { KObject } from '../../../machinery/object.js';
import type { CallOptions } from '../../spi.js';
import { fixture } from '../../testing.js';
import { connectionsTo } from '../process/testing.js';
import { describeCallsToHungServer } from '../process/testing/hung-server-calls.js';
import type { MySQLServer } from './kinds.js';
import { mysqlServerConnector, MySQLServerClient } from './shared-server.js';
import { startThrowawayMariaDb, type ThrowawayMariaDb } from './testing.js';

const isAbort = (err: Error) => err.name === 'AbortError';

function server(host: string, port: number): MySQLServer {
  return fixture<MySQLServer>({
    apiVersion: 'database.local.conductor.io/v1alpha1',
    kind: 'MySQLServer',
    metadata: { namespace: 'sys', name: 'shared' },
    spec: { host, port, adminCredentialsSecretRef: { name: 'admin' } },
  });
}

const claim: KObject = {
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'MySQLInstance',
  metadata: { namespace: 'team', name: 'app', uid: 'uid-app' },
  spec: {},
};
const claimRef = { namespace: 'team', name: 'app', uid: 'uid-app' };

async function connectAs(resource: MySQLServer, username: string, password: string): Promise<MySQLServerClient> {
  const client = await mysqlServerConnector.connect(resource, { credentials: { username, password } });
  assert.ok(client instanceof MySQLServerClient);
  return client;
}

/** The calls of a MySQLServer client that talk to the server, each with the call's options. */
const calls: { name: string; call: (c: MySQLServerClient, r: MySQLServer, o: CallOptions) => Promise<unknown> }[] = [
  { name: 'observe', call: (c, r, o) => c.observe(r, o) },
  { name: 'update', call: (c, r, o) => c.update(r, o) },
  { name: 'bindClaim', call: (c, r, o) => c.bindClaim(r, claim, undefined, o) },
  { name: 'unbindClaim (Recycle)', call: (c, r, o) => c.unbindClaim(r, claimRef, 'Recycle', undefined, o) },
];

describeCallsToHungServer('MySQLServer', calls, async (port) => {
  const resource = server('127.0.0.1', port);
  return { client: await connectAs(resource, 'admin', 'secret'), resource };
});

describe('MySQLServer: a release waiting on a lock in a real MariaDB', { timeout: 120_000 }, () => {
  let db: ThrowawayMariaDb;
  before(async () => {
    db = await startThrowawayMariaDb();
  });
  after(async () => {
    await db?.stop();
  });

  test("is cancelled through the call's signal: the server ends the waiting session", async () => {
    const resource = server(db.host, db.port);
    const client = await connectAs(resource, db.username, db.password);
    const details = await client.bindClaim(resource, claim);
    const admin = { host: db.host, port: db.port, user: db.username, password: db.password };
    const database = mysql.escapeId(details.database);
    // Another session reads a table of the claim's database in an open transaction: its
    // metadata lock makes a Recycle's DROP DATABASE wait.
    const locker = await mysql.createConnection(admin);
    locker.on('error', () => {});
    const probe = await mysql.createConnection(admin);
    try {
      await locker.query(`CREATE TABLE ${database}.t (x int)`);
      await locker.query('BEGIN');
      await locker.query(`SELECT * FROM ${database}.t`);
      const waiting = async () => {
        const [rows] = await probe.query(
          `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for %metadata lock' AND INFO LIKE 'DROP DATABASE%'`,
        );
        return Number((rows as { n: number }[])[0]?.n);
      };
      const call = new AbortController();
      const releasing = client.unbindClaim(resource, claimRef, 'Recycle', details, { signal: call.signal });
      releasing.catch(() => {}); // awaited below
      await eventually(async () => (await waiting()) === 1, "the release's DROP DATABASE waiting for the lock");
      call.abort();
      await assert.rejects(releasing, isAbort);
      await eventually(async () => (await waiting()) === 0, 'the waiting session ended on the server');
      await eventually(async () => (await connectionsTo(db.port)) === 2, 'no connection left open but the locking and probing sessions');
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end().catch(() => locker.destroy());
      await probe.end().catch(() => probe.destroy());
    }
  });
});
