/**
 * One scheduler choosing across clouds by region and monthly price (issue 14): a local S3Server
 * (Conductor's own s3rver, 0 USD a month), an aws class (S3Bucket against the project's S3
 * server behind the SigV4 gateway), a gcp class (GCSBucket against the HTTP fake of the Cloud
 * Storage JSON API, test/support/fake-gcp-storage.ts — mocked: no GCS emulator exists here; the
 * gcp Provider's check asks Google's Pub/Sub and Spanner emulators) and an azure class
 * (BlobContainer against Azurite) for the same profile and claim kind, Bucket. Claims with
 * different regions and price limits land where they should; `kubectl describe` says why with
 * the prices compared (for 10Gi: 0.20 USD of Hot LRS blob in eastus, 0.22 USD of GCS Standard in
 * us-east1, 0.25 USD of S3 Standard in us-east-1, from the shipped tables); a claim no candidate
 * it may use is cheap enough for stays Pending saying so; a limit that is not an amount is a 422
 * naming the field. The buckets are used with the real SDKs (@aws-sdk/client-s3,
 * @google-cloud/storage, @azure/storage-blob) through the claims' Secrets, and deleting the
 * claims deletes what the Delete classes (aws, gcp) made and keeps what the Retain class (azure)
 * made.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient, ContainerClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { Storage } from '@google-cloud/storage';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { credentialsSecretYaml, providerReady, providerYaml } from '../support/cloud-provider.js';
import { startS3Gateway, type S3Gateway } from '../support/s3-gateway.js';
import { startAzurite, type Azurite } from '../support/azurite.js';
import { instanceRoots, killLeftovers } from '../support/leftovers.js';
import { startPubSubEmulator, startSpannerEmulator, type Emulator } from '../support/gcp-emulators.js';
import { startFakeCloudStorage, type FakeCloudStorage } from '../support/fake-gcp-storage.js';

const NS = 'conductor-system';
const ns = ['-n', NS];
const BUCKET = 'Bucket.v1alpha1.storage.conductor.io';

describe('cross-cloud scheduling by region and monthly price (local, aws, gcp with GCS mocked, azure)', () => {
  let gw: S3Gateway;
  let azurite: Azurite;
  let pubsub: Emulator;
  let spanner: Emulator;
  let gcs: FakeCloudStorage;
  let server: ServerProcess;
  let s3Admin: S3Client;
  let blobAdmin: BlobServiceClient;

  before(async () => {
    [gw, azurite, pubsub, spanner, gcs] = await Promise.all([
      startS3Gateway(),
      startAzurite(),
      startPubSubEmulator(),
      startSpannerEmulator(),
      startFakeCloudStorage(),
    ]);
    s3Admin = new S3Client({
      endpoint: gw.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey },
    });
    blobAdmin = new BlobServiceClient(azurite.blobEndpoint, new StorageSharedKeyCredential(azurite.accountName, azurite.accountKey));
    server = await startServer({ env: { CONDUCTOR_POLL_INTERVAL_MS: '500' } });
  });
  after(async () => {
    s3Admin?.destroy();
    await server?.stop();
    if (server) {
      killLeftovers(server.dataDir, 's3', 's3rver.pid');
      removeDir(instanceRoots(server.dataDir, 's3')[1]);
      removeDir(server.dataDir);
    }
    await Promise.all([gw?.stop(), azurite?.stop(), pubsub?.stop(), spanner?.stop(), gcs?.stop()]);
  });

  const apply = (yaml: string) => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
  const jsonpath = (args: string[], path: string) => kubectlOk(server, ['get', ...args, '-o', `jsonpath=${path}`]);
  const claimJson = async (name: string) => JSON.parse(await kubectlOk(server, ['get', 'bucket', name, '-n', 'shop', '-o', 'json']));
  const scheduled = (c: any): { status: string; message: string } | undefined => c.status?.conditions?.find((x: any) => x.type === 'Scheduled');
  const boundAndReady = (name: string) =>
    eventually(
      async () => {
        const c = await claimJson(name);
        return c.status?.phase === 'Bound' && c.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') ? c : undefined;
      },
      `Bucket shop/${name} Bound and Ready`,
      60_000,
    );
  const secretOf = async (name: string) => {
    const s = JSON.parse(await kubectlOk(server, ['get', 'secret', name, '-n', 'shop', '-o', 'json']));
    return Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  };
  const s3Of = (secret: Record<string, string>) =>
    new S3Client({
      endpoint: secret.endpoint,
      region: secret.region,
      forcePathStyle: true,
      credentials: {
        accessKeyId: secret.accessKeyId,
        secretAccessKey: secret.secretAccessKey,
        ...(secret.sessionToken ? { sessionToken: secret.sessionToken } : {}),
      },
    });
  const bucketExists = async (name: string) => {
    try {
      await s3Admin.send(new HeadBucketCommand({ Bucket: name }));
      return true;
    } catch (err: any) {
      if (err.$metadata?.httpStatusCode === 404) return false;
      throw err;
    }
  };
  const claim = (name: string, requirements: string) =>
    `apiVersion: storage.conductor.io/v1alpha1\nkind: Bucket\nmetadata: {name: ${name}, namespace: shop}\nspec: {resourceClass: bucket, requirements: {capacity: {storage: 10Gi}${requirements}}}\n`;

  test('setup: a local S3Server, aws, gcp and azure Providers, an aws and a gcp class (Delete) and an azure class (Retain) for profile bucket', async () => {
    await kubectlOk(server, [
      'wait',
      '--for=condition=Established',
      'crd/s3buckets.storage.aws.conductor.io',
      'crd/blobcontainers.storage.azure.conductor.io',
      'crd/gcsbuckets.storage.gcp.conductor.io',
      'crd/s3servers.storage.local.conductor.io',
      '--timeout=60s',
    ]);
    // The three cloud regions under north-america, the two on the US east coast (us-east-1 of aws,
    // us-east1 of gcp) also under us-east-coast; the local server is on-prem.
    await eventually(async () => (await kubectl(server, ['get', 'schedulerprofile', 'default', ...ns])).code === 0, 'the default SchedulerProfile made');
    await kubectlOk(server, [
      'patch',
      'schedulerprofile',
      'default',
      ...ns,
      '--type=merge',
      '-p',
      JSON.stringify({
        spec: {
          regionHierarchy: { 'north-america': ['us-east-1', 'eastus', 'us-east1'], 'us-east-coast': ['us-east-1', 'us-east1'], 'on-prem': ['rack-1'] },
        },
      }),
    ]);
    await apply(
      [
        providerYaml('local', 'local', undefined),
        credentialsSecretYaml('aws-keys', {
          accessKeyId: gw.accessKeyId,
          secretAccessKey: gw.secretAccessKey,
          s3Endpoint: gw.endpoint,
          claimCredentials: 'provider',
        }),
        providerYaml('aws', 'aws', 'aws-keys', { region: 'us-east-1' }),
        credentialsSecretYaml('azure-key', {
          accountName: azurite.accountName,
          accountKey: azurite.accountKey,
          blobEndpoint: azurite.blobEndpoint,
          queueEndpoint: azurite.queueEndpoint,
        }),
        providerYaml('azure', 'azure', 'azure-key', { region: 'eastus' }),
        credentialsSecretYaml('gcp-emulated', { pubsubEndpoint: pubsub.endpoint, spannerEndpoint: spanner.endpoint, storageEndpoint: gcs.endpoint }),
        providerYaml('gcp', 'gcp', 'gcp-emulated', { project: 'conductor-test', region: 'us-east1' }),
        `apiVersion: storage.local.conductor.io/v1alpha1
kind: S3Server
metadata: {name: local-objects, namespace: ${NS}}
spec:
  providerRef: {name: local}
  resourceClass: bucket
  rebindPolicy: Delete
  capabilities: {region: rack-1, capacity: {storage: 100Gi}}
`,
        `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: s3-virginia, namespace: ${NS}}
resourceClass: bucket
supportedResources: [${BUCKET}]
rebindPolicy: Delete
providerRef: {name: aws}
capabilities: {region: us-east-1}
template: {apiVersion: storage.aws.conductor.io/v1alpha1, kind: S3Bucket, spec: {forProvider: {region: us-east-1}}}
`,
        `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: blob-eastus, namespace: ${NS}}
resourceClass: bucket
supportedResources: [${BUCKET}]
rebindPolicy: Retain
providerRef: {name: azure}
capabilities: {region: eastus}
template: {apiVersion: storage.azure.conductor.io/v1alpha1, kind: BlobContainer, spec: {forProvider: {location: eastus}}}
`,
        `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: gcs-carolina, namespace: ${NS}}
resourceClass: bucket
supportedResources: [${BUCKET}]
rebindPolicy: Delete
providerRef: {name: gcp}
capabilities: {region: us-east1}
template: {apiVersion: storage.gcp.conductor.io/v1alpha1, kind: GCSBucket, spec: {forProvider: {region: us-east1, forceDestroy: true}}}
`,
      ].join('---\n'),
    );
    for (const p of ['local', 'aws', 'gcp', 'azure']) await providerReady(server, p);
    await eventually(
      async () => (await jsonpath(['s3server', 'local-objects', ...ns], '{.status.phase}')) === 'Available',
      'the local S3Server Available',
      60_000,
    );
    await kubectlOk(server, ['create', 'namespace', 'shop']);
  });

  test('claims land by region and price, and describe shows the prices compared', async () => {
    await apply(
      [
        claim('anywhere', ''), // every candidate: the local server, free and existing
        claim('nearby', ', region: north-america'), // the clouds: azure is the cheapest (0.20 < 0.22 < 0.25 USD)
        claim('virginia', ', region: us-east-1'), // only aws is there
        claim('carolina', ', region: us-east1'), // only gcp is there
        claim('coast', ', region: us-east-coast'), // aws or gcp: gcp is cheaper (0.22 < 0.25 USD)
        claim('budget', ', region: north-america, maxMonthlyPrice: "0.21"'), // gcs and s3 are over the limit: azure
        claim('too-tight', ', region: north-america, maxMonthlyPrice: "0.10 USD"'), // nothing that cheap in north-america
      ].join('---\n'),
    );
    const [anywhere, nearby, virginia, carolina, coast, budget] = await Promise.all(
      ['anywhere', 'nearby', 'virginia', 'carolina', 'coast', 'budget'].map(boundAndReady),
    );
    assert.equal(anywhere.status.resourceRef.name, 'local-objects');
    assert.equal(nearby.status.resourceRef.kind, 'BlobContainer');
    assert.equal(virginia.status.resourceRef.kind, 'S3Bucket');
    assert.equal(carolina.status.resourceRef.kind, 'GCSBucket');
    assert.equal(coast.status.resourceRef.kind, 'GCSBucket');
    assert.equal(budget.status.resourceRef.kind, 'BlobContainer');

    assert.match(
      scheduled(anywhere)!.message,
      /chose S3Server conductor-system\/local-objects: .*; monthly prices: chose S3Server conductor-system\/local-objects 0\.00 USD; compared: conductor-system\/blob-eastus 0\.20 USD, conductor-system\/gcs-carolina 0\.22 USD, conductor-system\/s3-virginia 0\.25 USD$/,
    );
    assert.match(
      scheduled(nearby)!.message,
      /monthly prices: chose conductor-system\/blob-eastus 0\.20 USD; compared: conductor-system\/gcs-carolina 0\.22 USD, conductor-system\/s3-virginia 0\.25 USD$/,
    );
    assert.match(
      scheduled(coast)!.message,
      /monthly prices: chose conductor-system\/gcs-carolina 0\.22 USD; compared: conductor-system\/s3-virginia 0\.25 USD$/,
    );
    assert.doesNotMatch(scheduled(coast)!.message, /blob-eastus/, 'eastus is not on the US east coast of this profile');
    // (The other claims' new resources may be counted too, as bound to another claim.)
    assert.match(scheduled(budget)!.message, /rejected: .*2 monthly price above 0\.21 USD/);
    assert.match(
      scheduled(budget)!.message,
      /compared: conductor-system\/gcs-carolina 0\.22 USD \(over the claim's 0\.21 USD\), conductor-system\/s3-virginia 0\.25 USD \(over the claim's 0\.21 USD\)/,
    );

    // The claim nothing affordable fits stays Pending, saying why with the prices.
    const tight = await eventually(async () => {
      const c = await claimJson('too-tight');
      return scheduled(c)?.status === 'False' ? c : undefined;
    }, 'too-tight unschedulable');
    assert.equal(tight.status.phase, 'Pending');
    assert.match(scheduled(tight)!.message, /^0\/\d+ candidates: .*3 monthly price above 0\.10 USD/);

    // kubectl describe shows the prices compared (the Scheduled condition and the FailedScheduling Event).
    const described = await kubectlOk(server, ['describe', 'bucket', 'nearby', '-n', 'shop']);
    assert.match(described, /compared: conductor-system\/gcs-carolina 0\.22 USD, conductor-system\/s3-virginia 0\.25 USD/);
    const describedCoast = await kubectlOk(server, ['describe', 'bucket', 'coast', '-n', 'shop']);
    assert.match(describedCoast, /chose conductor-system\/gcs-carolina 0\.22 USD; compared: conductor-system\/s3-virginia 0\.25 USD/);
    const describedTight = await kubectlOk(server, ['describe', 'bucket', 'too-tight', '-n', 'shop']);
    assert.match(describedTight, /FailedScheduling/);
    assert.match(describedTight, /conductor-system\/blob-eastus 0\.20 USD \(over the claim's 0\.10 USD\)/);
    assert.match(describedTight, /conductor-system\/gcs-carolina 0\.22 USD \(over the claim's 0\.10 USD\)/);

    // The resources made advertise the price the scheduler compared.
    assert.equal(await jsonpath(['blobcontainer', nearby.status.resourceRef.name, ...ns], '{.status.atProvider.monthlyPrice.amount}'), '0.20');
    assert.equal(await jsonpath(['s3bucket', virginia.status.resourceRef.name, ...ns], '{.status.atProvider.monthlyPrice.amount}'), '0.25');
    assert.equal(await jsonpath(['gcsbucket', carolina.status.resourceRef.name, ...ns], '{.status.atProvider.monthlyPrice.amount}'), '0.22');
  });

  test('a price limit that is not an amount is refused with a 422 naming the field', async () => {
    const r = await kubectl(server, ['apply', '-f', '-'], { input: claim('bad-limit', ', maxMonthlyPrice: "cheap"') });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.requirements\.maxMonthlyPrice/);
    assert.match(r.stderr, /must be an amount with at most two decimals/);
  });

  test('the buckets work with the real SDKs through the claims’ Secrets; deleting the claims honours Delete (aws, gcp) and Retain (azure)', async () => {
    const aws = await secretOf('virginia');
    const s3 = s3Of(aws);
    await s3.send(new PutObjectCommand({ Bucket: aws.bucket, Key: 'hello.txt', Body: 'from aws' }));
    assert.equal(await (await s3.send(new GetObjectCommand({ Bucket: aws.bucket, Key: 'hello.txt' }))).Body!.transformToString(), 'from aws');
    s3.destroy();

    const gcp = await secretOf('carolina');
    assert.equal(gcp.emulated, 'true');
    assert.equal(gcp.region, 'us-east1');
    const app = new Storage({ projectId: gcp.projectId, apiEndpoint: gcp.storageEndpoint });
    await app.bucket(gcp.bucket).file('hello.txt').save('from gcp', { resumable: false, validation: 'md5' });
    assert.equal((await app.bucket(gcp.bucket).file('hello.txt').download({ validation: 'md5' }))[0].toString(), 'from gcp');
    const coastBucket = (await secretOf('coast')).bucket;
    assert.ok(gcs.buckets.has(coastBucket));

    const az = await secretOf('nearby');
    const container = new ContainerClient(az.sasUrl);
    await container.getBlockBlobClient('hello.txt').upload('from azure', 'from azure'.length);
    assert.equal((await container.getBlockBlobClient('hello.txt').downloadToBuffer()).toString(), 'from azure');

    const local = await secretOf('anywhere');
    const ls3 = s3Of(local);
    await ls3.send(new PutObjectCommand({ Bucket: local.bucket, Key: 'hello.txt', Body: 'from here' }));
    assert.equal(await (await ls3.send(new GetObjectCommand({ Bucket: local.bucket, Key: 'hello.txt' }))).Body!.transformToString(), 'from here');
    ls3.destroy();

    const azureContainer = (await claimJson('nearby')).status.resourceRef.name as string;
    await kubectlOk(server, [
      'delete',
      'bucket',
      'virginia',
      'carolina',
      'coast',
      'nearby',
      'budget',
      'anywhere',
      'too-tight',
      '-n',
      'shop',
      '--wait=true',
      '--timeout=60s',
    ]);
    await eventually(async () => !(await bucketExists(aws.bucket)), 'the Delete class’s S3 bucket gone', 60_000);
    await eventually(
      async () => !gcs.buckets.has(gcp.bucket) && !gcs.buckets.has(coastBucket),
      'the Delete class’s GCS buckets gone (forceDestroy: with the object)',
      60_000,
    );
    assert.equal(await blobAdmin.getContainerClient(az.containerName).exists(), true, 'the Retain class’s container stays');
    assert.equal(await jsonpath(['blobcontainer', azureContainer, ...ns], '{.status.phase}'), 'Released');
  });
});
