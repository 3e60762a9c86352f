/**
 * A small "operator" for the kubernetes provider's tests: a process that talks to a target
 * cluster (any Kubernetes API; in tests a second Conductor server) through the API only, with
 * @kubernetes/client-node and KUBECONFIG, and makes two kinds of custom resource real. Their
 * shapes follow two well-known operators (facts only; no code of theirs):
 *
 * - `Cluster` (postgresql.cnpg.io/v1, CloudNativePG's shape): `spec.instances`,
 *   `spec.storage.size`, `spec.bootstrap.initdb.{database,owner}`. Each Cluster gets its own
 *   real PostgreSQL server on 127.0.0.1 (initdb'd by the local provider's throwaway-server
 *   support), a login role `owner` with a random password owning the database `database`;
 *   the operator writes the Secret `<name>-app` (username, user, password, dbname, host,
 *   port, uri; owned by the Cluster) and the status (`phase: Cluster in healthy state`,
 *   `readyInstances`, `writeService: <name>-rw`, condition `Ready=True`).
 * - `ObjectBucketClaim` (objectbucket.io/v1alpha1, the object bucket provisioners' shape):
 *   `spec.bucketName` (or `generateBucketName`), `spec.storageClassName`. Each gets a real
 *   bucket on one S3 server — the gateway the project runs in front of s3rver
 *   (s3-gateway-main.js: SigV4 checked, a key per bucket) — and a key limited to it; the
 *   operator writes a ConfigMap (BUCKET_HOST, BUCKET_PORT, BUCKET_NAME, BUCKET_REGION) and a
 *   Secret (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), both named like the claim and owned by
 *   it, and `status.phase: Bound`.
 *
 * Deleting a resource drops what the operator made (database server, bucket and key) behind
 * the operator's finalizer. Names and values from the resources reach SQL only escaped, and a
 * bucket name must be a valid S3 name. It installs both CRDs, prints "operator running" once
 * they are Established, reconciles every 250 ms (list, level-triggered), and stops on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { startThrowawayServer, type ThrowawayServer } from '../../src/providers/local/postgresql/testing.js';

const FINALIZER = 'operator.test.example/cleanup';
const RESYNC_MS = 250;
const anyObject = { type: 'object', x_kubernetes_preserve_unknown_fields: true };

function crd(group: string, version: string, kind: string, plural: string): k8s.V1CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase() },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: anyObject, status: anyObject } } },
        },
      ],
    },
  };
}

const CLUSTER = { group: 'postgresql.cnpg.io', version: 'v1', kind: 'Cluster', plural: 'clusters' };
const OBC = { group: 'objectbucket.io', version: 'v1alpha1', kind: 'ObjectBucketClaim', plural: 'objectbucketclaims' };

interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string; finalizers?: string[]; deletionTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const extensions = kc.makeApiClient(k8s.ApiextensionsV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const core = kc.makeApiClient(k8s.CoreV1Api);
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const code = (err: unknown): number | undefined => (err as { code?: number }).code;
const b64 = (s: string) => Buffer.from(s).toString('base64');
let stopping = false;

async function registerCrd(body: k8s.V1CustomResourceDefinition): Promise<void> {
  try {
    await extensions.createCustomResourceDefinition({ body });
  } catch (err) {
    if (code(err) !== 409) throw err;
  }
  for (;;) {
    const got = await extensions.readCustomResourceDefinition({ name: body.metadata!.name! });
    if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Kind = typeof CLUSTER;
const ownerRef = (k: Kind, obj: Resource): k8s.V1OwnerReference => ({
  apiVersion: `${k.group}/${k.version}`,
  kind: k.kind,
  name: obj.metadata.name,
  uid: obj.metadata.uid,
  controller: true,
});

/** writeData creates or replaces a Secret or ConfigMap owned by `obj` (only when it differs). */
async function writeData(kind: 'Secret' | 'ConfigMap', k: Kind, obj: Resource, name: string, data: Record<string, string>): Promise<void> {
  const namespace = obj.metadata.namespace;
  const metadata = { name, namespace, ownerReferences: [ownerRef(k, obj)] };
  const encoded = kind === 'Secret' ? Object.fromEntries(Object.entries(data).map(([key, v]) => [key, b64(v)])) : data;
  try {
    const have = kind === 'Secret' ? await core.readNamespacedSecret({ name, namespace }) : await core.readNamespacedConfigMap({ name, namespace });
    if (Object.entries(encoded).every(([key, v]) => have.data?.[key] === v)) return;
    const md = { ...metadata, resourceVersion: have.metadata?.resourceVersion };
    if (kind === 'Secret') await core.replaceNamespacedSecret({ name, namespace, body: { metadata: md, data: encoded } });
    else await core.replaceNamespacedConfigMap({ name, namespace, body: { metadata: md, data: encoded } });
  } catch (err) {
    if (code(err) !== 404) throw err;
    if (kind === 'Secret') await core.createNamespacedSecret({ namespace, body: { metadata, data: encoded } });
    else await core.createNamespacedConfigMap({ namespace, body: { metadata, data: encoded } });
  }
}

