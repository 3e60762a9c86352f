/**
 * The gcp provider against Google's emulators from the installed Google Cloud CLI: the Pub/Sub
 * emulator and the Spanner emulator, each on a free 127.0.0.1 port, started and stopped here.
 * A Provider of type gcp whose Secret points both services at the emulators is Ready (a cheap
 * list on each); Ready=False with the reason — InvalidCredentials for a missing key or a key
 * JSON that does not parse (never quoting it), InvalidSpec for a region Google does not have,
 * Unreachable. MessageQueue claims on PubSubTopic classes and PostgreSQLInstance claims on
 * SpannerDatabase classes become Bound and Ready; the claim's Secret alone lets
 * @google-cloud/pubsub publish and receive, and @google-cloud/spanner run a PostgreSQL-dialect
 * query. Deleting the claims deletes the topic and database under Delete (and an instance
 * Conductor made for one claim) and keeps them under Retain. An existing topic is imported by
 * conductor.io/external-name with ObserveOnly and left alone when its resource goes; ids Google
 * refuses are refused at admission or said in a condition. examples/clouds/gcp works as written.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PubSub } from '@google-cloud/pubsub';
import { Spanner } from '@google-cloud/spanner';
import { credentials as grpcCredentials } from '@grpc/grpc-js';
import { eventually } from '../support/eventually.js';
import { kubectl, kubectlOk, repoRoot, serverForSuite } from '../support/server.js';
import { credentialsSecretYaml, providerYaml } from '../support/cloud-provider.js';
import { startPubSubEmulator, startSpannerEmulator, type Emulator } from '../support/gcp-emulators.js';

const NS = 'conductor-system';
const ns = ['-n', NS];
const PROJECT = 'conductor-test';
const run = promisify(execFile);

/** receiveOne waits (bounded) for one message on `subscription` and acknowledges it. */
async function receiveOne(pubsub: PubSub, subscription: string): Promise<string> {
  const sub = pubsub.subscription(subscription);
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no message on ${subscription} within 30 s`)), 30_000);
      sub.once('message', (m: { data: Buffer; ack(): void }) => {
        clearTimeout(timer);
        m.ack();
        resolve(m.data.toString());
      });
      sub.once('error', (err: Error) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  } finally {
    await sub.close();
  }
}

/**
 * spannerQuery runs `select $1::text` against the database a claim's Secret names, with
 * @google-cloud/spanner in a child process: the emulator gives plain sessions where this SDK
 * asks multiplexed ones, so the client needs GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS=false,
 * which is process-wide — set only in that child.
 */
async function spannerQuery(secret: Record<string, string>, text: string): Promise<string> {
  const script = `
const { Spanner } = require('@google-cloud/spanner');
const grpc = require('@grpc/grpc-js');
const s = JSON.parse(process.env.SECRET);
const emulated = s.emulated === 'true';
const spanner = new Spanner({ projectId: s.projectId, servicePath: s.host, port: Number(s.port), disableBuiltInMetrics: true,
  ...(emulated ? { sslCreds: grpc.credentials.createInsecure(), clientOptions: { universeDomain: 'googleapis.com' } } : {}) });
const db = spanner.instance(s.instanceId).database(s.databaseId);
db.run({ sql: 'select $1::text as said', params: { p1: process.env.TEXT } })
  .then(([rows]) => { process.stdout.write(rows[0].toJSON().said); return db.close(); })
  .then(() => { spanner.close(); process.exit(0); }, (err) => { console.error(err.message); process.exit(1); });
`;
  const { stdout } = await run(process.execPath, ['-e', script], {
    cwd: repoRoot,
    env: { ...process.env, SECRET: JSON.stringify(secret), TEXT: text, GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS: 'false' },
    timeout: 60_000,
  });
  return stdout;
}

describe('the gcp provider against the Pub/Sub and Spanner emulators', () => {
  let pubsubEmulator: Emulator;
  let spannerEmulator: Emulator;
  let pubsubAdmin: PubSub;
  let spannerAdmin: Spanner;
  before(async () => {
    [pubsubEmulator, spannerEmulator] = await Promise.all([startPubSubEmulator(), startSpannerEmulator()]);
    pubsubAdmin = new PubSub({
      projectId: PROJECT,
      apiEndpoint: `127.0.0.1:${pubsubEmulator.port}`,
      emulatorMode: true,
      clientOptions: { universeDomain: 'googleapis.com' },
    });
    spannerAdmin = new Spanner({
      projectId: PROJECT,
      servicePath: '127.0.0.1',
      port: spannerEmulator.port,
      sslCreds: grpcCredentials.createInsecure(),
      disableBuiltInMetrics: true,
      clientOptions: { universeDomain: 'googleapis.com' },
    });
  });
  after(async () => {
    await pubsubAdmin?.close().catch(() => undefined);
    await spannerAdmin?.close().catch(() => undefined);
    await Promise.all([pubsubEmulator?.stop(), spannerEmulator?.stop()]);
  });
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
      90_000,
    );
  const topicExists = async (id: string) => (await pubsubAdmin.topic(id).exists())[0];
  const databaseExists = async (instance: string, id: string) => (await spannerAdmin.instance(instance).database(id).exists())[0];
  const instanceExists = async (id: string) => (await spannerAdmin.instance(id).exists())[0];
  const emulators = () => ({ pubsubEndpoint: pubsubEmulator.endpoint, spannerEndpoint: spannerEmulator.endpoint });
  const provider = (name: string, secret: string, region = 'us-central1') => providerYaml('gcp', name, secret, { project: PROJECT, region });
  const brokenKey = '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7 SECRETBITS';

  test('Providers of type gcp: Ready when both emulators answer, else Ready=False with the reason and no secret', async () => {
    const s = suite.server;
    await kubectlOk(s, [
      'wait',
      '--for=condition=Established',
      'crd/pubsubtopics.messaging.gcp.conductor.io',
      'crd/spannerdatabases.database.gcp.conductor.io',
      '--timeout=60s',
    ]);
    await apply(
      [
        credentialsSecretYaml('gcp-emulators', emulators()),
        credentialsSecretYaml('gcp-no-key', { pubsubEndpoint: 'https://pubsub.googleapis.com' }),
        credentialsSecretYaml('gcp-broken-key', { 'credentials.json': brokenKey }),
        // Port 1 on the loopback: nothing listens there.
        credentialsSecretYaml('gcp-nowhere', { pubsubEndpoint: 'http://127.0.0.1:1', spannerEndpoint: 'http://127.0.0.1:1' }),
        provider('gcp', 'gcp-emulators'),
        provider('no-key', 'gcp-no-key'),
        provider('broken-key', 'gcp-broken-key'),
        provider('nowhere', 'gcp-nowhere'),
        provider('bad-region', 'gcp-emulators', 'moon'),
      ].join('---\n'),
    );
    await eventually(async () => (await condition('provider', 'gcp', 'Ready', 'status')) === 'True', 'Provider gcp Ready');
    assert.match(
      await condition('provider', 'gcp', 'Ready', 'message'),
      /Pub\/Sub and Spanner answer for project conductor-test \(emulated: Pub\/Sub and Spanner/,
    );
    const expected: Record<string, { reason: string; message: RegExp }> = {
      'no-key': { reason: 'InvalidCredentials', message: /has no credentials\.json: add the service-account key/ },
      'broken-key': { reason: 'InvalidCredentials', message: /key credentials\.json does not parse as JSON/ },
      nowhere: { reason: 'Unreachable', message: /cannot list the Pub\/Sub topics of project conductor-test: no answer/ },
      'bad-region': { reason: 'InvalidSpec', message: /spec.region "moon" is not a Google Cloud region/ },
    };
    for (const [name, want] of Object.entries(expected)) {
      await eventually(async () => (await condition('provider', name, 'Ready', 'status')) === 'False', `Provider ${name} not Ready`, 90_000);
      assert.equal(await condition('provider', name, 'Ready', 'reason'), want.reason, name);
      const message = await condition('provider', name, 'Ready', 'message');
      assert.match(message, want.message, name);
      assert.ok(!message.includes('SECRETBITS') && !message.includes('MIIEv'), `${name}'s message quotes no key: ${message}`);
    }
  });

  const resourceClass = (name: string, claim: string, template: string, policy: string) => `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: ${name}, namespace: ${NS}}
supportedResources: [${claim}]
rebindPolicy: ${policy}
providerRef: {name: gcp}
template: ${template}
`;
  const MQ = 'MessageQueue.v1alpha1.messaging.conductor.io';
  const PG = 'PostgreSQLInstance.v1alpha1.storage.conductor.io';
  const topicTemplate = '{apiVersion: messaging.gcp.conductor.io/v1alpha1, kind: PubSubTopic, spec: {forProvider: {region: us-central1}}}';
  const spannerTemplate = (instance?: string) =>
    `{apiVersion: database.gcp.conductor.io/v1alpha1, kind: SpannerDatabase, spec: {forProvider: {${instance ? `instanceId: ${instance}, ` : ''}instanceConfig: emulator-config, region: us-central1}}}`;
  const claim = (kind: 'MessageQueue' | 'PostgreSQLInstance', name: string, cls: string) =>
    `apiVersion: ${kind === 'MessageQueue' ? 'messaging' : 'storage'}.conductor.io/v1alpha1\nkind: ${kind}\nmetadata: {name: ${name}, namespace: shop}\nspec: {resourceClass: ${cls}, requirements: {capacity: {storage: 10Gi}}}\n`;

  test('MessageQueue and PostgreSQLInstance claims: Bound and Ready, the Secret used by the Google SDKs, Delete and Retain honoured', async () => {
    const s = suite.server;
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    await apply(
      [
        resourceClass('topic-delete', MQ, topicTemplate, 'Delete'),
        resourceClass('topic-retain', MQ, topicTemplate, 'Retain'),
        resourceClass('spanner-delete', PG, spannerTemplate('shared-pg'), 'Delete'),
        resourceClass('spanner-retain', PG, spannerTemplate('shared-pg'), 'Retain'),
        resourceClass('spanner-own', PG, spannerTemplate(), 'Delete'),
        claim('MessageQueue', 'jobs', 'topic-delete'),
        claim('MessageQueue', 'events', 'topic-retain'),
        claim('PostgreSQLInstance', 'orders', 'spanner-delete'),
        claim('PostgreSQLInstance', 'ledger', 'spanner-retain'),
        claim('PostgreSQLInstance', 'scratch', 'spanner-own'),
      ].join('---\n'),
    );
    await boundAndReady('messagequeue', 'shop', 'jobs');
    await boundAndReady('messagequeue', 'shop', 'events');
    const orders = await boundAndReady('postgresqlinstance', 'shop', 'orders');
    await boundAndReady('postgresqlinstance', 'shop', 'ledger');
    await boundAndReady('postgresqlinstance', 'shop', 'scratch');

    // The MessageQueue's Secret: the claim kind's keys and Pub/Sub's own; used to publish and receive.
    const jobs = await secretOf('shop', 'jobs');
    assert.deepEqual(Object.keys(jobs).sort(), ['credentials', 'emulated', 'endpoint', 'projectId', 'queue', 'subscription', 'topic']);
    assert.match(jobs.topic, /^shop-jobs-[0-9a-f]{16}$/);
    assert.equal(jobs.queue, jobs.topic);
    assert.equal(jobs.subscription, `${jobs.topic}-sub`);
    assert.equal(jobs.endpoint, `127.0.0.1:${pubsubEmulator.port}`);
    assert.equal(jobs.projectId, PROJECT);
    assert.equal(jobs.emulated, 'true');
    assert.equal(jobs.credentials, '', 'no application key in the Provider Secret: none handed out');
    const app = new PubSub({
      projectId: jobs.projectId,
      apiEndpoint: jobs.endpoint,
      emulatorMode: jobs.emulated === 'true',
      clientOptions: { universeDomain: 'googleapis.com' },
    });
    try {
      await app.topic(jobs.topic).publishMessage({ data: Buffer.from('ship order 42') });
      assert.equal(await receiveOne(app, jobs.subscription), 'ship order 42');
    } finally {
      await app.close();
    }

    // The PostgreSQLInstance's Secret: the SQL keys (Spanner's meaning) and Spanner's own; used to run a PostgreSQL-dialect query.
    const db = await secretOf('shop', 'orders');
    assert.deepEqual(Object.keys(db).sort(), [
      'credentials',
      'database',
      'databaseId',
      'emulated',
      'host',
      'instanceId',
      'password',
      'port',
      'projectId',
      'uri',
      'username',
    ]);
    assert.equal(db.instanceId, 'shared-pg');
    assert.match(db.databaseId, /^shop-orders-[0-9a-f]{16}$/);
    assert.equal(db.database, db.databaseId);
    assert.equal(db.host, '127.0.0.1');
    assert.equal(db.port, String(spannerEmulator.port));
    assert.equal(
      db.uri,
      `cloudspanner://127.0.0.1:${spannerEmulator.port}/projects/${PROJECT}/instances/shared-pg/databases/${db.databaseId}?autoConfigEmulator=true`,
    );
    assert.equal(await spannerQuery(db, 'hello from orders'), 'hello from orders');
    const ledger = await secretOf('shop', 'ledger');
    const scratch = await secretOf('shop', 'scratch');
    assert.equal(ledger.instanceId, 'shared-pg');
    assert.match(scratch.instanceId, /^shop-scratch-[0-9a-f]{16}$/, 'a class without instanceId: an instance of the claim own');

    // The resource states its region and its monthly price from the table (100 PU and 10Gi in us-central1).
    const resource = orders.status.resourceRef.name as string;
    assert.equal(await jsonpath(['spannerdatabase', resource, ...ns], '{.spec.capabilities.region}'), 'us-central1');
    assert.equal(await jsonpath(['spannerdatabase', resource, ...ns], '{.status.atProvider.monthlyPrice.amount}'), '68.93');
    assert.match(
      await jsonpath(['spannerdatabase', resource, ...ns], '{.status.atProvider.monthlyPrice.table}'),
      /^2024-06-30, unverified; https:\/\/cloud\.google\.com\/spanner\/pricing/,
    );

    const events = await secretOf('shop', 'events');
    // Release: Delete removes the topic and database (and the instance made for scratch), Retain keeps them.
    await kubectlOk(s, ['delete', 'messagequeue', 'jobs', 'events', '-n', 'shop', '--wait=true', '--timeout=60s']);
    await kubectlOk(s, ['delete', 'postgresqlinstance', 'orders', 'ledger', 'scratch', '-n', 'shop', '--wait=true', '--timeout=60s']);
    assert.equal(await topicExists(events.topic), true, 'Retain keeps the topic');
    await eventually(async () => !(await topicExists(jobs.topic)), 'the Delete topic gone from the emulator', 60_000);
    await eventually(async () => !(await databaseExists('shared-pg', db.databaseId)), 'the Delete database gone from the emulator', 60_000);
    await eventually(async () => !(await instanceExists(scratch.instanceId)), 'the instance made for scratch gone with its database', 60_000);
    assert.equal(await databaseExists('shared-pg', ledger.databaseId), true, 'Retain keeps the database');
    assert.equal(await instanceExists('shared-pg'), true, 'an instance still holding a database is kept');
  });

  test('an existing topic imported by external name with ObserveOnly, and left alone when its resource goes', async () => {
    const [topic] = await pubsubAdmin.createTopic('imported-logs');
    await topic.createSubscription('imported-logs-sub');
    await apply(`apiVersion: messaging.gcp.conductor.io/v1alpha1
kind: PubSubTopic
metadata: {name: logs, namespace: ${NS}, annotations: {conductor.io/external-name: imported-logs}}
spec: {providerRef: {name: gcp}, managementPolicy: ObserveOnly, rebindPolicy: Delete, writeConnectionSecretToRef: {name: logs-conn}}
`);
    await eventually(async () => (await condition('pubsubtopic', 'logs', 'Ready', 'status')) === 'True', 'the imported topic Ready');
    assert.equal(await jsonpath(['pubsubtopic', 'logs', ...ns], '{.status.atProvider.topic}'), `projects/${PROJECT}/topics/imported-logs`);
    const conn = await eventually(async () => (await secretOf(NS, 'logs-conn').catch(() => undefined)) ?? undefined, 'the connection Secret logs-conn');
    assert.equal(conn.topic, 'imported-logs');
    assert.equal(conn.subscription, 'imported-logs-sub');
    await kubectlOk(suite.server, ['delete', 'pubsubtopic', 'logs', ...ns, '--wait=true', '--timeout=60s']);
    assert.equal(await topicExists('imported-logs'), true, 'ObserveOnly never deletes');
  });

  test('bad input: ids and regions Google refuses (422 naming the field, or a condition)', async () => {
    const s = suite.server;
    const badTopic = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: messaging.gcp.conductor.io/v1alpha1\nkind: PubSubTopic\nmetadata: {name: bad-topic, namespace: ${NS}}\nspec: {providerRef: {name: gcp}, forProvider: {topicId: "1-starts-with-a-digit"}}\n`,
    });
    assert.notEqual(badTopic.code, 0);
    assert.match(badTopic.stderr, /spec\.forProvider\.topicId/);
    const badRegion = await kubectl(s, ['apply', '-f', '-'], {
      input: `apiVersion: database.gcp.conductor.io/v1alpha1\nkind: SpannerDatabase\nmetadata: {name: bad-region, namespace: ${NS}}\nspec: {providerRef: {name: gcp}, forProvider: {region: moon}}\n`,
    });
    assert.notEqual(badRegion.code, 0);
    assert.match(badRegion.stderr, /spec\.forProvider\.region/);

    await apply(`apiVersion: database.gcp.conductor.io/v1alpha1
kind: SpannerDatabase
metadata: {name: upper, namespace: ${NS}, annotations: {conductor.io/external-name: Not_A_Database}}
spec: {providerRef: {name: gcp}, forProvider: {instanceId: shared-pg}}
`);
    await eventually(async () => (await condition('spannerdatabase', 'upper', 'Synced', 'status')) === 'False', 'SpannerDatabase upper not Synced');
    assert.match(await condition('spannerdatabase', 'upper', 'Synced', 'message'), /database id "Not_A_Database" must begin with a lower-case letter/);
    await kubectlOk(s, ['delete', 'spannerdatabase', 'upper', ...ns, '--wait=true', '--timeout=60s']);
  });

  test('examples/clouds/gcp as written: a queue and a database for namespace billing, used with the SDKs, gone with the namespace', async () => {
    const s = suite.server;
    const example = (file: string) => readFileSync(join(repoRoot, 'examples', 'clouds', 'gcp', file), 'utf8');
    const providerYaml = example('01-provider.yaml')
      .replaceAll('PROJECT_ID', PROJECT)
      .replace(/^ {2}credentials\.json: .*\n/m, '')
      .replace(/# pubsubEndpoint: \S+/, `pubsubEndpoint: ${pubsubEmulator.endpoint}`)
      .replace(/# spannerEndpoint: \S+/, `spannerEndpoint: ${spannerEmulator.endpoint}`);
    await apply(providerYaml);
    await apply(example('02-classes.yaml').replaceAll('instanceConfig: regional-us-central1', 'instanceConfig: emulator-config'));
    await apply(example('03-app.yaml'));
    await boundAndReady('messagequeue', 'billing', 'invoices');
    await boundAndReady('postgresqlinstance', 'billing', 'accounts');
    const invoices = await secretOf('billing', 'invoices');
    const accounts = await secretOf('billing', 'accounts');
    const app = new PubSub({
      projectId: invoices.projectId,
      apiEndpoint: invoices.endpoint,
      emulatorMode: true,
      clientOptions: { universeDomain: 'googleapis.com' },
    });
    try {
      await app.topic(invoices.topic).publishMessage({ data: Buffer.from('invoice 7') });
      assert.equal(await receiveOne(app, invoices.subscription), 'invoice 7');
    } finally {
      await app.close();
    }
    assert.equal(await spannerQuery(accounts, 'accounts here'), 'accounts here');
    await kubectlOk(s, ['delete', 'namespace', 'billing', '--wait=true', '--timeout=90s']);
    await eventually(
      async () => !(await topicExists(invoices.topic)) && !(await databaseExists(accounts.instanceId, accounts.databaseId)),
      'the topic and database deleted',
      60_000,
    );
  });
});
