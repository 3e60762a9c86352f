import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { eventually } from '../../../../test/support/eventually.js';
import type { KObject } from '../../../machinery/object.js';
import { isSharedClient, type CallOptions, type SharedExternalClient } from '../../spi.js';
import { fixture } from '../../testing.js';
import { connectionsTo } from '../process/testing.js';
import { describeCallsToHungServer } from '../process/testing/hung-server-calls.js';
import { withClient } from './admin.js';
import type { PostgreSQLServer } from './kinds.js';
import { sharedServerConnector } from './shared-server.js';
import { startThrowawayServer, type ThrowawayServer } from './testing.js';

const isAbort = (err: Error) => err.name === 'AbortError';

function server(host: string, port: number): PostgreSQLServer {
  return fixture<PostgreSQLServer>({
    apiVersion: 'database.local.conductor.io/v1alpha1',
    kind: 'PostgreSQLServer',
    metadata: { namespace: 'conductor-system', name: 'shared', uid: 'uid-shared' },
    spec: { host, port, adminCredentialsSecretRef: { name: 'pg-admin', usernameKey: 'user' } },
  });
}

const claim: KObject = {
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind: 'PostgreSQLInstance',
  metadata: { namespace: 'team', name: 'app', uid: 'uid-app' },
  spec: {},
};

async function connectAs(resource: PostgreSQLServer, user: string, password: string): Promise<SharedExternalClient<PostgreSQLServer>> {
  const client = await sharedServerConnector.connect(resource, { credentials: { user, password } });
  assert.ok(isSharedClient(client));
  return client;
}

/** The calls of a PostgreSQLServer client that talk to the server, each with the call's options. */
const calls: { name: string; call: (c: SharedExternalClient<PostgreSQLServer>, r: PostgreSQLServer, o: CallOptions) => Promise<unknown> }[] = [
  { name: 'observe', call: (c, r, o) => c.observe(r, o) },
  { name: 'create', call: (c, r, o) => c.create(r, o) },
  { name: 'bindClaim', call: (c, r, o) => c.bindClaim(r, claim, undefined, o) },
  { name: 'unbindClaim (Delete)', call: (c, r, o) => c.unbindClaim(r, { namespace: 'team', name: 'app', uid: 'uid-app' }, 'Delete', undefined, o) },
];

describeCallsToHungServer('PostgreSQLServer', calls, async (port) => {
  const resource = server('127.0.0.1', port);
  return { client: await connectAs(resource, 'admin', 'secret'), resource };
});

describe('PostgreSQLServer: a bind waiting on a lock in a real server', { timeout: 120_000 }, () => {
  let db: ThrowawayServer;
  before(async () => {
    db = await startThrowawayServer();
  });
  after(async () => {
    await db?.stop();
  });

  test("is cancelled through the call's signal: the server stops the waiting statement and its session ends", async () => {
    const resource = server(db.host, db.port);
    const client = await connectAs(resource, db.username, db.password);
    const details = await client.bindClaim(resource, claim);
    const superuser = { host: db.host, port: db.port, user: db.username, password: db.password, database: 'postgres' };
    // Another session changes the claim's role and keeps its transaction open: a bind's ALTER ROLE waits for it.
    const locker = new pg.Client(superuser);
    locker.on('error', () => {});
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`ALTER ROLE ${pg.escapeIdentifier(details.username)} CONNECTION LIMIT 10`);
      const waiting = () =>
        withClient(superuser, async (c) =>
          Number(
            (await c.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'ALTER ROLE%'`)).rows[0]?.n,
          ),
        );
      const call = new AbortController();
      const binding = client.bindClaim(resource, claim, details, { signal: call.signal });
      binding.catch(() => {}); // awaited below
      await eventually(async () => (await waiting()) === 1, "the bind's ALTER ROLE waiting for the lock");
      call.abort();
      await assert.rejects(binding, isAbort);
      await eventually(async () => (await waiting()) === 0, 'the waiting statement cancelled on the server');
      await eventually(async () => (await connectionsTo(db.port)) === 1, 'no connection left open but the locking session');
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end().catch(() => {});
    }
  });
});
