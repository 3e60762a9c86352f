import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../../machinery/object.js';
import { ensureAclUser, withRedis } from './admin.js';
import { redisEndpointDetails } from './connection.js';
import type { RedisServer } from './kinds.js';
import { legacyRedisShare, redisServerConnector, redisShare, type RedisServerClient } from './shared-server.js';
import { startThrowawayRedis, type ThrowawayRedis } from './testing.js';
import { fixture } from '../../testing.js';

const claim = (name: string, uid = `uid-${name}`): KObject => ({
  apiVersion: 'cache.conductor.io/v1alpha1',
  kind: 'RedisCluster',
  metadata: { namespace: 'team', name, uid },
});

describe('redisShare', () => {
  test('a claim gets a user and a prefix of its own; similar names do not collide', () => {
    const a = redisShare({ namespace: 'a-b', name: 'c' });
    const b = redisShare({ namespace: 'a', name: 'b-c' });
    assert.notEqual(a.username, b.username);
    assert.equal(a.keyPrefix, `${a.username}:`);
  });
});

describe('RedisServer on a real redis-server', () => {
  let redis: ThrowawayRedis;
  let client: RedisServerClient;
  let resource: RedisServer;
  const asUser = (d: Record<string, string>, args: string[]) =>
    withRedis({ host: d.host, port: Number(d.port), username: d.username, password: d.password }, (r) => r.send(args));
  const admin = (args: string[]) => withRedis({ host: redis.host, port: redis.port, password: redis.password }, (r) => r.send(args));

  before(async () => {
    redis = await startThrowawayRedis();
    resource = fixture<RedisServer>({
      apiVersion: 'cache.local.conductor.io/v1alpha1',
      kind: 'RedisServer',
      metadata: { namespace: 'sys', name: 'shared', uid: 'res-uid' },
      spec: { host: redis.host, port: redis.port, adminCredentialsSecretRef: { name: 'admin' } },
    });
    client = (await redisServerConnector.connect(resource, { credentials: { password: redis.password } })) as RedisServerClient;
  });
  after(async () => redis?.stop());

  test('observe reports the version and eviction policy', async () => {
    const seen = await client.observe(resource);
    assert.equal(seen.exists, true);
    assert.equal(seen.upToDate, true);
    assert.equal(seen.atProvider?.version, redis.binary.version);
    assert.equal(seen.atProvider?.evictionPolicy, 'noeviction');
  });

  test('a bound claim may use keys under its prefix only, and binding again keeps its password', async () => {
    const details = await client.bindClaim(resource, claim('a'));
    assert.equal(details.keyPrefix, redisShare({ namespace: 'team', name: 'a' }).keyPrefix);
    assert.equal(await asUser(details, ['SET', `${details.keyPrefix}k`, '1']), 'OK');
    await assert.rejects(asUser(details, ['SET', 'other:k', '1']), /NOPERM|permission/i);
    await assert.rejects(asUser(details, ['FLUSHALL']), /NOPERM|permission/i);
    const again = await client.bindClaim(resource, claim('a'), details);
    assert.equal(again.password, details.password);
    assert.match(details.uri, /^redis:\/\/team_a_[0-9a-f]{16}:[^@]+@127\.0\.0\.1:\d+$/);
  });

  test("a user removed by hand is a broken share; bindClaim recreates it with the claim's password, update does not", async () => {
    const details = await client.bindClaim(resource, claim('drifty'));
    const bound = fixture<RedisServer>({ ...resource, status: { bindings: [{ claimRef: { namespace: 'team', name: 'drifty', uid: 'uid-drifty' } }] } });
    assert.deepEqual((await client.observe(bound)).brokenShares, []);
    await admin(['ACL', 'DELUSER', details.username]);
    const seen = await client.observe(bound);
    assert.equal(seen.upToDate, true, 'the server itself is fine');
    assert.deepEqual(seen.brokenShares, [{ claim: { namespace: 'team', name: 'drifty', uid: 'uid-drifty' }, missing: `ACL user ${details.username}` }]);
    await client.update(bound);
    assert.equal((await client.observe(bound)).brokenShares?.length, 1, 'update leaves shares to the claim controller');
    assert.deepEqual(await client.bindClaim(resource, claim('drifty'), details), details);
    assert.deepEqual((await client.observe(bound)).brokenShares, []);
    assert.equal(await asUser(details, ['PING']), 'PONG', 'the published credentials work again');
  });

  test('Retain keeps user and keys, Recycle deletes the keys only, Delete removes both', async () => {
    const cases = [
      { policy: 'Retain' as const, userKept: true, keysKept: true },
      { policy: 'Recycle' as const, userKept: true, keysKept: false },
      { policy: 'Delete' as const, userKept: false, keysKept: false },
    ];
    for (const c of cases) {
      const name = `p-${c.policy.toLowerCase()}`;
      const details = await client.bindClaim(resource, claim(name));
      for (let i = 0; i < 30; i++) await asUser(details, ['SET', `${details.keyPrefix}k${i}`, 'x']);
      await admin(['SET', `${details.keyPrefix.slice(0, -1)}-not-mine`, 'x']);
      await client.unbindClaim(resource, { namespace: 'team', name, uid: `uid-${name}` }, c.policy);
      const users = (await admin(['ACL', 'USERS'])) as string[];
      assert.equal(users.includes(details.username), c.userKept, `${c.policy}: user kept`);
      const keys = (await admin(['KEYS', `${details.keyPrefix}*`])) as string[];
      assert.equal(keys.length, c.keysKept ? 30 : 0, `${c.policy}: keys`);
      assert.equal(await admin(['EXISTS', `${details.keyPrefix.slice(0, -1)}-not-mine`]), 1, `${c.policy}: a key outside the prefix stays`);
    }
  });

  test('the connector wants the admin password', async () => {
    await assert.rejects(redisServerConnector.connect(resource, { credentials: {} }), /lacks password/);
  });

  // Two tenants whose claims earlier versions named alike (same readable part, same 32-bit
  // hash, found by a birthday search): the second bind used to reset the first claim's ACL
  // user to its own password and so reach the first claim's keys.
  const colliding = [
    { namespace: `tenant-${'x'.repeat(49)}-a`, name: 'db-216053' },
    { namespace: `tenant-${'x'.repeat(49)}-b`, name: 'db-23649' },
  ] as const;
  const claimIn = (ref: { namespace: string; name: string }): KObject => ({
    apiVersion: 'cache.conductor.io/v1alpha1',
    kind: 'RedisCluster',
    metadata: { ...ref, uid: `uid-${ref.namespace}-${ref.name}` },
  });

  test('two claims whose earlier names collided get their own users and prefixes', async () => {
    const [a, b] = colliding;
    assert.deepEqual(legacyRedisShare(a).username, legacyRedisShare(b).username);
    const da = await client.bindClaim(resource, claimIn(a));
    await asUser(da, ['SET', `${da.keyPrefix}secret`, 'a-only']);
    const db = await client.bindClaim(resource, claimIn(b));
    assert.notEqual(db.username, da.username);
    assert.notEqual(db.keyPrefix, da.keyPrefix);
    assert.ok(!da.keyPrefix.startsWith(db.keyPrefix) && !db.keyPrefix.startsWith(da.keyPrefix));
    await assert.rejects(asUser(db, ['GET', `${da.keyPrefix}secret`]), /NOPERM|permission/i);
    assert.equal(await asUser(da, ['GET', `${da.keyPrefix}secret`]), 'a-only');
    await client.unbindClaim(resource, b, 'Delete', db);
    assert.equal(await asUser(da, ['GET', `${da.keyPrefix}secret`]), 'a-only');
  });

  test('a user made by an earlier version under its 8-hex name keeps working: bind, observe, release', async () => {
    const ref = { namespace: 'upgraded', name: 'cache' };
    const old = legacyRedisShare(ref);
    const password = 'earlier-password-1';
    await withRedis({ host: redis.host, port: redis.port, password: redis.password }, (r) => ensureAclUser(r, old.username, password, old.keyPrefix));
    const recorded = redisEndpointDetails({ host: redis.host, port: redis.port, username: old.username, password, keyPrefix: old.keyPrefix });
    await asUser(recorded, ['SET', `${old.keyPrefix}k`, 'kept']);
    const details = await client.bindClaim(resource, claimIn(ref), recorded);
    assert.equal(details.username, old.username);
    assert.equal(details.keyPrefix, old.keyPrefix);
    assert.equal(details.password, password);
    assert.equal(await asUser(details, ['GET', `${old.keyPrefix}k`]), 'kept');
    const users = (await admin(['ACL', 'USERS'])) as string[];
    assert.ok(!users.includes(redisShare(ref).username), 'no second user was made');
    const bound = { ...resource, status: { bindings: [{ claimRef: { ...ref, uid: 'uid-upgraded-cache' } }] } } as RedisServer;
    assert.deepEqual((await client.observe(bound)).brokenShares, []);
    await client.unbindClaim(resource, ref, 'Delete', details);
    assert.ok(!((await admin(['ACL', 'USERS'])) as string[]).includes(old.username));
    assert.equal(await admin(['EXISTS', `${old.keyPrefix}k`]), 0);
  });
});
