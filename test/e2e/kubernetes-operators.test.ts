/**
 * Claims satisfied by operators, end to end with real parts: the control plane (a Conductor
 * server) with the classes of examples/kubernetes/ as written, a target cluster (a second
 * Conductor server, over HTTPS with its own CA and token), and the test "operator"
 * (test/kubernetes-operator/operator.ts) watching the target. A PostgreSQLInstance claim
 * becomes a CloudNativePG-style Cluster in the target, the operator makes a real PostgreSQL
 * server and database and writes the Cluster's Ready condition and its `<name>-app` Secret,
 * and the claim's connection Secret works with `pg`; a Bucket claim becomes an
 * ObjectBucketClaim, the operator makes a real bucket on the project's S3 gateway with a key
 * for it alone and writes its ConfigMap, Secret and phase, and the claim's Secret works with
 * @aws-sdk/client-s3. Deleting the claims deletes the custom resources in the target, and the
 * operator drops what it made.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { nameFor } from '../../src/providers/kubernetes/claims.js';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, repoRoot, serverForSuite } from '../support/server.js';
import { secretYaml, startTargetCluster, type TargetCluster, kubernetesProviderKindsEstablished } from '../support/target-cluster.js';

const NS = 'conductor-system';
/** The default names of the claims' objects in the target: <namespace>-<name>-<hash>. */
const ORDERS = nameFor({ apiVersion: 'v1', kind: 'PostgreSQLInstance', metadata: { namespace: 'shop', name: 'orders' } });
const MEDIA = nameFor({ apiVersion: 'v1', kind: 'Bucket', metadata: { namespace: 'shop', name: 'media' } });
const operatorScript = join(import.meta.dirname, '..', 'kubernetes-operator', 'operator.js');
const example = (file: string) => readFileSync(join(repoRoot, 'examples', 'kubernetes', file), 'utf8');

