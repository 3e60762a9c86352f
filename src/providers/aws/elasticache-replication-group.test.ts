/**
 * The ElastiCacheReplicationGroup client with ElastiCache mocked at the SDK's request level
 * (aws-sdk-client-mock, test/support/aws-fakes.ts) following ElastiCache's documented state
 * machine: creating → available → modifying → available → deleting → gone; polls of a busy
 * group back off; a create repeated after a crash finds the group by its tag; a group made for
 * something else is not taken; an imported group publishes no token; capacity, quota,
 * throttling and invalid-parameter errors are said with their reason; the AUTH token is
 * Conductor's, within ElastiCache's rules, the same after a crash, and never in a message.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { elastiCacheErrors, FakeElastiCache } from '../../../test/support/aws-fakes.js';
import type { KObject } from '../../machinery/object.js';
import { fixture } from '../testing.js';
import { awsCredentialsFrom } from './credentials.js';
import { authToken } from './elasticache-auth-token.js';
import { ElastiCacheReplicationGroupClient, elastiCachePollSchedule } from './elasticache-replication-group.js';
import { AwsError } from './errors.js';
import type { ElastiCacheReplicationGroup } from './kinds.js';
import { MAX_POLL_MS, type PollSchedule } from './poll-schedule.js';
import { masterPassword } from './rds-password.js';

const provider: KObject = { apiVersion: 'core.conductor.io/v1alpha1', kind: 'Provider', metadata: { name: 'aws' }, spec: { type: 'aws', region: 'us-east-1' } };
const secret = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const credentials = awsCredentialsFrom(secret);
const group = (name: string, forProvider: Record<string, unknown> = {}): ElastiCacheReplicationGroup =>
  fixture<ElastiCacheReplicationGroup>({
    apiVersion: 'cache.aws.conductor.io/v1alpha1',
    kind: 'ElastiCacheReplicationGroup',
    metadata: { namespace: 'conductor-system', name },
    spec: { providerRef: { name: 'aws' }, forProvider: { nodeType: 'cache.t4g.micro', replicas: 1, ...forProvider } },
  });

describe('ElastiCacheReplicationGroup (mocked ElastiCache)', () => {
  let ec: FakeElastiCache;
  let clock: number;
  let polls: PollSchedule;
  let client: ElastiCacheReplicationGroupClient;
  beforeEach(() => {
    ec = new FakeElastiCache();
    clock = 1_000_000;
    polls = elastiCachePollSchedule(() => clock);
    client = new ElastiCacheReplicationGroupClient(credentials, provider, polls);
  });
  afterEach(() => ec.restore());
  const settle = (id: string) => {
    ec.advance(id);
    clock += MAX_POLL_MS;
  };

  test('creating → available → modifying → available → deleting → gone (mocked)', async () => {
    const r = group('sessions', { replicationGroupId: 'Sessions-Cache', engineVersion: '7.1' });
    assert.equal((await client.observe(r)).exists, false);
    assert.equal((await client.create(r)).externalName, 'sessions-cache', 'ElastiCache keeps IDs in lower case');
    const made = ec.groups.get('sessions-cache')!;
    const token = authToken(credentials.masterPasswordKey, 'us-east-1', 'sessions-cache');
    assert.equal(made.input.AuthToken, token);
    assert.match(token, /^[0-9a-f]{64}$/, "within ElastiCache's AUTH token rules");
    assert.notEqual(token, masterPassword(credentials.masterPasswordKey, 'us-east-1', 'sessions-cache').slice(0, 64));
    assert.equal(made.input.TransitEncryptionEnabled, true);
    assert.equal(made.input.AtRestEncryptionEnabled, true);
    assert.equal(made.input.NumCacheClusters, 2);
    assert.equal(made.input.AutomaticFailoverEnabled, true);
    assert.equal(made.input.EngineVersion, '7.1');
    assert.deepEqual(made.input.Tags?.[0], { Key: 'conductor.io/resource', Value: 'conductor-system/sessions' });

    const creating = await client.observe(r);
    assert.equal(creating.exists, true);
    assert.equal(creating.notReady?.reason, 'Creating');
    assert.equal(creating.connectionDetails, undefined, 'nothing published before the endpoint exists');

    settle('sessions-cache');
    const available = await client.observe(r);
    assert.equal(available.notReady, undefined);
    assert.equal(available.upToDate, true);
    assert.deepEqual(available.connectionDetails, {
      host: 'master.sessions-cache.abc123.use1.cache.amazonaws.com',
      port: '6379',
      password: token,
      uri: `rediss://:${token}@master.sessions-cache.abc123.use1.cache.amazonaws.com:6379`,
      tls: 'true',
      readerHost: 'replica.sessions-cache.abc123.use1.cache.amazonaws.com',
      replicationGroupId: 'sessions-cache',
    });
    const price = available.atProvider?.monthlyPrice as Record<string, string>;
    assert.equal(price.amount, '23.36');
    assert.match(price.basis, /^2 nodes × 730 h × 0.016 USD\/h \(cache.t4g.micro\), us-east-1$/);
    assert.match(price.table, /^2024-06-01, unverified; https:\/\/aws\.amazon\.com\/elasticache\/pricing\//);

    // A bigger node type: drift, corrected by ModifyReplicationGroup; modifying until ElastiCache applies it.
    const bigger = group('sessions', { replicationGroupId: 'sessions-cache', nodeType: 'cache.t4g.small' });
    const drift = await client.observe(bigger);
    assert.equal(drift.upToDate, false);
    assert.equal(drift.drift, 'node type is cache.t4g.micro, spec wants cache.t4g.small');
    await client.update(bigger);
    assert.equal((await client.observe(bigger)).notReady?.reason, 'Modifying');
    settle('sessions-cache');
    const scaled = await client.observe(bigger);
    assert.equal(scaled.upToDate, true);
    assert.equal(scaled.atProvider?.nodeType, 'cache.t4g.small');

    await client.delete(bigger);
    assert.equal((await client.observe(bigger)).notReady?.reason, 'Deleting');
    await client.delete(bigger); // already deleting: done
    settle('sessions-cache');
    assert.equal((await client.observe(bigger)).exists, false);
    await client.delete(bigger); // gone: done
    assert.equal(ec.calls.filter((c) => c === 'DeleteReplicationGroup').length, 3);
    assert.equal(ec.inputs.find((c) => c.operation === 'DeleteReplicationGroup')?.input.FinalSnapshotIdentifier, undefined);
  });

  test('replicas: added and removed one step per update, automatic failover off before the last replica goes and on when one comes (mocked)', async () => {
    const r = (replicas: number) => group('queue', { replicationGroupId: 'queue-cache', replicas });
    await client.create(r(1));
    settle('queue-cache');
    assert.equal((await client.observe(r(1))).upToDate, true);

    // 1 → 3 replicas.
    assert.equal((await client.observe(r(3))).drift, 'replicas are 1, spec wants 3');
    await client.update(r(3));
    assert.deepEqual(ec.inputs.at(-1), {
      operation: 'IncreaseReplicaCount',
      input: { ReplicationGroupId: 'queue-cache', NewReplicaCount: 3, ApplyImmediately: true },
    });
    settle('queue-cache');
    assert.equal((await client.observe(r(3))).upToDate, true);

    // 3 → 0: failover off first (ElastiCache refuses to remove the last replica otherwise), then the replicas.
    assert.equal((await client.observe(r(0))).drift, 'replicas are 3, spec wants 0; automatic failover is on, spec wants off');
    await client.update(r(0));
    assert.equal(ec.calls.at(-1), 'ModifyReplicationGroup');
    assert.equal(ec.inputs.at(-1)?.input.AutomaticFailoverEnabled, false);
    settle('queue-cache');
    assert.equal((await client.observe(r(0))).drift, 'replicas are 3, spec wants 0');
    await client.update(r(0));
    assert.equal(ec.calls.at(-1), 'DecreaseReplicaCount');
    settle('queue-cache');
    const single = await client.observe(r(0));
    assert.equal(single.upToDate, true);
    assert.equal(single.connectionDetails?.readerHost, '', 'no reader endpoint without replicas');
    assert.equal(single.atProvider?.monthlyPrice && (single.atProvider.monthlyPrice as Record<string, string>).amount, '11.68');

    // 0 → 1: a replica, then failover on again.
    await client.update(r(1));
    assert.equal(ec.calls.at(-1), 'IncreaseReplicaCount');
    settle('queue-cache');
    assert.equal((await client.observe(r(1))).drift, 'automatic failover is off, spec wants on');
    await client.update(r(1));
    assert.equal(ec.inputs.at(-1)?.input.AutomaticFailoverEnabled, true);
    settle('queue-cache');
    assert.equal((await client.observe(r(1))).upToDate, true);
  });

  test('a busy group is polled with backoff: 5 s, doubling while its state stays, up to 60 s (mocked)', async () => {
    const r = group('slow', { replicationGroupId: 'slow-cache' });
    await client.create(r);
    const describes = () => ec.calls.filter((c) => c === 'DescribeReplicationGroups').length;
    await client.observe(r);
    const asked: number[] = [];
    for (let t = 0; t < 240; t++) {
      clock += 1000;
      const before = describes();
      assert.equal((await client.observe(r)).notReady?.reason, 'Creating');
      if (describes() > before) asked.push(t + 1);
    }
    const gaps = asked.slice(1).map((t, i) => t - asked[i]);
    assert.deepEqual(gaps.slice(0, 4), [10, 20, 40, 60], `gaps between polls: ${gaps.join(', ')}`);
    assert.ok(gaps.every((g) => g <= 60));
    settle('slow-cache');
    assert.equal((await client.observe(r)).notReady, undefined, 'available seen at the next poll');
  });

  test("a create repeated after a crash finds the group by its tag and keeps its token; another resource's group is not taken; an imported group publishes no token (mocked)", async () => {
    const r = group('orders', { replicationGroupId: 'orders-cache' });
    await client.create(r);
    const afterCrash = new ElastiCacheReplicationGroupClient(
      credentials,
      provider,
      elastiCachePollSchedule(() => clock),
    );
    assert.equal((await afterCrash.create(r)).externalName, 'orders-cache');
    assert.equal(ec.groups.size, 1, 'nothing created twice');
    settle('orders-cache');
    assert.equal((await afterCrash.observe(r)).connectionDetails?.password, ec.groups.get('orders-cache')!.input.AuthToken);

    const other = group('intruder', { replicationGroupId: 'orders-cache' });
    await assert.rejects(afterCrash.create(other), (err: unknown) => {
      assert.ok(err instanceof AwsError);
      assert.equal(err.reason, 'AlreadyExists');
      assert.match(err.message, /was not made for this resource — import it with the annotation conductor.io\/external-name/);
      return true;
    });

    const imported = group('imported');
    imported.metadata.annotations = { 'conductor.io/external-name': 'orders-cache' };
    const seen = await afterCrash.observe(imported);
    assert.equal(seen.exists, true);
    assert.equal(seen.connectionDetails?.password, '', "an imported group's token is its owner's");
    assert.equal(seen.connectionDetails?.uri, 'rediss://master.orders-cache.abc123.use1.cache.amazonaws.com:6379');
  });

  test('capacity, quota, throttling and invalid parameters are said with their reason, never with the token (mocked)', async () => {
    const r = group('orders', { replicationGroupId: 'orders-cache' });
    const token = authToken(credentials.masterPasswordKey, 'us-east-1', 'orders-cache');
    const cases: [Error, string, RegExp][] = [
      [elastiCacheErrors.insufficientCapacity(), 'InsufficientCapacity', /InsufficientCacheClusterCapacity.*no capacity for this node type/],
      [elastiCacheErrors.nodeQuota(), 'QuotaExceeded', /NodeQuotaForCustomerExceeded.*quota is reached/],
      [elastiCacheErrors.clusterQuota(), 'QuotaExceeded', /ClusterQuotaForCustomerExceeded.*quota is reached/],
      [elastiCacheErrors.throttling(), 'Throttled', /throttled by AWS; retried with backoff/],
      [
        elastiCacheErrors.invalidParameter('Cache node type cache.r7g.xlarge is not supported in this region.'),
        'InvalidParameter',
        /not supported in this region/,
      ],
    ];
    for (const [err, reason, message] of cases) {
      ec.failNext('CreateReplicationGroup', err);
      await assert.rejects(client.create(r), (e: unknown) => {
        assert.ok(e instanceof AwsError, String(e));
        assert.equal(e.reason, reason);
        assert.match(e.message, message);
        assert.match(e.message, /^cannot create replication group orders-cache: /);
        assert.ok(!e.message.includes(token), 'the token never appears');
        return true;
      });
    }
    assert.equal(ec.groups.size, 0);
    await client.create(r);
    assert.equal(ec.groups.size, 1, 'created once the errors pass');

    // Scaling up can meet the same shortage: said naming the change.
    ec.advance('orders-cache');
    ec.failNext('ModifyReplicationGroup', elastiCacheErrors.insufficientCapacity());
    await assert.rejects(client.update(group('orders', { replicationGroupId: 'orders-cache', nodeType: 'cache.r7g.xlarge' })), (e: unknown) => {
      assert.ok(e instanceof AwsError);
      assert.equal(e.reason, 'InsufficientCapacity');
      assert.match(e.message, /^cannot change the node type of replication group orders-cache to cache.r7g.xlarge: AWS answered 400 /);
      return true;
    });
  });

  test('a failed create is reported for an administrator; a delete while creating is retried; finalSnapshot names the snapshot (mocked)', async () => {
    const r = group('broken', { replicationGroupId: 'broken-cache', finalSnapshot: true });
    await client.create(r);
    await assert.rejects(client.delete(r), /it is creating; retried/);
    ec.groups.get('broken-cache')!.status = 'create-failed';
    clock += MAX_POLL_MS;
    const seen = await client.observe(r);
    assert.equal(seen.notReady?.reason, 'ReplicationGroupCreateFailed');
    assert.match(seen.notReady?.message ?? '', /needs an administrator/);
    await client.delete(r);
    assert.equal(ec.inputs.at(-1)?.input.FinalSnapshotIdentifier, 'broken-cache-final');
  });

  test('a snapshotting group serves clients and is not changed until the backup ends (mocked)', async () => {
    const r = group('backup', { replicationGroupId: 'backup-cache' });
    await client.create(r);
    settle('backup-cache');
    ec.groups.get('backup-cache')!.status = 'snapshotting';
    const seen = await client.observe(group('backup', { replicationGroupId: 'backup-cache', nodeType: 'cache.t4g.medium' }));
    assert.equal(seen.notReady, undefined);
    assert.equal(seen.upToDate, true);
    assert.equal(seen.connectionDetails?.tls, 'true');
  });
});
