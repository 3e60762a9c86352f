/**
 * The RDSInstance client with RDS mocked at the SDK's request level (aws-sdk-client-mock,
 * test/support/aws-fakes.ts) following RDS's documented state machine: creating → available
 * → modifying → available → deleting → gone; polls of a busy instance back off; a create
 * repeated after a crash finds the instance; an instance made for something else is not
 * taken; quota, throttling and invalid-parameter errors are said with their reason; the
 * master password is Conductor's, the same after a crash, and never in a message.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InstanceQuotaExceededFault } from '@aws-sdk/client-rds';
import { FakeRds, rdsError, withResponseHeaders } from '../../../test/support/aws-fakes.js';
import type { KObject } from '../../machinery/object.js';
import { fixture } from '../testing.js';
import { awsCredentialsFrom } from './credentials.js';
import { AwsError } from './errors.js';
import type { RDSInstance } from './kinds.js';
import { masterPassword } from './rds-password.js';
import { FIRST_POLL_MS, MAX_POLL_MS, RDSInstanceClient, rdsPollSchedule, type PollSchedule } from './rds-instance.js';

const provider: KObject = { apiVersion: 'core.conductor.io/v1alpha1', kind: 'Provider', metadata: { name: 'aws' }, spec: { type: 'aws', region: 'us-east-1' } };
const secret = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const credentials = awsCredentialsFrom(secret);
const instance = (name: string, forProvider: Record<string, unknown> = {}): RDSInstance =>
  fixture<RDSInstance>({
    apiVersion: 'database.aws.conductor.io/v1alpha1',
    kind: 'RDSInstance',
    metadata: { namespace: 'conductor-system', name },
    spec: { providerRef: { name: 'aws' }, forProvider: { engine: 'postgres', instanceClass: 'db.t4g.micro', allocatedStorageGi: 20, ...forProvider } },
  });

describe('RDSInstance (mocked RDS)', () => {
  let rds: FakeRds;
  let clock: number;
  let polls: PollSchedule;
  let client: RDSInstanceClient;
  beforeEach(() => {
    rds = new FakeRds();
    clock = 1_000_000;
    polls = rdsPollSchedule(() => clock);
    client = new RDSInstanceClient(credentials, provider, polls);
  });
  afterEach(() => rds.restore());

  test('creating → available → modifying → available → deleting → gone (mocked)', async () => {
    const r = instance('orders', { instanceIdentifier: 'orders-db', databaseName: 'orders', masterUsername: 'shop' });
    assert.equal((await client.observe(r)).exists, false);
    assert.equal((await client.create(r)).externalName, 'orders-db');
    const created = rds.instances.get('orders-db')!;
    assert.equal(created.input.MasterUserPassword, masterPassword(credentials.masterPasswordKey, 'us-east-1', 'orders-db'));
    assert.equal(created.input.StorageEncrypted, true);
    assert.deepEqual(created.input.Tags?.[0], { Key: 'conductor.io/resource', Value: 'conductor-system/orders' });

    const creating = await client.observe(r);
    assert.equal(creating.exists, true);
    assert.deepEqual(creating.notReady?.reason, 'Creating');
    assert.equal(creating.connectionDetails, undefined, 'nothing published before the endpoint exists');

    rds.advance('orders-db');
    clock += FIRST_POLL_MS;
    const available = await client.observe(r);
    assert.equal(available.notReady, undefined);
    assert.equal(available.upToDate, true);
    const d = available.connectionDetails!;
    assert.equal(d.host, 'orders-db.abcdefghijkl.us-east-1.rds.amazonaws.com');
    assert.equal(d.port, '5432');
    assert.equal(d.username, 'shop');
    assert.equal(d.database, 'orders');
    assert.equal(d.password, created.input.MasterUserPassword);
    assert.equal(d.uri, `postgresql://shop:${encodeURIComponent(d.password)}@${d.host}:5432/orders`);
    assert.equal(d.engine, 'postgres');
    assert.match(
      String((available.atProvider?.monthlyPrice as Record<string, string>).basis),
      /730 h × 0.016 USD\/h \(postgres db.t4g.micro\) \+ 20 GB × 0.115/,
    );

    // A bigger class: drift, corrected by ModifyDBInstance; modifying until RDS applies it.
    const bigger = instance('orders', {
      instanceIdentifier: 'orders-db',
      databaseName: 'orders',
      masterUsername: 'shop',
      instanceClass: 'db.t4g.small',
      allocatedStorageGi: 50,
    });
    const drift = await client.observe(bigger);
    assert.equal(drift.upToDate, false);
    assert.match(drift.drift ?? '', /class is db.t4g.micro, spec wants db.t4g.small; storage is 20 GiB, spec wants 50/);
    await client.update(bigger);
    const modifying = await client.observe(bigger);
    assert.equal(modifying.notReady?.reason, 'Modifying');
    rds.advance('orders-db');
    clock += FIRST_POLL_MS;
    const modified = await client.observe(bigger);
    assert.equal(modified.notReady, undefined);
    assert.equal(modified.upToDate, true);
    assert.equal(modified.atProvider?.instanceClass, 'db.t4g.small');

    await client.delete(bigger);
    assert.equal((await client.observe(bigger)).notReady?.reason, 'Deleting');
    await client.delete(bigger); // already deleting: done
    rds.advance('orders-db');
    clock += MAX_POLL_MS;
    assert.equal((await client.observe(bigger)).exists, false);
    await client.delete(bigger); // gone: done
    assert.equal(rds.calls.filter((c) => c === 'DeleteDBInstance').length, 3);
  });

  test('a busy instance is polled with backoff: 5 s, doubling while its state stays, up to 60 s (mocked)', async () => {
    const r = instance('slow', { instanceIdentifier: 'slow-db' });
    await client.create(r);
    const describes = () => rds.calls.filter((c) => c === 'DescribeDBInstances').length;
    await client.observe(r);
    const asked: number[] = [];
    // Observe once a second for 4 minutes of the fake clock; count the times RDS is asked.
    for (let t = 0; t < 240; t++) {
      clock += 1000;
      const before = describes();
      assert.equal((await client.observe(r)).notReady?.reason, 'Creating');
      if (describes() > before) asked.push(t + 1);
    }
    const gaps = asked.slice(1).map((t, i) => t - asked[i]);
    assert.deepEqual(gaps.slice(0, 4), [10, 20, 40, 60], `gaps between polls: ${gaps.join(', ')}`);
    assert.ok(gaps.every((g) => g <= 60));
    rds.advance('slow-db');
    clock += 60_000;
    assert.equal((await client.observe(r)).notReady, undefined, 'available seen at the next poll');
  });

  test("a create repeated after a crash finds the instance and sets the same password; another resource's instance is not taken (mocked)", async () => {
    const r = instance('orders', { instanceIdentifier: 'orders-db' });
    await client.create(r);
    const afterCrash = new RDSInstanceClient(
      credentials,
      provider,
      rdsPollSchedule(() => clock),
    );
    assert.equal((await afterCrash.create(r)).externalName, 'orders-db');
    assert.equal(rds.instances.size, 1, 'nothing created twice');
    rds.advance('orders-db');
    assert.equal((await afterCrash.observe(r)).connectionDetails?.password, rds.instances.get('orders-db')!.input.MasterUserPassword);

    const other = instance('intruder', { instanceIdentifier: 'orders-db' });
    await assert.rejects(afterCrash.create(other), (err: unknown) => {
      assert.ok(err instanceof AwsError);
      assert.equal(err.reason, 'AlreadyExists');
      assert.match(err.message, /exists and was not made for this resource — import it with the annotation conductor.io\/external-name/);
      return true;
    });
    // Imported (external name, not made for it): no password Conductor knows.
    const imported = instance('imported');
    imported.metadata.annotations = { 'conductor.io/external-name': 'orders-db' };
    const seen = await afterCrash.observe(imported);
    assert.equal(seen.exists, true);
    assert.equal(seen.connectionDetails?.password, '');
  });

  test('quota, throttling and invalid parameters are said with their reason, never with the password (mocked)', async () => {
    const r = instance('orders', { instanceIdentifier: 'orders-db' });
    const password = masterPassword(credentials.masterPasswordKey, 'us-east-1', 'orders-db');
    const cases: [Error, string, RegExp][] = [
      [new InstanceQuotaExceededFault({ message: 'Instance quota exceeded', $metadata: { httpStatusCode: 400 } }), 'QuotaExceeded', /quota is reached/],
      [rdsError('Throttling', 'Rate exceeded'), 'Throttled', /throttled by AWS; retried with backoff/],
      [withResponseHeaders(rdsError('Throttling', 'Rate exceeded'), { 'Retry-After': '30' }), 'Throttled', /throttled by AWS; retrying in 30s$/],
      [rdsError('InvalidParameterValue', 'Invalid DB instance class: db.t4g.micro for engine postgres 9.6'), 'InvalidParameter', /Invalid DB instance class/],
    ];
    for (const [err, reason, message] of cases) {
      rds.failNext('CreateDBInstance', err);
      await assert.rejects(client.create(r), (e: unknown) => {
        assert.ok(e instanceof AwsError, String(e));
        assert.equal(e.reason, reason);
        assert.match(e.message, message);
        assert.ok(!e.message.includes(password), 'the password never appears');
        return true;
      });
    }
    assert.equal(rds.instances.size, 0);
    await client.create(r);
    assert.equal(rds.instances.size, 1, 'created once the errors pass');
  });

  test('a throttling answer’s wait (Retry-After, x-amz-retry-after in ms) is kept for the reconciler, at most 5 minutes (mocked)', async () => {
    const r = instance('busy', { instanceIdentifier: 'busy-db' });
    const cases: [Record<string, string>, number | undefined][] = [
      [{ 'retry-after': '30' }, 30],
      [{ 'x-amz-retry-after': '1500' }, 2],
      [{ 'Retry-After': '7200' }, 300],
      [{}, undefined],
    ];
    for (const [headers, want] of cases) {
      rds.failNext('DescribeDBInstances', withResponseHeaders(rdsError('Throttling', 'Rate exceeded'), headers));
      await assert.rejects(client.observe(r), (e: unknown) => {
        assert.ok(e instanceof AwsError, String(e));
        assert.equal(e.reason, 'Throttled');
        assert.equal(e.retryAfterSeconds, want, JSON.stringify(headers));
        return true;
      });
    }
  });

  test('a failed instance is reported for an administrator; a delete while creating is retried (mocked)', async () => {
    const r = instance('broken', { instanceIdentifier: 'broken-db' });
    await client.create(r);
    await assert.rejects(client.delete(r), /it is creating; retried/);
    rds.instances.get('broken-db')!.status = 'storage-full';
    clock += MAX_POLL_MS;
    const seen = await client.observe(r);
    assert.equal(seen.notReady?.reason, 'InstanceStorageFull');
    assert.match(seen.notReady?.message ?? '', /needs an administrator/);
  });
});
