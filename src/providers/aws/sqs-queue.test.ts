/**
 * The SQSQueue client with SQS and STS mocked at the SDK's request level
 * (test/support/aws-fakes.ts): create by name (a repeat finds the queue; one with other
 * attributes is corrected by update), FIFO names, a name deleted less than 60 s ago, and the
 * claim's keys — temporary keys from STS whose session policy names this queue only, the same
 * keys re-published until a third of their life has passed.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeSqs, FakeSts, FAKE_ACCOUNT } from '../../../test/support/aws-fakes.js';
import type { KObject } from '../../machinery/object.js';
import { fixture } from '../testing.js';
import { forgetCachedKeys } from './aws-clients.js';
import { awsCredentialsFrom } from './credentials.js';
import type { SQSQueue } from './kinds.js';
import { SQSQueueClient } from './sqs-queue.js';

const provider: KObject = { apiVersion: 'core.conductor.io/v1alpha1', kind: 'Provider', metadata: { name: 'aws' }, spec: { type: 'aws', region: 'us-east-1' } };
const secret = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const queue = (name: string, forProvider: Record<string, unknown> = {}): SQSQueue =>
  fixture<SQSQueue>({
    apiVersion: 'messaging.aws.conductor.io/v1alpha1',
    kind: 'SQSQueue',
    metadata: { namespace: 'shop', name },
    spec: { providerRef: { name: 'aws' }, forProvider },
  });

describe('SQSQueue (mocked SQS and STS)', () => {
  let sqs: FakeSqs;
  let sts: FakeSts;
  beforeEach(() => {
    forgetCachedKeys();
    sqs = new FakeSqs();
    sts = new FakeSts(secret.accessKeyId);
  });
  afterEach(() => {
    sqs.restore();
    sts.restore();
  });

  test('create (twice), observe with federated keys for this queue only, drift corrected, delete (mocked)', async () => {
    const client = new SQSQueueClient(awsCredentialsFrom(secret), provider);
    const r = queue('jobs', { queueName: 'shop-jobs', messageRetentionSeconds: 86_400 });
    assert.equal((await client.observe(r)).exists, false);
    await client.create(r);
    await client.create(r);
    assert.equal(sqs.queues.size, 1);
    const seen = await client.observe(r);
    assert.equal(seen.upToDate, true, seen.drift);
    const d = seen.connectionDetails!;
    assert.equal(d.endpoint, 'https://sqs.us-east-1.amazonaws.com');
    assert.equal(d.queue, 'shop-jobs');
    assert.equal(d.queueUrl, sqs.urlOf('shop-jobs'));
    assert.equal(d.queueArn, `arn:aws:sqs:us-east-1:${FAKE_ACCOUNT}:shop-jobs`);
    assert.match(d.accessKeyId, /^ASIAFED/);
    assert.notEqual(d.secretAccessKey, secret.secretAccessKey, 'never the Provider key');
    assert.match(d.sessionToken, /^fake-session-token-/);
    const federation = sts.calls.find((c) => c.operation === 'GetFederationToken')!;
    const policy = JSON.parse(federation.input.Policy);
    assert.deepEqual(
      policy.Statement.map((s: any) => s.Resource),
      [d.queueArn],
    );
    assert.ok(!JSON.stringify(policy).includes('*"'), 'no wildcard resource');
    // Observed again: the same keys (no new token), so the Secret does not churn.
    assert.deepEqual((await client.observe(r)).connectionDetails, d);
    assert.equal(sts.calls.filter((c) => c.operation === 'GetFederationToken').length, 1);

    sqs.queues.get('shop-jobs')!.attributes.MessageRetentionPeriod = '60';
    const drift = await client.observe(r);
    assert.equal(drift.upToDate, false);
    assert.match(drift.drift ?? '', /retention is 60 s, spec wants 86400/);
    await client.update(r);
    assert.equal((await client.observe(r)).upToDate, true);

    await client.delete(r);
    assert.equal((await client.observe(r)).exists, false);
    await client.delete(r); // gone: fine
    await assert.rejects(client.create(r), /deleted less than 60 seconds ago; retried/);
    sqs.forgetDeleted();
    await client.create(r);
  });

  test('a queue of that name with other attributes is found and corrected; FIFO names end in .fifo (mocked)', async () => {
    const client = new SQSQueueClient(awsCredentialsFrom({ ...secret, claimCredentials: 'provider' }), provider);
    const first = queue('a', { queueName: 'orders', messageRetentionSeconds: 600 });
    await client.create(first);
    const second = queue('a', { queueName: 'orders', messageRetentionSeconds: 1200 });
    assert.equal((await client.create(second)).externalName, 'orders');
    assert.equal((await client.observe(second)).upToDate, false);
    await client.update(second);
    assert.equal((await client.observe(second)).upToDate, true);
    assert.equal((await client.observe(second)).connectionDetails?.accessKeyId, secret.accessKeyId, 'claimCredentials provider: the Provider key');

    const fifo = queue('b', { fifo: true });
    await client.create(fifo);
    const name = [...sqs.queues.keys()].find((n) => n.endsWith('.fifo'))!;
    assert.match(name, /^shop-b-[0-9a-f]{16}\.fifo$/);
    assert.equal(sqs.queues.get(name)!.attributes.FifoQueue, 'true');
    await assert.rejects(client.observe(queue('c', { queueName: 'plain', fifo: true })), /does not end in .fifo/);
  });
});
