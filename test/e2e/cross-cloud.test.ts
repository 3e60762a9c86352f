/**
 * One scheduler choosing across clouds by region and monthly price (issue 14): a local S3Server
 * (Conductor's own s3rver, 0 USD a month), an aws class (S3Bucket against the project's S3
 * server behind the SigV4 gateway) and an azure class (BlobContainer against Azurite) for the
 * same profile and claim kind, Bucket. Claims with different regions and price limits land
 * where they should; `kubectl describe` says why with the prices compared (0.25 USD for 10Gi of
 * S3 Standard in us-east-1, 0.20 USD of Hot LRS blob in eastus, from the shipped tables); a
 * claim no candidate it may use is cheap enough for stays Pending saying so; a limit that is not
 * an amount is a 422 naming the field. The emulator-backed buckets are used with the real SDKs
 * and deleting the claims deletes what the Delete class made and keeps what the Retain class
 * made. Google Cloud has no Bucket kind here yet (GCSBucket comes with its own emulator-less
 * tests), so the gcp side of "one scale" is covered by the unit tests of its price hook.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient, ContainerClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { secretYaml } from '../support/target-cluster.js';
import { startS3Gateway, type S3Gateway } from '../support/s3-gateway.js';
import { startAzurite, type Azurite } from '../support/azurite.js';
import { instanceRoots, killLeftovers } from '../support/leftovers.js';

const NS = 'conductor-system';
const ns = ['-n', NS];
const BUCKET = 'Bucket.v1alpha1.storage.conductor.io';

describe('cross-cloud scheduling by region and monthly price (local, aws, azure)', () => {
  let gw: S3Gateway;
  let azurite: Azurite;
  let server: ServerProcess;
  let s3Admin: S3Client;
  let blobAdmin: BlobServiceClient;

  before(async () => {
    [gw, azurite] = await Promise.all([startS3Gateway(), startAzurite()]);
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
    await Promise.all([gw?.stop(), azurite?.stop()]);
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

  test('setup: a local S3Server, an aws and an azure Provider, an aws class (Delete) and an azure class (Retain) for profile bucket', async () => {
    await kubectlOk(server, [
      'wait',
      '--for=condition=Established',
      'crd/s3buckets.storage.aws.conductor.io',
      'crd/blobcontainers.storage.azure.conductor.io',
      'crd/s3servers.storage.local.conductor.io',
      '--timeout=60s',
    ]);
    // Both cloud regions under north-america; the local server is on-prem.
    await eventually(async () => (await kubectl(server, ['get', 'schedulerprofile', 'default', ...ns])).code === 0, 'the default SchedulerProfile made');
    await kubectlOk(server, [
      'patch',
      'schedulerprofile',
      'default',
      ...ns,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { regionHierarchy: { 'north-america': ['us-east-1', 'eastus'], 'on-prem': ['rack-1'] } } }),
    ]);
    await apply(
      [
        `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: local, namespace: ${NS}}\nspec: {type: local}\n`,
        secretYaml(NS, 'aws-keys', { accessKeyId: gw.accessKeyId, secretAccessKey: gw.secretAccessKey, s3Endpoint: gw.endpoint, claimCredentials: 'provider' }),
        `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: aws, namespace: ${NS}}\nspec: {type: aws, region: us-east-1, credentialsSecretRef: {name: aws-keys}}\n`,
        secretYaml(NS, 'azure-key', {
          accountName: azurite.accountName,
          accountKey: azurite.accountKey,
          blobEndpoint: azurite.blobEndpoint,
          queueEndpoint: azurite.queueEndpoint,
        }),
        `apiVersion: core.conductor.io/v1alpha1\nkind: Provider\nmetadata: {name: azure, namespace: ${NS}}\nspec: {type: azure, region: eastus, credentialsSecretRef: {name: azure-key}}\n`,
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
      ].join('---\n'),
    );
    for (const p of ['local', 'aws', 'azure'])
      await eventually(
        async () => (await jsonpath(['provider', p, ...ns], '{.status.conditions[?(@.type=="Ready")].status}')) === 'True',
        `Provider ${p} Ready`,
        60_000,
      );
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
        claim('nearby', ', region: north-america'), // the clouds: azure is cheaper (0.20 < 0.25 USD)
        claim('virginia', ', region: us-east-1'), // only aws is there
        claim('budget', ', region: north-america, maxMonthlyPrice: "0.22"'), // s3 is over the limit: azure
        claim('too-tight', ', region: north-america, maxMonthlyPrice: "0.10 USD"'), // nothing that cheap in north-america
      ].join('---\n'),
    );
    const [anywhere, nearby, virginia, budget] = await Promise.all(['anywhere', 'nearby', 'virginia', 'budget'].map(boundAndReady));
    assert.equal(anywhere.status.resourceRef.name, 'local-objects');
    assert.equal(nearby.status.resourceRef.kind, 'BlobContainer');
    assert.equal(virginia.status.resourceRef.kind, 'S3Bucket');
    assert.equal(budget.status.resourceRef.kind, 'BlobContainer');

    assert.match(
      scheduled(anywhere)!.message,
      /chose S3Server conductor-system\/local-objects: .*; monthly prices: chose S3Server conductor-system\/local-objects 0\.00 USD; compared: conductor-system\/blob-eastus 0\.20 USD, conductor-system\/s3-virginia 0\.25 USD$/,
    );
    assert.match(
      scheduled(nearby)!.message,
      /monthly prices: chose conductor-system\/blob-eastus 0\.20 USD; compared: conductor-system\/s3-virginia 0\.25 USD$/,
    );
    // (The other claims' new resources may be counted too, as bound to another claim.)
    assert.match(scheduled(budget)!.message, /rejected: .*1 monthly price above 0\.22 USD/);
    assert.match(scheduled(budget)!.message, /compared: conductor-system\/s3-virginia 0\.25 USD \(over the claim's 0\.22 USD\)/);

    // The claim nothing affordable fits stays Pending, saying why with the prices.
    const tight = await eventually(async () => {
      const c = await claimJson('too-tight');
      return scheduled(c)?.status === 'False' ? c : undefined;
    }, 'too-tight unschedulable');
    assert.equal(tight.status.phase, 'Pending');
    assert.match(scheduled(tight)!.message, /^0\/\d+ candidates: .*2 monthly price above 0\.10 USD/);

    // kubectl describe shows the prices compared (the Scheduled condition and the FailedScheduling Event).
    const described = await kubectlOk(server, ['describe', 'bucket', 'nearby', '-n', 'shop']);
    assert.match(described, /compared: conductor-system\/s3-virginia 0\.25 USD/);
    const describedTight = await kubectlOk(server, ['describe', 'bucket', 'too-tight', '-n', 'shop']);
    assert.match(describedTight, /FailedScheduling/);
    assert.match(describedTight, /conductor-system\/blob-eastus 0\.20 USD \(over the claim's 0\.10 USD\)/);

    // The resources made advertise the price the scheduler compared.
    assert.equal(await jsonpath(['blobcontainer', nearby.status.resourceRef.name, ...ns], '{.status.atProvider.monthlyPrice.amount}'), '0.20');
    assert.equal(await jsonpath(['s3bucket', virginia.status.resourceRef.name, ...ns], '{.status.atProvider.monthlyPrice.amount}'), '0.25');
  });

  test('a price limit that is not an amount is refused with a 422 naming the field', async () => {
    const r = await kubectl(server, ['apply', '-f', '-'], { input: claim('bad-limit', ', maxMonthlyPrice: "cheap"') });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.requirements\.maxMonthlyPrice/);
    assert.match(r.stderr, /must be an amount with at most two decimals/);
  });

  test('the emulator-backed buckets work with the real SDKs; deleting the claims honours Delete (aws) and Retain (azure)', async () => {
    const aws = await secretOf('virginia');
    const s3 = s3Of(aws);
    await s3.send(new PutObjectCommand({ Bucket: aws.bucket, Key: 'hello.txt', Body: 'from aws' }));
    assert.equal(await (await s3.send(new GetObjectCommand({ Bucket: aws.bucket, Key: 'hello.txt' }))).Body!.transformToString(), 'from aws');
    s3.destroy();

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
    await kubectlOk(server, ['delete', 'bucket', 'virginia', 'nearby', 'budget', 'anywhere', 'too-tight', '-n', 'shop', '--wait=true', '--timeout=60s']);
    await eventually(async () => !(await bucketExists(aws.bucket)), 'the Delete class’s S3 bucket gone', 60_000);
    assert.equal(await blobAdmin.getContainerClient(az.containerName).exists(), true, 'the Retain class’s container stays');
    assert.equal(await jsonpath(['blobcontainer', azureContainer, ...ns], '{.status.phase}'), 'Released');
  });
});