describe('claims satisfied by operators in a target cluster', () => {
  let target: TargetCluster;
  let operator: ChildProcess;
  let operatorLog = '';
  before(async () => {
    target = await startTargetCluster();
    operator = spawn(process.execPath, [operatorScript], { env: { ...process.env, KUBECONFIG: target.server.kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
    operator.stderr!.on('data', (d: Buffer) => (operatorLog += d.toString()));
    await new Promise<void>((ok, fail) => {
      let out = '';
      operator.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('operator running')) ok();
      });
      operator.once('exit', (c) => fail(new Error(`the operator exited with ${String(c)}: ${operatorLog}`)));
    });
  });
  after(async () => {
    if (operator && operator.exitCode === null) {
      const exited = new Promise((r) => operator.once('exit', r));
      operator.kill('SIGTERM');
      await exited;
    }
    await target?.stop();
  });
  const suite = serverForSuite({ env: { CONDUCTOR_POLL_INTERVAL_MS: '500' } });

  const targetGet = (args: string[]) => kubectl(target.server, ['get', ...args, '-o', 'json']);
  const claimSecret = async (ns: string, name: string) => {
    const secret = await eventually(async () => {
      const out = await kubectl(suite.server, ['get', 'secret', name, '-n', ns, '-o', 'json']);
      return out.code === 0 ? (JSON.parse(out.stdout) as { data: Record<string, string> }) : undefined;
    }, `the connection Secret of ${ns}/${name}`);
    return Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };

  before(async () => {
    const s = suite.server;
    const c = target.credentials;
    await kubernetesProviderKindsEstablished(s);
    // The example's Provider as written, with its Secret filled in for this target.
    const provider = example('01-provider.yaml').split(/^---$/m)[1];
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: [secretYaml(NS, 'target-cluster', { endpoint: c.endpoint, clusterCA: c.clusterCA, token: c.token }), provider, example('02-classes.yaml')].join(
        '\n---\n',
      ),
    });
  });

  test('PostgreSQLInstance → Cluster → operator → a real database the claim Secret opens; Bucket → ObjectBucketClaim → a real bucket', async () => {
    const s = suite.server;
    await kubectlOk(s, ['apply', '-f', '-'], { input: example('03-claims.yaml') });

    // PostgreSQL: the Cluster in the target, made real by the operator.
    const pgSecret = await claimSecret('shop', 'orders');
    const cluster = JSON.parse((await targetGet(['clusters.postgresql.cnpg.io', ORDERS, '-n', 'default'])).stdout);
    assert.deepEqual(cluster.spec.bootstrap.initdb, { database: 'orders', owner: 'app' });
    assert.equal(cluster.status.phase, 'Cluster in healthy state');
    assert.equal(pgSecret.username, 'app');
    assert.equal(pgSecret.database, 'orders');
    assert.match(pgSecret.uri, /^postgresql:\/\/app:[^@]+@127\.0\.0\.1:\d+\/orders$/);
    for (const config of [
      { host: pgSecret.host, port: Number(pgSecret.port), user: pgSecret.username, password: pgSecret.password, database: pgSecret.database },
      { connectionString: pgSecret.uri },
    ]) {
      const client = new pg.Client(config);
      await client.connect();
      try {
        await client.query('CREATE TABLE IF NOT EXISTS orders (id int)');
        await client.query('INSERT INTO orders VALUES (1)');
        const { rows } = await client.query<{ db: string; n: string }>('SELECT current_database() AS db, count(*)::text AS n FROM orders');
        assert.equal(rows[0].db, 'orders');
      } finally {
        await client.end();
      }
    }

    // Bucket: the ObjectBucketClaim in the target, a real bucket on the S3 gateway.
    const bucketSecret = await claimSecret('shop', 'media');
    assert.equal(bucketSecret.bucket, 'shop-media');
    assert.equal(bucketSecret.region, 'us-east-1');
    assert.match(bucketSecret.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    const obc = JSON.parse((await targetGet(['objectbucketclaims.objectbucket.io', MEDIA, '-n', 'default'])).stdout);
    assert.equal(obc.status.phase, 'Bound');
    const s3 = new S3Client({
      endpoint: bucketSecret.endpoint,
      region: bucketSecret.region,
      forcePathStyle: true,
      credentials: { accessKeyId: bucketSecret.accessKeyId, secretAccessKey: bucketSecret.secretAccessKey },
    });
    try {
      await s3.send(new PutObjectCommand({ Bucket: bucketSecret.bucket, Key: 'hello.txt', Body: 'hello from a claim' }));
      const got = await s3.send(new GetObjectCommand({ Bucket: bucketSecret.bucket, Key: 'hello.txt' }));
      assert.equal(await got.Body!.transformToString(), 'hello from a claim');
      // The key is the bucket's alone: another bucket name is refused.
      await assert.rejects(s3.send(new PutObjectCommand({ Bucket: 'another-bucket', Key: 'x', Body: 'x' })));

      // Deleting the claims deletes the custom resources in the target; the operator drops what it made.
      await kubectlOk(s, ['delete', 'postgresqlinstance', 'orders', '-n', 'shop', '--timeout=90s'], { timeoutMs: 120_000 });
      await kubectlOk(s, ['delete', 'bucket', 'media', '-n', 'shop', '--timeout=90s'], { timeoutMs: 120_000 });
      await eventually(async () => (await targetGet(['clusters.postgresql.cnpg.io', ORDERS, '-n', 'default'])).code !== 0, 'the Cluster deleted in the target');
      await eventually(
        async () => (await targetGet(['objectbucketclaims.objectbucket.io', MEDIA, '-n', 'default'])).code !== 0,
        'the ObjectBucketClaim deleted in the target',
      );
      const pgGone = new pg.Client({ connectionString: pgSecret.uri, connectionTimeoutMillis: 5_000 });
      await assert.rejects(pgGone.connect(), 'the database server is gone with its Cluster');
      await pgGone.end().catch(() => undefined);
      await assert.rejects(s3.send(new HeadBucketCommand({ Bucket: bucketSecret.bucket })), 'the bucket is gone with its claim');
    } finally {
      s3.destroy();
    }
  });
});
