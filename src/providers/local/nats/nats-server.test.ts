import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { KObject } from '../../../machinery/object.js';
import { waitForExit } from '../process/processes.js';
import { resolveNatsBinary } from './binaries.js';
import type { NATSServer } from './kinds.js';
import { NatsServerClient, natsServerConcreteKind, natsShare } from './nats-server.js';
import { NatsServers, natsLogin } from './nats-servers.js';
import { claimIdentifier, legacyClaimIdentifier } from '../postgresql/names.js';
import { fixture } from '../../testing.js';

const claim = (name: string): KObject => ({
  apiVersion: 'messaging.conductor.io/v1alpha1',
  kind: 'MessageQueue',
  metadata: { namespace: 'team', name, uid: `uid-${name}` },
});

/** receive subscribes as one claim's user and collects what arrives on `subject` for a moment. */
async function exchange(sub: Record<string, string>, pub: Record<string, string>, subject: string): Promise<{ got: string[]; subError?: string }> {
  const reader = await connect({ servers: sub.endpoint, user: sub.username, pass: sub.password, reconnect: false });
  const writer = await connect({ servers: pub.endpoint, user: pub.username, pass: pub.password, reconnect: false });
  const got: string[] = [];
  let subError: string | undefined;
  try {
    const s = reader.subscribe(subject, {
      callback: (err, msg) => {
        if (err) subError = err.message;
        else got.push(msg.string());
      },
    });
    await reader.flush();
    writer.publish(subject, 'hello');
    await writer.flush();
    await new Promise((r) => setTimeout(r, 200));
    s.unsubscribe();
  } finally {
    await reader.close().catch(() => {});
    await writer.close().catch(() => {});
  }
  return { got, subError };
}

describe('natsShare', () => {
  test('account, user and subject are one identifier per claim, distinct for look-alike names', () => {
    const a = natsShare({ namespace: 'a-b', name: 'c' });
    const b = natsShare({ namespace: 'a', name: 'b-c' });
    assert.notEqual(a.account, b.account);
    assert.equal(a.subject, a.username);
    assert.doesNotMatch(a.subject, /[.*> ]/, 'one subject token');
  });
});

describe('natsServerConcreteKind without nats-server', () => {
  test('stays registered and says why it cannot connect', async () => {
    const kind = natsServerConcreteKind(undefined, undefined, 'cannot find nats-server');
    assert.equal(kind.sharing, 'Shared');
    assert.equal(kind.lifecycle, 'Managed');
    await assert.rejects(kind.connector.connect({} as NATSServer, {}), /unavailable on this machine: cannot find nats-server/);
  });
});

