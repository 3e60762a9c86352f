import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject, KObject } from '../../machinery/object.js';
import type { MatchResult } from '../spi.js';
import { fixture } from '../testing.js';
import {
  configureElastiCacheReplicationGroup,
  configureRDSInstance,
  configureS3Bucket,
  configureSQSQueue,
  elastiCacheVersionFor,
  matchElastiCacheReplicationGroup,
  matchRDSInstance,
  matchS3Bucket,
  matchSQSQueue,
  nodeTypeFor,
  rdsVersionFor,
} from './claims.js';
import type { ElastiCacheReplicationGroup, RDSInstance, S3Bucket, SQSQueue } from './kinds.js';
import { awsNameProblem, claimAwsName } from './names.js';
import { elastiCacheMonthlyPrice, rdsMonthlyPrice, s3MonthlyPrice } from './prices.js';

const claim = (kind: string, spec: Record<string, unknown> = {}, name = 'photos'): KObject => ({
  apiVersion: 'storage.conductor.io/v1alpha1',
  kind,
  metadata: { namespace: 'shop', name },
  spec,
});
const cls = (spec: Record<string, unknown> = {}) => ({
  type: 'class' as const,
  resourceClass: { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ResourceClass', metadata: { name: 'c' } },
  template: { apiVersion: 'x/v1', kind: 'X', spec: spec as JsonObject },
});

const why = (r: MatchResult) => (r.fits ? '' : r.reason);

describe('aws claims', () => {
  test('S3Bucket: publicRead does not fit; versioning is set on new buckets and required of existing ones', () => {
    assert.equal(matchS3Bucket(claim('Bucket', { publicRead: true }), cls()).fits, false);
    assert.equal(matchS3Bucket(claim('Bucket', { versioning: true }), cls()).fits, true);
    const plain = fixture<S3Bucket>({ apiVersion: 'x/v1', kind: 'S3Bucket', metadata: { name: 'b' }, spec: { forProvider: { versioning: false } } });
    assert.equal(matchS3Bucket(claim('Bucket', { versioning: true }), { type: 'resource', resource: plain }).fits, false);
    const spec = configureS3Bucket(claim('Bucket', { versioning: true, requirements: { capacity: { storage: '10Gi' } } }), {
      apiVersion: 'x/v1',
      kind: 'S3Bucket',
      spec: { capabilities: { region: 'eu-west-1' }, forProvider: { bucketName: 'shared-name' } },
    }) as any;
    assert.match(spec.forProvider.bucketName, /^shop-photos-[0-9a-f]{16}$/);
    assert.equal(spec.forProvider.region, 'eu-west-1');
    assert.equal(spec.forProvider.versioning, true);
    assert.deepEqual(spec.capabilities, { region: 'eu-west-1', capacity: { storage: '10Gi' } });
  });

  test('SQSQueue: fifo makes and needs a FIFO queue; retention set and bounded', () => {
    const spec = configureSQSQueue(claim('MessageQueue', { fifo: true, retentionSeconds: 30 }, 'jobs'), { apiVersion: 'x/v1', kind: 'SQSQueue' }) as any;
    assert.match(spec.forProvider.queueName, /^shop-jobs-[0-9a-f]{16}\.fifo$/);
    assert.equal(spec.forProvider.fifo, true);
    assert.equal(spec.forProvider.messageRetentionSeconds, 60);
    assert.equal(matchSQSQueue(claim('MessageQueue', { retentionSeconds: 2_000_000 }), cls()).fits, false);
    const standard = fixture<SQSQueue>({
      apiVersion: 'x/v1',
      kind: 'SQSQueue',
      metadata: { name: 'q' },
      spec: { forProvider: { fifo: false, messageRetentionSeconds: 600 } },
    });
    assert.equal(matchSQSQueue(claim('MessageQueue', { fifo: true }), { type: 'resource', resource: standard }).fits, false);
    assert.equal(matchSQSQueue(claim('MessageQueue', { retentionSeconds: 3600 }), { type: 'resource', resource: standard }).fits, false);
    assert.equal(matchSQSQueue(claim('MessageQueue', { retentionSeconds: 300 }), { type: 'resource', resource: standard }).fits, true);
  });

  test('RDSInstance: engine from the claim kind, the newest major within the version range, storage in GiB', () => {
    assert.deepEqual(rdsVersionFor('postgres', '>= 14'), { version: '17' });
    assert.deepEqual(rdsVersionFor('postgres', '15'), { version: '15' });
    assert.deepEqual(rdsVersionFor('mysql', '8'), { version: '8.4' });
    assert.match(rdsVersionFor('postgres', '9.6').problem ?? '', /RDS offers postgres 13, 14, 15, 16, 17, none within "9.6"/);
    assert.equal(matchRDSInstance(claim('MySQLInstance'), cls({ forProvider: { engine: 'postgres' } })).fits, false);
    assert.equal(matchRDSInstance(claim('PostgreSQLInstance', { version: 'banana' }), cls()).fits, false);
    const spec = configureRDSInstance(
      claim(
        'PostgreSQLInstance',
        { version: '16', databaseName: 'catalog', masterUsername: 'shop', requirements: { capacity: { storage: '25Gi' } } },
        'catalog',
      ),
      {
        apiVersion: 'x/v1',
        kind: 'RDSInstance',
        spec: { forProvider: { region: 'us-east-1', instanceClass: 'db.t4g.small' } },
      },
    ) as any;
    assert.deepEqual(spec.forProvider, {
      region: 'us-east-1',
      instanceClass: 'db.t4g.small',
      instanceIdentifier: spec.forProvider.instanceIdentifier,
      engine: 'postgres',
      engineVersion: '16',
      masterUsername: 'shop',
      databaseName: 'catalog',
      allocatedStorageGi: 25,
    });
    assert.match(spec.forProvider.instanceIdentifier, /^shop-catalog-[0-9a-f]{16}$/);
    const r = fixture<RDSInstance>({
      apiVersion: 'x/v1',
      kind: 'RDSInstance',
      metadata: { name: 'r' },
      spec: { forProvider: { engine: 'postgres', engineVersion: '14' } },
    });
    assert.equal(matchRDSInstance(claim('PostgreSQLInstance', { version: '>= 15' }), { type: 'resource', resource: r }).fits, false);
  });

  test('RDSInstance: storage above 65536 GiB does not fit, said in GiB (never cut down in silence)', () => {
    const asking = (storage: string) => claim('PostgreSQLInstance', { requirements: { capacity: { storage } } });
    assert.equal(matchRDSInstance(asking('64Ti'), cls()).fits, true);
    assert.equal(why(matchRDSInstance(asking('65Ti'), cls())), 'wants 66560 GiB of storage; an RDS instance offers at most 65536 GiB');
    assert.equal(why(matchRDSInstance(asking('lots'), cls())), 'requirements.capacity.storage is not a quantity');
  });

  test('names: AWS rules, claim-derived names valid for each', () => {
    assert.equal(awsNameProblem('bucket', 'ok-bucket.1'), undefined);
    assert.match(awsNameProblem('bucket', '192.168.1.1') ?? '', /looks like an IP address/);
    assert.match(awsNameProblem('bucket', 'xn--abc') ?? '', /reserves/);
    assert.match(awsNameProblem('instance', '1db') ?? '', /must begin with a letter/);
    assert.match(awsNameProblem('instance', 'a--b') ?? '', /two in a row/);
    assert.match(awsNameProblem('queue', 'a b') ?? '', /letters, digits, hyphens and underscores/);
    assert.match(awsNameProblem('replicationGroup', 'r'.repeat(41)) ?? '', /41 characters: want 1 to 40/);
    assert.match(awsNameProblem('replicationGroup', 'cache-') ?? '', /may not end with a hyphen/);
    assert.match(awsNameProblem('replicationGroup', '7cache') ?? '', /must begin with a letter/);
    const long = 'n'.repeat(63);
    for (const kind of ['bucket', 'queue', 'instance', 'replicationGroup'] as const) {
      for (const [ns, name] of [
        ['shop', 'photos'],
        [long, long],
        ['9lives', 'x'],
      ]) {
        const made = claimAwsName(kind, ns, name, kind === 'queue');
        assert.equal(awsNameProblem(kind, made), undefined, `${kind} ${made}`);
      }
    }
  });

  test('ElastiCacheReplicationGroup: version within the range, eviction policy of the parameter group, node type grown to the memory asked', () => {
    assert.deepEqual(elastiCacheVersionFor('>= 7'), { version: '7.1' });
    assert.deepEqual(elastiCacheVersionFor('6'), { version: '6.2' });
    assert.match(elastiCacheVersionFor('5').problem ?? '', /ElastiCache offers Redis OSS 6.2, 7.0, 7.1, none within "5"/);
    assert.equal(nodeTypeFor(undefined, undefined), 'cache.t4g.micro');
    assert.equal(nodeTypeFor('cache.m7g.large', 1), 'cache.m7g.large', "the template's node type when it holds the memory");
    assert.equal(nodeTypeFor('cache.t4g.micro', 2), 'cache.t4g.medium', 'else the smallest that does');
    assert.equal(nodeTypeFor('cache.t4g.micro', 100), undefined);

    const redis = (spec: Record<string, unknown>) => claim('RedisCluster', spec, 'sessions');
    assert.equal(matchElastiCacheReplicationGroup(redis({ version: '>= 7' }), cls()).fits, true);
    assert.match(why(matchElastiCacheReplicationGroup(redis({ version: '5' }), cls())), /none within "5"/);
    const lfu = matchElastiCacheReplicationGroup(redis({ evictionPolicy: 'allkeys-lfu' }), cls());
    assert.equal(lfu.fits, false);
    assert.match(why(lfu), /parameter group evicts by "volatile-lru", claim wants "allkeys-lfu"/);
    assert.equal(
      matchElastiCacheReplicationGroup(
        redis({ evictionPolicy: 'allkeys-lfu' }),
        cls({ forProvider: { evictionPolicy: 'allkeys-lfu', parameterGroupName: 'lfu' } }),
      ).fits,
      true,
    );
    const huge = matchElastiCacheReplicationGroup(redis({ requirements: { capacity: { memory: '100Gi' } } }), cls());
    assert.equal(huge.fits, false);
    assert.match(why(huge), /no ElastiCache node type Conductor offers holds 100 GiB \(the largest, cache.r7g.xlarge, has 26.32 GiB\)/);
    assert.match(why(matchElastiCacheReplicationGroup(redis({ requirements: { capacity: { memory: 'lots' } } }), cls())), /not a quantity/);
    const small = fixture<ElastiCacheReplicationGroup>({
      apiVersion: 'x/v1',
      kind: 'ElastiCacheReplicationGroup',
      metadata: { name: 'g' },
      spec: { forProvider: { nodeType: 'cache.t4g.micro', engineVersion: '6.2' } },
    });
    assert.match(
      why(matchElastiCacheReplicationGroup(redis({ requirements: { capacity: { memory: '1Gi' } } }), { type: 'resource', resource: small })),
      /node type cache.t4g.micro has 0.5 GiB, claim asks 1 GiB/,
    );
    assert.match(why(matchElastiCacheReplicationGroup(redis({ version: '7' }), { type: 'resource', resource: small })), /group version 6.2 is not within "7"/);

    const spec = configureElastiCacheReplicationGroup(redis({ version: '7.0', requirements: { capacity: { memory: '2Gi' } } }), {
      apiVersion: 'x/v1',
      kind: 'ElastiCacheReplicationGroup',
      spec: { forProvider: { region: 'eu-west-1', replicationGroupId: 'shared', replicas: 2 } },
    }) as any;
    assert.match(spec.forProvider.replicationGroupId, /^shop-sessions-[0-9a-f]{16}$/);
    assert.equal(spec.forProvider.engineVersion, '7.0');
    assert.equal(spec.forProvider.nodeType, 'cache.t4g.medium');
    assert.equal(spec.forProvider.replicas, 2);
    assert.deepEqual(spec.capabilities, { region: 'eu-west-1', capacity: { memory: '2Gi' } });
  });

  test('prices: S3 by size and region, RDS by hours and storage (Multi-AZ doubled), or why none', () => {
    const s3 = s3MonthlyPrice('us-east-1', '100G');
    assert.equal(s3.amount, '2.30');
    assert.match(s3MonthlyPrice('ap-south-2', '1Gi').amount === undefined ? 'none' : '', /none/);
    const rds = rdsMonthlyPrice({
      engine: 'postgres',
      region: 'us-east-1',
      instanceClass: 'db.t4g.micro',
      allocatedStorageGb: 20,
      storageType: 'gp3',
      multiAZ: true,
    });
    assert.equal(rds.amount, '27.96'); // 2 × (730 × 0.016 + 20 × 0.115)
    assert.match(rds.amount !== undefined ? rds.basis : '', /^2 × \(730 h × 0.016 USD\/h .* for Multi-AZ, us-east-1$/);
    assert.match(rds.amount !== undefined ? rds.table : '', /^2024-06-01, unverified; https:\/\/aws\.amazon\.com\/rds\//);
    const cache = elastiCacheMonthlyPrice({ region: 'us-east-1', nodeType: 'cache.m7g.large', nodes: 3 });
    assert.equal(cache.amount, '346.02'); // 3 × 730 × 0.158
    assert.match(elastiCacheMonthlyPrice({ region: 'sa-east-1', nodeType: 'cache.t4g.micro', nodes: 1 }).amount === undefined ? 'none' : '', /none/);
  });
});
