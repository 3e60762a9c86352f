/**
 * The aws provider against the project's own S3-compatible server (s3rver behind Conductor's
 * SigV4 gateway, test/support/s3-gateway.ts), with real kubectl and @aws-sdk/client-s3.
 * Providers of type aws are Ready when the S3 endpoint answers the keys (ListBuckets: this
 * emulator has no STS), and Ready=False with the reason — InvalidSpec for a region AWS does
 * not have, InvalidCredentials naming the missing key, AuthenticationFailed for a wrong key,
 * Unreachable — never quoting the key. Bucket claims served by classes whose template is an
 * S3Bucket become Bound and Ready; the claim's Secret alone lets the SDK put and get an
 * object. Deleting the claims deletes the bucket (with its objects) under Delete and keeps it
 * under Retain. An existing bucket is imported by conductor.io/external-name with
 * ObserveOnly and left alone when its resource goes; names S3 refuses are refused at
 * admission (422 naming the field) or said in a condition; a Provider in federated mode (the
 * default) without STS says in the resource's condition what to set. A RedisCluster claim
 * provisions an ElastiCacheReplicationGroup sized to its memory, up to the SDK call.
 * examples/clouds/aws's Provider, classes and Bucket claim work as written (SQS, RDS and
 * ElastiCache have no emulator here: test/support/aws-fakes.ts mocks them in the unit tests).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, repoRoot, serverForSuite } from '../support/server.js';
import { credentialsSecretYaml, providerYaml } from '../support/cloud-provider.js';
import { startS3Gateway, type S3Gateway } from '../support/s3-gateway.js';

const NS = 'conductor-system';
const ns = ['-n', NS];

describe('the aws provider against the project S3 server', () => {
  let gw: S3Gateway;
  let admin: S3Client;
  before(async () => {
    gw = await startS3Gateway();
    admin = new S3Client({
      endpoint: gw.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
    });
  });
  after(async () => gw?.stop());
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '500' } });

  const apply = (yaml: string) => kubectlOk(suite.server, ['apply', '-f', '-'], { input: yaml });
  const jsonpath = (args: string[], path: string) => kubectlOk(suite.server, ['get', ...args, '-o', `jsonpath=${path}`]);
  const condition = (kind: string, name: string, type: string, field: 'status' | 'reason' | 'message') =>
    jsonpath([kind, name, ...ns], `{.status.conditions[?(@.type=="${type}")].${field}}`);
  const secretOf = async (namespace: string, name: string) => {
    const s = JSON.parse(await kubectlOk(suite.server, ['get', 'secret', name, '-n', namespace, '-o', 'json']));
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const boundAndReady = (kind: string, namespace: string, name: string) =>
    eventually(
      async () => {
        const c = JSON.parse(await kubectlOk(suite.server, ['get', kind, name, '-n', namespace, '-o', 'json']));
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `${kind} ${namespace}/${name} Bound and Ready`,
      60_000,
    );
  const bucketExists = async (name: string) => {
    try {
      await admin.send(new HeadBucketCommand({ Bucket: name }));
      return true;
    } catch (err: any) {
      if (err.$metadata?.httpStatusCode === 404) return false;
      throw err;
    }
  };
  const provider = (name: string, secret: string, region = 'us-east-1') => providerYaml('aws', name, secret, { region });
  const wrongSecret = 'Wrong0Secret0Key0That0Is0Forty0Chars0Abc';

  test('Providers of type aws: Ready when the keys authenticate, else Ready=False with the reason and no secret', async () => {
    await kubectlOk(suite.server, [
      'wait',
      '--for=condition=Established',
      'crd/s3buckets.storage.aws.conductor.io',
      'crd/sqsqueues.messaging.aws.conductor.io',
      'crd/rdsinstances.database.aws.conductor.io',
      'crd/elasticachereplicationgroups.cache.aws.conductor.io',
      '--timeout=60s',
    ]);
    const keys = { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey, s3Endpoint: gw.endpoint };
    await apply(
      [
        credentialsSecretYaml('aws-keys', { ...keys, claimCredentials: 'provider' }),
        credentialsSecretYaml('aws-federated', keys),
        credentialsSecretYaml('aws-wrong-key', { ...keys, secretAccessKey: wrongSecret }),
        credentialsSecretYaml('aws-no-secret', { accessKeyId: gw.accessKeyId, s3Endpoint: gw.endpoint }),
        credentialsSecretYaml('aws-nowhere', { ...keys, s3Endpoint: 'http://127.0.0.1:1' }),
        provider('aws', 'aws-keys'),
        provider('federated', 'aws-federated'),
        provider('wrong-key', 'aws-wrong-key'),
        provider('no-secret', 'aws-no-secret'),
        provider('nowhere', 'aws-nowhere'),
        provider('bad-region', 'aws-keys', 'moon-1'),
      ].join('---\n'),
    );
    await eventually(async () => (await condition('provider', 'aws', 'Ready', 'status')) === 'True', 'Provider aws Ready');
    assert.match(await condition('provider', 'aws', 'Ready', 'message'), /S3 endpoint answers and the keys authenticate \(ListBuckets/);
    const expected: Record<string, { reason: RegExp; message: RegExp }> = {
      'wrong-key': { reason: /^(AuthenticationFailed|Forbidden)$/, message: /403/ },
      'no-secret': { reason: /^InvalidCredentials$/, message: /has accessKeyId but no secretAccessKey: add secretAccessKey/ },
      nowhere: { reason: /^Unreachable$/, message: /no answer .*ECONNREFUSED/ },
      'bad-region': { reason: /^InvalidSpec$/, message: /spec.region "moon-1" is not an AWS region/ },
    };
    for (const [name, want] of Object.entries(expected)) {
      await eventually(async () => (await condition('provider', name, 'Ready', 'status')) === 'False', `Provider ${name} not Ready`);
      assert.match(await condition('provider', name, 'Ready', 'reason'), want.reason, name);
      const message = await condition('provider', name, 'Ready', 'message');
      assert.match(message, want.message, name);
      assert.ok(!message.includes(gw.secretAccessKey) && !message.includes(wrongSecret), `${name}'s message quotes no key: ${message}`);
    }
  });

  const resourceClass = (name: string, policy: string, providerName = 'aws') => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${name}, namespace: ${NS}}
supportedResources: [Bucket.v1alpha1.storage.conductor.io]
rebindPolicy: ${policy}
providerRef: {name: ${providerName}}
template: {apiVersion: storage.aws.conductor.io/v1alpha1, kind: S3Bucket, spec: {forProvider: {region: us-east-1}}}
`;
  const claim = (name: string, cls: string) =>
    `apiVersion: storage.conductor.io/v1alpha1\nkind: Bucket\nmetadata: {name: ${name}, namespace: shop}\nspec: {resourceClass: ${cls}, requirements: {capacity: {storage: 10Gi}}}\n`;

  test('Bucket claims: Bound and Ready, the Secret used by @aws-sdk/client-s3, Delete and Retain honoured', async () => {
    const s = suite.server;
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    await apply(
      [resourceClass('s3-delete', 'Delete'), resourceClass('s3-retain', 'Retain'), claim('photos', 's3-delete'), claim('archive', 's3-retain')].join('---\n'),
    );
    const photos = await boundAndReady('bucket', 'shop', 'photos');
    await boundAndReady('bucket', 'shop', 'archive');

    const bucket = await secretOf('shop', 'photos');
    assert.deepEqual(Object.keys(bucket).sort(), [
      'accessKeyId',
      'bucket',
      'bucketArn',
      'credentialsExpireAt',
      'endpoint',
      'region',
      'secretAccessKey',
      'sessionToken',
    ]);
    assert.match(bucket.bucket, /^shop-photos-[0-9a-f]{16}$/);
    assert.equal(bucket.endpoint, gw.endpoint);
    assert.equal(bucket.region, 'us-east-1');
    assert.equal(bucket.bucketArn, `arn:aws:s3:::${bucket.bucket}`);
    assert.equal(await bucketExists(bucket.bucket), true);

    // @aws-sdk/client-s3 with the claim's Secret alone: put, then get.
    const s3 = new S3Client({
      endpoint: bucket.endpoint,
      region: bucket.region,
      forcePathStyle: true,
      credentials: {
        accessKeyId: bucket.accessKeyId,
        secretAccessKey: bucket.secretAccessKey,
        ...(bucket.sessionToken ? { sessionToken: bucket.sessionToken } : {}),
      },
    });
    await s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key: 'cat.txt', Body: 'meow' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket.bucket, Key: 'cat.txt' }));
    assert.equal(await got.Body!.transformToString(), 'meow');
    const archive = await secretOf('shop', 'archive');

    // The resource states its region and its monthly price from the table (10Gi in us-east-1).
    const resource = photos.status.resourceRef.name as string;
    assert.equal(await jsonpath(['s3bucket', resource, ...ns], '{.spec.capabilities.region}'), 'us-east-1');
    assert.equal(await jsonpath(['s3bucket', resource, ...ns], '{.status.atProvider.monthlyPrice.amount}'), '0.25');
    assert.match(
      await jsonpath(['s3bucket', resource, ...ns], '{.status.atProvider.monthlyPrice.table}'),
      /^2024-06-01, unverified; https:\/\/aws\.amazon\.com\/s3\/pricing\//,
    );

    // Release: Delete removes the bucket (objects and all), Retain keeps it.
    await kubectlOk(s, ['delete', 'bucket', 'photos', 'archive', '-n', 'shop', '--wait=true', '--timeout=60s']);
    await eventually(async () => !(await bucketExists(bucket.bucket)), 'the Delete bucket gone from the S3 server', 60_000);
    await eventually(async () => (await kubectl(s, ['get', 's3bucket', resource, ...ns])).code !== 0, 'the Delete S3Bucket object gone', 60_000);
    assert.equal(await bucketExists(archive.bucket), true, 'Retain keeps the bucket');
  });

  test('an existing bucket imported by external name with ObserveOnly, and left alone when its resource goes', async () => {
    await admin.send(new CreateBucketCommand({ Bucket: 'imported-logs' }));
    await apply(`apiVersion: storage.aws.conductor.io/v1alpha1
kind: S3Bucket
metadata: {name: logs, namespace: ${NS}, annotations: {conductor.io/external-name: imported-logs}}
spec: {providerRef: {name: aws}, managementPolicy: ObserveOnly, rebindPolicy: Delete, writeConnectionSecretToRef: {name: logs-conn}}
`);
    await eventually(async () => (await condition('s3bucket', 'logs', 'Ready', 'status')) === 'True', 'the imported bucket Ready');
    assert.equal(await jsonpath(['s3bucket', 'logs', ...ns], '{.status.atProvider.bucketName}'), 'imported-logs');
    assert.equal((await secretOf(NS, 'logs-conn')).bucket, 'imported-logs');
    await kubectlOk(suite.server, ['delete', 's3bucket', 'logs', ...ns, '--wait=true', '--timeout=60s']);
    assert.equal(await bucketExists('imported-logs'), true, 'ObserveOnly never deletes');
  });

  test('bad input: names S3 refuses (422 naming the field, or a condition); federated keys without STS said in the Ready condition', async () => {
    const s = suite.server;
    const refused = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: storage.aws.conductor.io/v1alpha1\nkind: S3Bucket\nmetadata: {name: bad-name, namespace: ${NS}}\nspec: {providerRef: {name: aws}, forProvider: {bucketName: "bad..name"}}\n`,
    });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spec\.forProvider\.bucketName.*two dots in a row/);
    const badRegion = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: messaging.aws.conductor.io/v1alpha1\nkind: SQSQueue\nmetadata: {name: bad-region, namespace: ${NS}}\nspec: {providerRef: {name: aws}, forProvider: {region: moon-1}}\n`,
    });
    assert.notEqual(badRegion.code, 0);
    assert.match(badRegion.stderr, /spec\.forProvider\.region/);
    const badClass = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: database.aws.conductor.io/v1alpha1\nkind: RDSInstance\nmetadata: {name: bad-class, namespace: ${NS}}\nspec: {providerRef: {name: aws}, forProvider: {engine: postgres, instanceClass: db.x1.huge}}\n`,
    });
    assert.notEqual(badClass.code, 0);
    assert.match(badClass.stderr, /spec\.forProvider\.instanceClass/);
    const badNode = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: cache.aws.conductor.io/v1alpha1\nkind: ElastiCacheReplicationGroup\nmetadata: {name: bad-node, namespace: ${NS}}\nspec: {providerRef: {name: aws}, forProvider: {nodeType: cache.x1.huge, replicas: 9}}\n`,
    });
    assert.notEqual(badNode.code, 0);
    assert.match(badNode.stderr, /spec\.forProvider\.nodeType/);
    assert.match(badNode.stderr, /spec\.forProvider\.replicas/);

    await apply(`apiVersion: storage.aws.conductor.io/v1alpha1
kind: S3Bucket
metadata: {name: upper, namespace: ${NS}, annotations: {conductor.io/external-name: Not_A_Bucket}}
spec: {providerRef: {name: aws}}
---
apiVersion: storage.aws.conductor.io/v1alpha1
kind: S3Bucket
metadata: {name: federated, namespace: ${NS}}
spec: {providerRef: {name: federated}, rebindPolicy: Delete, forProvider: {bucketName: federated-bucket}}
`);
    await eventually(async () => (await condition('s3bucket', 'upper', 'Synced', 'status')) === 'False', 'S3Bucket upper not Synced');
    assert.match(
      await condition('s3bucket', 'upper', 'Synced', 'message'),
      /bucket name "Not_A_Bucket" may hold only lower-case letters, digits, dots and hyphens/,
    );
    await eventually(
      async () => (await condition('s3bucket', 'federated', 'Ready', 'reason')) === 'ClaimKeysUnavailable',
      'S3Bucket federated not Ready: no keys for its claim',
    );
    const message = await condition('s3bucket', 'federated', 'Ready', 'message');
    assert.match(message, /claimCredentials federated needs STS to issue keys for bucket federated-bucket/);
    assert.match(message, /add stsEndpoint, or set claimCredentials: provider/);
    assert.ok(!message.includes(gw.secretAccessKey), 'no key in the condition');
    assert.equal(await jsonpath(['secret', '-n', NS, '--ignore-not-found'], '{.items[?(@.metadata.name=="federated-connection")].metadata.name}'), '');
    await kubectlOk(s, ['delete', 's3bucket', 'upper', 'federated', ...ns, '--wait=true', '--timeout=60s']);
  });

  test('a RedisCluster claim provisions an ElastiCacheReplicationGroup sized to its memory; ElastiCache unreachable is said in its condition; Retain calls no AWS', async () => {
    // ElastiCache has no emulator here (the client is tested with the SDK mocked): its endpoint
    // is a closed port, so this checks the path up to the SDK call — scheduling, the configured
    // spec the CRD accepts, the condition — and that Retain lets the resource go without AWS.
    const s = suite.server;
    await apply(
      [
        credentialsSecretYaml('aws-cache-keys', {
          accessKeyId: gw.accessKeyId,
          secretAccessKey: gw.secretAccessKey,
          s3Endpoint: gw.endpoint,
          elasticacheEndpoint: 'http://127.0.0.1:1',
          claimCredentials: 'provider',
        }),
        provider('aws-cache', 'aws-cache-keys'),
        `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ec-retain, namespace: ${NS}}
supportedResources: [RedisCluster.v1alpha1.cache.conductor.io]
rebindPolicy: Retain
providerRef: {name: aws-cache}
template: {apiVersion: cache.aws.conductor.io/v1alpha1, kind: ElastiCacheReplicationGroup, spec: {forProvider: {region: us-east-1, nodeType: cache.t4g.micro, replicas: 1}}}
`,
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: cache}\n',
        `apiVersion: cache.conductor.io/v1alpha1
kind: RedisCluster
metadata: {name: sessions, namespace: cache}
spec: {resourceClass: ec-retain, version: ">= 7", requirements: {capacity: {memory: 1Gi}}}
`,
      ].join('---\n'),
    );
    const group = await eventually(
      async () => {
        const list = JSON.parse(await kubectlOk(s, ['get', 'elasticachereplicationgroups', ...ns, '-o', 'json']));
        return (list.items as any[]).find((g) => g.spec?.claimRef?.namespace === 'cache' && g.spec?.claimRef?.name === 'sessions');
      },
      'an ElastiCacheReplicationGroup provisioned for cache/sessions',
      60_000,
    );
    const fp = group.spec.forProvider;
    assert.match(fp.replicationGroupId, /^cache-sessions-[0-9a-f]{16}$/);
    assert.equal(fp.nodeType, 'cache.t4g.small', 'grown to hold 1Gi');
    assert.equal(fp.engineVersion, '7.1');
    assert.equal(fp.replicas, 1);
    assert.equal(fp.evictionPolicy, 'volatile-lru');
    assert.equal(group.spec.capabilities.region, 'us-east-1');
    const name = group.metadata.name as string;
    await eventually(async () => (await condition('elasticachereplicationgroup', name, 'Synced', 'status')) === 'False', 'the group not Synced');
    assert.match(
      await condition('elasticachereplicationgroup', name, 'Synced', 'message'),
      new RegExp(`replication group ${fp.replicationGroupId}: no answer .*ECONNREFUSED`),
    );
    await kubectlOk(s, ['delete', 'rediscluster', 'sessions', '-n', 'cache', '--wait=true', '--timeout=60s']);
    await kubectlOk(s, ['delete', 'elasticachereplicationgroup', name, ...ns, '--wait=true', '--timeout=60s']);
    await kubectlOk(s, ['delete', 'namespace', 'cache', '--wait=true', '--timeout=60s']);
  });

  test('examples/clouds/aws as written: the Provider, the classes and the Bucket claim, used with the SDK, gone with the namespace', async () => {
    const s = suite.server;
    const example = (file: string) => readFileSync(join(repoRoot, 'examples', 'clouds', 'aws', file), 'utf8');
    const providerYaml = example('01-provider.yaml')
      .replace('ACCESS_KEY_ID', gw.accessKeyId)
      .replace('SECRET_ACCESS_KEY', gw.secretAccessKey)
      .replace(/# s3Endpoint: \S+/, `s3Endpoint: ${gw.endpoint}`)
      .replace('# claimCredentials: provider', 'claimCredentials: provider');
    await apply(providerYaml);
    await apply(example('02-classes.yaml'));
    // Only the Namespace and the Bucket: SQS and RDS have no emulator here.
    const app = example('03-app.yaml')
      .split(/^---$/m)
      .filter((doc) => /kind: (Namespace|Bucket)\b/.test(doc))
      .join('---\n');
    await apply(app);
    await boundAndReady('bucket', 'shop', 'invoices');
    const invoices = await secretOf('shop', 'invoices');
    const s3 = new S3Client({
      endpoint: invoices.endpoint,
      region: invoices.region,
      forcePathStyle: true,
      credentials: { accessKeyId: invoices.accessKeyId, secretAccessKey: invoices.secretAccessKey },
    });
    await s3.send(new PutObjectCommand({ Bucket: invoices.bucket, Key: 'inv-1.pdf', Body: '%PDF' }));
    await kubectlOk(s, ['delete', 'namespace', 'shop', '--wait=true', '--timeout=90s']);
    await eventually(async () => !(await bucketExists(invoices.bucket)), 'the bucket deleted', 60_000);
  });
});