describe('NATSServer on a real nats-server', () => {
  let root: string;
  let servers: NatsServers;
  let client: NatsServerClient;
  const resource: NATSServer = fixture<NATSServer>({
    apiVersion: 'messaging.local.conductor.io/v1alpha1',
    kind: 'NATSServer',
    metadata: { namespace: 'sys', name: 'bus' },
    spec: {},
  });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'conductor-nats-test-'));
    const binary = await resolveNatsBinary();
    servers = new NatsServers({ root, binary });
    client = new NatsServerClient(servers, binary);
  });
  after(async () => {
    await servers.stopAll();
    await rm(root, { recursive: true, force: true });
  });

  test('create starts a server that refuses anonymous clients', async () => {
    assert.equal((await client.observe(resource)).exists, false);
    const created = await client.create(resource);
    assert.match(created.connectionDetails!.endpoint, /^nats:\/\/127\.0\.0\.1:\d+$/);
    const seen = await client.observe(resource);
    assert.equal(seen.upToDate, true, seen.drift);
    await assert.rejects(connect({ servers: created.connectionDetails!.endpoint, reconnect: false }), 'no anonymous access');
  });

  test('each claim talks on its own subject; another claim cannot read it', async () => {
    const a = await client.bindClaim(resource, claim('a'));
    const b = await client.bindClaim(resource, claim('b'));
    assert.deepEqual((await exchange(a, a, `${a.queue}.orders`)).got, ['hello']);
    const spy = await exchange(b, a, `${a.queue}.orders`);
    assert.deepEqual(spy.got, [], 'b receives nothing of a');
    assert.match(spy.subError ?? '', /permission/i, 'and is told it may not subscribe there');
    const again = await client.bindClaim(resource, claim('a'), a);
    assert.equal(again.password, a.password, 'binding again keeps the password');
  });

  test('a killed server is drift; update starts it again with every account', async () => {
    const a = await client.bindClaim(resource, claim('a'));
    const pid = (await client.observe(resource)).atProvider?.pid as number;
    process.kill(pid, 'SIGKILL');
    await waitForExit(pid, 5000);
    assert.match((await client.observe(resource)).drift ?? '', /not running/);
    await client.update(resource);
    const after = await client.observe(resource);
    assert.equal(after.upToDate, true);
    assert.equal(`nats://127.0.0.1:${JSON.stringify(after.atProvider?.port)}`, a.endpoint, 'the port is kept');
    assert.deepEqual((await exchange(a, a, a.queue)).got, ['hello']);
  });

  test('Retain keeps the account, Recycle invalidates its password, Delete removes it', async () => {
    const cases = [
      { policy: 'Retain' as const, oldLoginWorks: true, accountKept: true },
      { policy: 'Recycle' as const, oldLoginWorks: false, accountKept: true },
      { policy: 'Delete' as const, oldLoginWorks: false, accountKept: false },
    ];
    for (const c of cases) {
      const name = `p-${c.policy.toLowerCase()}`;
      const d = await client.bindClaim(resource, claim(name));
      await client.unbindClaim(resource, { namespace: 'team', name }, c.policy);
      const port = Number(new URL(d.endpoint.replace('nats://', 'http://')).port);
      assert.equal(await natsLogin(port, d.username, d.password), c.oldLoginWorks, `${c.policy}: old login`);
      const state = await servers.readState(servers.dirFor('sys', 'bus'));
      assert.equal(natsShare({ namespace: 'team', name }).account in (state?.accounts ?? {}), c.accountKept, `${c.policy}: account`);
    }
  });

  // Two tenants whose claims earlier versions named alike (same readable part, same 32-bit
  // hash, found by a birthday search): the second bind used to take over the first claim's
  // account, password included.
  const colliding = [
    { namespace: `tenant-${'x'.repeat(49)}-a`, name: 'db-216053' },
    { namespace: `tenant-${'x'.repeat(49)}-b`, name: 'db-23649' },
  ] as const;
  const claimIn = (ref: { namespace: string; name: string }): KObject => ({
    apiVersion: 'messaging.conductor.io/v1alpha1',
    kind: 'MessageQueue',
    metadata: { ...ref, uid: `uid-${ref.namespace}-${ref.name}` },
  });

  test('two claims whose earlier names collided get their own accounts', async () => {
    const [a, b] = colliding;
    assert.equal(legacyClaimIdentifier(a.namespace, a.name), legacyClaimIdentifier(b.namespace, b.name));
    const da = await client.bindClaim(resource, claimIn(a));
    const db = await client.bindClaim(resource, claimIn(b));
    assert.notEqual(db.username, da.username);
    assert.notEqual(db.password, da.password);
    assert.notEqual(db.queue, da.queue);
    const spy = await exchange(db, da, `${da.queue}.orders`);
    assert.deepEqual(spy.got, [], 'b receives nothing of a');
    assert.deepEqual((await exchange(da, da, `${da.queue}.orders`)).got, ['hello']);
  });

  test('an account of another claim is never taken over, even under the same name', async () => {
    const dir = servers.dirFor('sys', 'bus');
    const target = { namespace: 'sys', name: 'bus' };
    await servers.ensureAccount(dir, target, {}, 'shared_name', { claim: { namespace: 'one', name: 'x' }, username: 'shared_name', subject: 'shared_name' });
    await assert.rejects(
      servers.ensureAccount(dir, target, {}, 'shared_name', { claim: { namespace: 'two', name: 'y' }, username: 'shared_name', subject: 'shared_name' }),
      /belongs to claim one\/x/,
    );
    await servers.removeAccount(dir, target, {}, 'shared_name');
  });

  test('an account made by an earlier version under its 8-hex name keeps working: bind, release', async () => {
    const ref = { namespace: 'upgraded', name: 'events' };
    const old = legacyClaimIdentifier(ref.namespace, ref.name);
    const dir = servers.dirFor('sys', 'bus');
    const { account } = await servers.ensureAccount(dir, { namespace: 'sys', name: 'bus' }, {}, old, {
      claim: { ...ref, uid: 'uid-upgraded-events' },
      username: old,
      subject: old,
    });
    const details = await client.bindClaim(resource, claimIn(ref));
    assert.equal(details.username, old);
    assert.equal(details.queue, old);
    assert.equal(details.password, account.password, 'the claim keeps its password');
    assert.deepEqual((await exchange(details, details, `${old}.x`)).got, ['hello']);
    let state = await servers.readState(dir);
    assert.ok(!(claimIdentifier(ref.namespace, ref.name) in (state?.accounts ?? {})), 'no second account was made');
    await client.unbindClaim(resource, ref, 'Delete');
    state = await servers.readState(dir);
    assert.ok(!(old in (state?.accounts ?? {})), 'the earlier account is removed');
  });

  test('delete stops the server and removes its files', async () => {
    await client.delete(resource);
    assert.equal((await client.observe(resource)).exists, false);
  });
});