async function readSecretValue(namespace: string, name: string, key: string): Promise<string | undefined> {
  try {
    const s = await core.readNamespacedSecret({ name, namespace });
    const v = s.data?.[key];
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
  } catch (err) {
    if (code(err) === 404) return undefined;
    throw err;
  }
}

async function writeStatus(k: Kind, obj: Resource, status: Record<string, unknown>): Promise<void> {
  if (JSON.stringify(obj.status ?? {}) === JSON.stringify(status)) return;
  await custom.replaceNamespacedCustomObjectStatus({
    group: k.group,
    version: k.version,
    namespace: obj.metadata.namespace,
    plural: k.plural,
    name: obj.metadata.name,
    body: { ...obj, status },
  });
}

async function setFinalizers(k: Kind, obj: Resource, finalizers: string[]): Promise<void> {
  await custom.patchNamespacedCustomObject(
    {
      group: k.group,
      version: k.version,
      namespace: obj.metadata.namespace,
      plural: k.plural,
      name: obj.metadata.name,
      body: { metadata: { finalizers: finalizers.length ? finalizers : null, resourceVersion: obj.metadata.resourceVersion } },
    },
    mergePatch,
  );
}

const ready = (reason: string, message: string) => ({ type: 'Ready', status: 'True', reason, message });
const failed = (reason: string, message: string) => ({ type: 'Ready', status: 'False', reason, message });

// ---------------------------------------------------------------- PostgreSQL clusters

const clusters = new Map<string, ThrowawayServer>();

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

