import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KObject } from '../../machinery/object.js';
import { isSharedClient } from '../spi.js';
import type { MemoryDatabase } from './kinds.js';
import { externalNameOf, memoryDatabaseConcreteKind, MemoryDatabaseClient } from './memory-database.js';
import { MemoryDatabases, shareIdentifier } from './memory-databases.js';
import { createMemoryProvider, memoryProvider } from './memory-provider.js';
import { fixture } from '../testing.js';

function counter(): () => string {
  let n = 0;
  return () => `pw-${++n}`;
}

function mdb(name: string, spec: JsonObject = {}, annotations?: Record<string, string>): MemoryDatabase {
  return fixture<MemoryDatabase>({
    apiVersion: 'database.memory.conductor.io/v1alpha1',
    kind: 'MemoryDatabase',
    metadata: { namespace: 'conductor-system', name, ...(annotations ? { annotations } : {}) },
    spec,
  });
}

function claim(name: string, spec: JsonObject = {}): KObject {
  return { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', metadata: { namespace: 'shop', name, uid: `uid-${name}` }, spec };
}

function fresh(): { dbs: MemoryDatabases; client: MemoryDatabaseClient } {
  const dbs = new MemoryDatabases({ newPassword: counter(), now: () => new Date('2026-01-01T00:00:00Z') });
  return { dbs, client: new MemoryDatabaseClient(dbs) };
}

describe('MemoryDatabaseClient', () => {
  test('observe → create → observe: missing, then up to date with synthesized details', async () => {
    const { client } = fresh();
    const r = mdb('a', { version: '16.4', port: 6543 });
    assert.deepEqual(await client.observe(r), { exists: false, upToDate: false });
    const created = await client.create(r);
    const details = { host: 'memory.invalid', port: '6543', username: 'app', password: 'pw-1', database: 'app' };
    assert.deepEqual(created, { externalName: 'conductor-system/a', connectionDetails: details });
    assert.deepEqual(await client.observe(r), {
      exists: true,
      upToDate: true,
      connectionDetails: details,
      atProvider: {
        externalName: 'conductor-system/a',
        host: 'memory.invalid',
        username: 'app',
        database: 'app',
        version: '16.4',
        port: 6543,
        createdAt: '2026-01-01T00:00:00Z',
        scrubs: 0,
        shares: 0,
      },
    });
  });

  test('create and update are idempotent: repeating them keeps the password', async () => {
    const { client, dbs } = fresh();
    const r = mdb('a');
    await client.create(r);
    await client.create(r);
    await client.update(r);
    assert.equal(dbs.get('conductor-system/a')!.password, 'pw-1');
    assert.equal(dbs.size, 1);
  });

  const driftCases: { reason: string; spec: JsonObject; want: string }[] = [
    { reason: 'a new user name', spec: { masterUsername: 'bob' }, want: 'user is "app", spec wants "bob"' },
    { reason: 'a new version and port', spec: { version: '17', port: 5433 }, want: 'version is unset, spec wants "17"; port is unset, spec wants 5433' },
    { reason: 'a removed database name', spec: {}, want: 'database is "orders", spec wants "app"' },
  ];
  for (const c of driftCases) {
    test(`a changed spec is drift that update corrects: ${c.reason}`, async () => {
      const { client } = fresh();
      await client.create(mdb('a', c.reason === 'a removed database name' ? { databaseName: 'orders' } : {}));
      const changed = mdb('a', c.spec);
      const seen = await client.observe(changed);
      assert.equal(seen.exists, true);
      assert.equal(seen.upToDate, false);
      assert.equal(seen.drift, c.want);
      assert.equal(seen.connectionDetails, undefined, 'no details are published while drifted');
      await client.update(changed);
      assert.equal((await client.observe(changed)).upToDate, true);
    });
  }

  test('delete removes the record and deleting again succeeds', async () => {
    const { client, dbs } = fresh();
    const r = mdb('a');
    await client.create(r);
    await client.delete(r);
    await client.delete(r);
    assert.equal(dbs.size, 0);
    assert.equal((await client.observe(r)).exists, false);
  });

  test('scrub rotates the password the next claim gets; scrubbing a database that is gone succeeds', async () => {
    const { client } = fresh();
    const r = mdb('a');
    await client.create(r);
    await client.scrub(r);
    const after = await client.observe(r);
    assert.equal(after.connectionDetails?.password, 'pw-2');
    assert.equal((after.atProvider as { scrubs: number }).scrubs, 1);
    await client.scrub(mdb('gone'));
  });

  test('an imported resource uses its external-name annotation as its identity', async () => {
    const { client, dbs } = fresh();
    dbs.ensure('legacy-db', { username: 'app', database: 'app' });
    const r = mdb('imported', {}, { 'conductor.io/external-name': 'legacy-db' });
    assert.equal(externalNameOf(r), 'legacy-db');
    assert.equal((await client.observe(r)).upToDate, true);
  });

  test('discover lists every record as a registrable resource', async () => {
    const { client } = fresh();
    await client.create(mdb('b', { version: '8.0', masterUsername: 'root' }));
    await client.create(mdb('a'));
    const found = await client.discover();
    assert.deepEqual(
      found.map((d) => [d.externalName, d.namespace, d.name, d.spec]),
      [
        ['conductor-system/a', 'conductor-system', 'a', { masterUsername: 'app', databaseName: 'app' }],
        ['conductor-system/b', 'conductor-system', 'b', { masterUsername: 'root', databaseName: 'app', version: '8.0' }],
      ],
    );
  });

  describe('shared use', () => {
    test('each claim gets its own user, database and password; a repeated bind returns the same', async () => {
      const { client } = fresh();
      const r = mdb('shared', { sharing: { mode: 'Shared' } });
      await client.create(r);
      const a = await client.bindClaim(r, claim('a'));
      const b = await client.bindClaim(r, claim('b', { masterUsername: 'bob', databaseName: 'orders' }));
      assert.deepEqual(a, { host: 'memory.invalid', username: shareIdentifier('shop/a'), password: 'pw-2', database: shareIdentifier('shop/a') });
      assert.deepEqual(b, { host: 'memory.invalid', username: 'bob', password: 'pw-3', database: 'orders' });
      assert.deepEqual(await client.bindClaim(r, claim('a'), a), a);
      assert.equal(((await client.observe(r)).atProvider as { shares: number }).shares, 2);
    });

    test('a bind after the records were lost keeps the password published before', async () => {
      const { client, dbs } = fresh();
      const r = mdb('shared', { sharing: { mode: 'Shared' } });
      await client.create(r);
      const before = await client.bindClaim(r, claim('a'));
      dbs.clear();
      await client.create(r);
      assert.equal((await client.bindClaim(r, claim('a'), before)).password, before.password);
    });

    test('binding before the database exists fails and says so', async () => {
      const { client } = fresh();
      await assert.rejects(
        client.bindClaim(mdb('none'), claim('a')),
        /cannot bind a claim to MemoryDatabase conductor-system\/none: its database does not exist yet/,
      );
    });

    const policies: { policy: 'Retain' | 'Recycle' | 'Delete'; want: { shares: number; resets?: number } }[] = [
      { policy: 'Retain', want: { shares: 1, resets: 0 } },
      { policy: 'Recycle', want: { shares: 1, resets: 2 } }, // each erase is counted; erasing twice loses nothing more
      { policy: 'Delete', want: { shares: 0 } },
    ];
    for (const p of policies) {
      test(`unbinding with ${p.policy} applies it to the claim's share only, and repeating it is harmless`, async () => {
        const { client, dbs } = fresh();
        const r = mdb('shared', { sharing: { mode: 'Shared' } });
        await client.create(r);
        await client.bindClaim(r, claim('a'));
        await client.bindClaim(r, claim('b'));
        const ref = { namespace: 'shop', name: 'a', uid: 'uid-a' };
        await client.unbindClaim(r, ref, p.policy);
        await client.unbindClaim(r, ref, p.policy);
        const shares = dbs.get('conductor-system/shared')!.shares;
        assert.equal(shares.size, p.want.shares + 1);
        assert.equal(shares.get('shop/a')?.resets, p.want.resets);
        assert.equal(shares.get('shop/b')?.resets, 0);
      });
    }
  });
});

describe('the MemoryDatabase kind', () => {
  test('is an Exclusive, managed kind with deterministic names that implements both SQL claim kinds', () => {
    const provider = createMemoryProvider();
    assert.equal(provider.type, 'memory');
    assert.equal(memoryProvider.type, 'memory', 'the definition says the same type as the running module');
    const [kind] = provider.kinds;
    assert.deepEqual(
      [kind.group, kind.version, kind.kind, kind.plural, kind.sharing, kind.lifecycle, kind.deterministicExternalNames],
      ['database.memory.conductor.io', 'v1alpha1', 'MemoryDatabase', 'memorydatabases', 'Exclusive', 'Managed', true],
    );
    assert.deepEqual(
      kind.implements.map((i) => `${i.claimKind.group}/${i.claimKind.kind}`),
      ['storage.conductor.io/PostgreSQLInstance', 'storage.conductor.io/MySQLInstance'],
    );
    for (const i of kind.implements) assert.deepEqual(i.connectionSecretKeys, ['host', 'port', 'username', 'password', 'database', 'uri']);
  });

  test('each claim kind formats the same raw details for its own engine', () => {
    const kind = memoryDatabaseConcreteKind(new MemoryDatabases());
    const raw = { host: 'memory.invalid', username: 'app', password: 'pw', database: 'app' };
    assert.deepEqual(
      kind.implements.map((i) => i.formatConnection(raw).uri),
      ['postgresql://app:pw@memory.invalid:5432/app', 'mysql://app:pw@memory.invalid:3306/app'],
    );
  });

  test("its connector hands out a shared client over the provider's records", async () => {
    const provider = createMemoryProvider();
    const client = await provider.kinds[0].connector.connect(mdb('a'), {});
    assert.ok(isSharedClient(client));
    await client.create(mdb('a'));
    assert.equal(provider.databases.size, 1);
  });
});