async function reconcileCluster(obj: Resource): Promise<void> {
  const { uid, namespace, name } = obj.metadata;
  if (obj.metadata.deletionTimestamp) {
    const server = clusters.get(uid);
    clusters.delete(uid);
    await server?.stop();
    return;
  }
  const initdb = (obj.spec?.bootstrap as { initdb?: { database?: unknown; owner?: unknown } } | undefined)?.initdb ?? {};
  const database = typeof initdb.database === 'string' ? initdb.database : 'app';
  const owner = typeof initdb.owner === 'string' ? initdb.owner : database;
  if (!IDENTIFIER.test(database) || !IDENTIFIER.test(owner)) {
    // Escaping would make any name safe; refusing odd ones keeps the example's names plain.
    await writeStatus(CLUSTER, obj, {
      phase: 'Setting up primary',
      conditions: [failed('InvalidBootstrap', 'spec.bootstrap.initdb.database and owner must be lowercase SQL names (letters, digits, _)')],
    });
    return;
  }
  let server = clusters.get(uid);
  if (!server) {
    server = await startThrowawayServer();
    clusters.set(uid, server);
  }
  const secretName = `${name}-app`;
  const password = (await readSecretValue(namespace, secretName, 'password')) ?? randomBytes(18).toString('base64url');
  const admin = new pg.Client({ host: server.host, port: server.port, user: server.username, password: server.password, database: 'postgres' });
  await admin.connect();
  try {
    const role = admin.escapeIdentifier(owner);
    const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [owner]);
    await admin.query(`${exists.rowCount ? 'ALTER' : 'CREATE'} ROLE ${role} LOGIN PASSWORD ${admin.escapeLiteral(password)}`);
    const db = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!db.rowCount) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(database)} OWNER ${role}`);
  } finally {
    await admin.end();
  }
  const e = encodeURIComponent;
  await writeData('Secret', CLUSTER, obj, secretName, {
    username: owner,
    user: owner,
    password,
    dbname: database,
    host: server.host,
    port: String(server.port),
    uri: `postgresql://${e(owner)}:${e(password)}@${server.host}:${server.port}/${e(database)}`,
  });
  const instances = typeof obj.spec?.instances === 'number' ? obj.spec.instances : 1;
  await writeStatus(CLUSTER, obj, {
    phase: 'Cluster in healthy state',
    instances,
    readyInstances: instances,
    writeService: `${name}-rw`,
    conditions: [ready('ClusterIsReady', 'Cluster is Ready')],
  });
}

// ---------------------------------------------------------------- object buckets

interface S3Gateway {
  child: ChildProcess;
  port: number;
  dir: string;
  keys: { admin: { accessKeyId: string; secretAccessKey: string }; claims: Record<string, { secretAccessKey: string; bucket: string; claim: string }> };
  admin: S3Client;
}
let gateway: S3Gateway | undefined;

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
  });
}

/** startGateway runs the project's S3 gateway (SigV4-checking, in front of s3rver) on a free port. */
async function startGateway(): Promise<S3Gateway> {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-operator-s3-'));
  const keys = {
    admin: { accessKeyId: `OPERATOR${randomBytes(6).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(24).toString('base64url') },
    claims: {},
  };
  writeFileSync(join(dir, 'keys.json'), JSON.stringify(keys), { mode: 0o600 });
  const port = await freePort();
  const main = resolve(import.meta.dirname, '..', '..', 'src', 'providers', 'local', 's3', 's3-gateway-main.js');
  const child = spawn(
    process.execPath,
    [main, '--directory', join(dir, 'data'), '--address', '127.0.0.1', '--port', String(port), '--keys', join(dir, 'keys.json')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  await new Promise<void>((ok, fail) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('S3 gateway listening')) ok();
    });
    child.once('exit', (c) => fail(new Error(`the S3 gateway exited with ${String(c)}: ${err}`)));
  });
  const admin = new S3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true, credentials: keys.admin, maxAttempts: 1 });
  return { child, port, dir, keys, admin };
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

function bucketNameOf(obj: Resource): string | undefined {
  const given = obj.spec?.bucketName;
  if (typeof given === 'string' && given !== '') return given;
  const prefix = obj.spec?.generateBucketName;
  if (typeof prefix === 'string' && prefix !== '') return `${prefix}-${obj.metadata.uid.replace(/-/g, '').slice(0, 8)}`;
  return undefined;
}

function saveKeys(g: S3Gateway): void {
  writeFileSync(join(g.dir, 'keys.json'), JSON.stringify(g.keys), { mode: 0o600 });
}

async function removeBucket(g: S3Gateway, bucket: string): Promise<void> {
  try {
    const listed = await g.admin.send(new ListObjectsV2Command({ Bucket: bucket }));
    for (const o of listed.Contents ?? []) await g.admin.send(new DeleteObjectCommand({ Bucket: bucket, Key: o.Key }));
    await g.admin.send(new DeleteBucketCommand({ Bucket: bucket }));
  } catch (err) {
    if ((err as { name?: string }).name !== 'NoSuchBucket') throw err;
  }
}

async function reconcileBucket(obj: Resource): Promise<void> {
  const g = (gateway ??= await startGateway());
  const bucket = bucketNameOf(obj);
  const keyId = `OBC${obj.metadata.uid.replace(/-/g, '').slice(0, 16).toUpperCase()}`;
  if (obj.metadata.deletionTimestamp) {
    if (bucket && BUCKET_NAME.test(bucket)) await removeBucket(g, bucket);
    delete g.keys.claims[keyId];
    saveKeys(g);
    return;
  }
  if (!bucket || !BUCKET_NAME.test(bucket)) {
    await writeStatus(OBC, obj, {
      phase: 'Failed',
      conditions: [failed('InvalidBucketName', 'spec.bucketName must be 3 to 63 lowercase letters, digits and -')],
    });
    return;
  }
  try {
    await g.admin.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    if (!['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes((err as { name?: string }).name ?? '')) throw err;
  }
  const secret = (await readSecretValue(obj.metadata.namespace, obj.metadata.name, 'AWS_SECRET_ACCESS_KEY')) ?? randomBytes(24).toString('base64url');
  if (g.keys.claims[keyId]?.secretAccessKey !== secret) {
    g.keys.claims[keyId] = { secretAccessKey: secret, bucket, claim: `${obj.metadata.namespace}/${obj.metadata.name}` };
    saveKeys(g);
  }
  await writeData('ConfigMap', OBC, obj, obj.metadata.name, {
    BUCKET_HOST: '127.0.0.1',
    BUCKET_PORT: String(g.port),
    BUCKET_NAME: bucket,
    BUCKET_REGION: 'us-east-1',
  });
  await writeData('Secret', OBC, obj, obj.metadata.name, { AWS_ACCESS_KEY_ID: keyId, AWS_SECRET_ACCESS_KEY: secret });
  await writeStatus(OBC, obj, { phase: 'Bound' });
}

// ---------------------------------------------------------------- the loop

async function reconcile(k: Kind, obj: Resource, make: (obj: Resource) => Promise<void>): Promise<void> {
  const finalizers = obj.metadata.finalizers ?? [];
  if (obj.metadata.deletionTimestamp) {
    if (!finalizers.includes(FINALIZER)) return;
    await make(obj);
    await setFinalizers(
      k,
      obj,
      finalizers.filter((f) => f !== FINALIZER),
    );
    return;
  }
  if (!finalizers.includes(FINALIZER)) {
    await setFinalizers(k, obj, [...finalizers, FINALIZER]);
    return; // the next pass sees the new object
  }
  await make(obj);
}

async function pass(k: Kind, make: (obj: Resource) => Promise<void>): Promise<void> {
  const list = (await custom.listClusterCustomObject({ group: k.group, version: k.version, plural: k.plural })) as { items: Resource[] };
  for (const obj of list.items) {
    try {
      await reconcile(k, obj, make);
    } catch (err) {
      if (code(err) !== 409) console.error(`operator: cannot reconcile ${k.kind} ${obj.metadata.namespace}/${obj.metadata.name}: ${(err as Error).message}`);
    }
  }
}

async function main(): Promise<void> {
  await registerCrd(crd(CLUSTER.group, CLUSTER.version, CLUSTER.kind, CLUSTER.plural));
  await registerCrd(crd(OBC.group, OBC.version, OBC.kind, OBC.plural));
  console.log('operator running');
  process.on('SIGTERM', () => {
    stopping = true;
  });
  while (!stopping) {
    for (const [k, make] of [
      [CLUSTER, reconcileCluster],
      [OBC, reconcileBucket],
    ] as const) {
      try {
        await pass(k, make);
      } catch (err) {
        console.error(`operator: cannot list ${k.plural}: ${(err as Error).message}`);
      }
    }
    await new Promise((r) => setTimeout(r, RESYNC_MS));
  }
  for (const server of clusters.values()) await server.stop();
  if (gateway) {
    gateway.child.kill('SIGTERM');
    rmSync(gateway.dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`operator failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
