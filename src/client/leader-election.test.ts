import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, isConflict } from '../machinery/errors.js';
import { LeaderElector, leaseIsFree, microTime } from './leader-election.js';
import type { Lease, LeaderElectionOptions } from './leader-election.js';
import { FakeClient } from './testing/fake-client.js';
import { builtinRefs } from './types.js';
import type { Client } from './types.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, ms = 1500): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(2);
  }
}

/** A candidate with fast timings and a record of its callbacks. */
function candidate(client: Client, identity: string, extra: Partial<LeaderElectionOptions> = {}) {
  const record = { started: 0, stopped: 0, leaders: [] as string[], signal: undefined as AbortSignal | undefined };
  const elector = new LeaderElector({
    client,
    namespace: 'conductor-system',
    name: 'controllers',
    identity,
    leaseDurationMs: 300,
    renewDeadlineMs: 200,
    retryPeriodMs: 20,
    onStartedLeading: (signal) => {
      record.started++;
      record.signal = signal;
    },
    onStoppedLeading: () => {
      record.stopped++;
    },
    onNewLeader: (id) => record.leaders.push(id),
    ...extra,
  });
  return { elector, record };
}

async function lease(fake: FakeClient): Promise<Lease> {
  return fake.get<Lease>(builtinRefs.leases, 'controllers', 'conductor-system');
}

/** A view of `fake` that fails every call while `cut()` says so (a network partition). */
function partitionable(fake: FakeClient, cut: () => boolean): Client {
  const down = (): ApiError => new ApiError(503, 'ServiceUnavailable', 'cannot reach the API server: partitioned');
  return {
    ...fake,
    get: ((...args: Parameters<FakeClient['get']>) => (cut() ? Promise.reject(down()) : fake.get(...args))) as FakeClient['get'],
    create: ((...args: Parameters<FakeClient['create']>) => (cut() ? Promise.reject(down()) : fake.create(...args))) as FakeClient['create'],
    update: ((...args: Parameters<FakeClient['update']>) => (cut() ? Promise.reject(down()) : fake.update(...args))) as FakeClient['update'],
  };
}

describe('LeaderElector', () => {
  test('of two candidates exactly one leads, and both learn who', async () => {
    const fake = new FakeClient();
    const a = candidate(fake, 'a');
    const b = candidate(fake, 'b');
    a.elector.start();
    b.elector.start();
    await eventually(() => a.record.started + b.record.started === 1);
    await sleep(100);
    assert.equal(a.record.started + b.record.started, 1, 'still exactly one leader after several retry periods');
    const leader = a.record.started ? 'a' : 'b';
    assert.equal(a.elector.isLeader(), leader === 'a');
    assert.equal(b.elector.isLeader(), leader === 'b');
    assert.deepEqual(a.record.leaders, [leader]);
    assert.deepEqual(b.record.leaders, [leader]);
    const l = await lease(fake);
    assert.equal(l.spec?.holderIdentity, leader);
    assert.equal(l.spec?.leaseDurationSeconds, 1, '300 ms rounds up to whole seconds');
    await Promise.all([a.elector.stop(), b.elector.stop()]);
  });

  test('the leader renews the lease every retry period', async () => {
    const fake = new FakeClient();
    const a = candidate(fake, 'a');
    a.elector.start();
    await eventually(() => a.record.started === 1);
    const first = (await lease(fake)).spec?.renewTime;
    await sleep(60);
    const later = await lease(fake);
    assert.ok(Date.parse(later.spec?.renewTime ?? '') > Date.parse(first ?? ''), 'renewTime advanced');
    assert.equal(later.spec?.leaseTransitions, 0);
    await a.elector.stop();
  });

  test('a leader that stops releases the lease and the other takes over at once', async () => {
    const fake = new FakeClient();
    const a = candidate(fake, 'a');
    a.elector.start();
    await eventually(() => a.record.started === 1);
    const b = candidate(fake, 'b');
    b.elector.start();
    await sleep(50);
    assert.equal(b.record.started, 0);
    await a.elector.stop();
    assert.equal(a.record.stopped, 1);
    assert.equal(a.record.signal?.aborted, true);
    await eventually(() => b.record.started === 1, 300);
    const l = await lease(fake);
    assert.equal(l.spec?.holderIdentity, 'b');
    assert.equal(l.spec?.leaseTransitions, 1);
    await b.elector.stop();
    assert.equal((await lease(fake)).spec?.holderIdentity, undefined, 'released on stop');
  });

  test('the lease is released only once what onStoppedLeading returned has finished', async () => {
    const fake = new FakeClient();
    let finish: () => void = () => undefined;
    const holderWhenStopping: (string | undefined)[] = [];
    const a = candidate(fake, 'a', {
      onStoppedLeading: async () => {
        holderWhenStopping.push((await lease(fake)).spec?.holderIdentity);
        await new Promise<void>((r) => (finish = r));
      },
    });
    a.elector.start();
    await eventually(() => a.elector.isLeader());
    let stopped = false;
    const stopping = a.elector.stop().then(() => (stopped = true));
    await eventually(() => holderWhenStopping.length === 1);
    assert.equal(holderWhenStopping[0], 'a', 'still held while the controllers stop');
    assert.equal(stopped, false);
    assert.equal((await lease(fake)).spec?.holderIdentity, 'a');
    finish();
    await stopping;
    assert.equal((await lease(fake)).spec?.holderIdentity, undefined, 'released after they stopped');
  });

  test('a partitioned leader steps down after the renew deadline; the other takes over once the lease expires', async () => {
    const fake = new FakeClient();
    let offset = 0;
    const now = (): number => Date.now() + offset;
    let partitioned = false;
    const a = candidate(
      partitionable(fake, () => partitioned),
      'a',
      { now },
    );
    const b = candidate(fake, 'b', { now });
    a.elector.start();
    await eventually(() => a.record.started === 1);
    b.elector.start();
    await sleep(60);
    assert.equal(b.record.started, 0, 'b waits while a renews');

    partitioned = true;
    await eventually(() => a.record.stopped === 1, 1000);
    assert.equal(a.record.signal?.aborted, true);
    assert.equal(a.elector.isLeader(), false);
    assert.equal(b.record.started, 0, 'the lease (1 s) has not expired yet');

    offset = 2000; // time passes beyond renewTime + leaseDurationSeconds
    await eventually(() => b.record.started === 1, 500);
    const l = await lease(fake);
    assert.equal(l.spec?.holderIdentity, 'b');
    assert.equal(l.spec?.leaseTransitions, 1);
    await Promise.all([a.elector.stop(), b.elector.stop()]);
  });

  test('a compare-and-swap conflict does not make a candidate leader', async () => {
    const fake = new FakeClient();
    const old = microTime(Date.now() - 60_000);
    fake.seed<Lease>(builtinRefs.leases, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'controllers', namespace: 'conductor-system' },
      spec: { holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: old, acquireTime: old, leaseTransitions: 3 },
    });
    // Between a's read and a's write, "other" renews its (expired-looking) lease.
    let raced = false;
    const conflicts: unknown[] = [];
    const client: Client = {
      ...fake,
      get: (async (...args: Parameters<FakeClient['get']>) => {
        const got = await fake.get(...args);
        if (!raced) {
          raced = true;
          const fresh = microTime(Date.now());
          const current = await fake.get<Lease>(builtinRefs.leases, 'controllers', 'conductor-system');
          await fake.update(builtinRefs.leases, { ...current, spec: { ...current.spec, renewTime: fresh } });
        }
        return got;
      }) as FakeClient['get'],
      update: (async (...args: Parameters<FakeClient['update']>) => {
        try {
          return await fake.update(...args);
        } catch (err) {
          conflicts.push(err);
          throw err;
        }
      }) as FakeClient['update'],
    };
    const a = candidate(client, 'a');
    a.elector.start();
    await sleep(100);
    assert.equal(conflicts.length, 1);
    assert.ok(isConflict(conflicts[0]));
    assert.equal(a.record.started, 0);
    const l = await lease(fake);
    assert.equal(l.spec?.holderIdentity, 'other');
    assert.equal(l.spec?.leaseTransitions, 3);
    assert.deepEqual(a.record.leaders, ['other']);
    await a.elector.stop();
    assert.equal((await lease(fake)).spec?.holderIdentity, 'other', 'stop does not release a lease held by another');
  });

  test('stop leaves no timers behind', async () => {
    const baseline = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const fake = new FakeClient();
    const a = candidate(fake, 'a');
    const b = candidate(fake, 'b');
    a.elector.start();
    b.elector.start();
    await eventually(() => a.record.started + b.record.started === 1);
    await Promise.all([a.elector.stop(), b.elector.stop()]);
    assert.equal(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length, baseline);
  });

  const invalid: Array<{ reason: string; options: Partial<LeaderElectionOptions>; error: RegExp }> = [
    {
      reason: 'renew deadline not below the lease duration',
      options: { leaseDurationMs: 100, renewDeadlineMs: 100 },
      error: /leaseDurationMs \(100\) must be greater than renewDeadlineMs/,
    },
    {
      reason: 'retry period not below the renew deadline',
      options: { renewDeadlineMs: 100, retryPeriodMs: 100 },
      error: /renewDeadlineMs \(100\) must be greater than retryPeriodMs/,
    },
    { reason: 'an empty identity', options: { identity: '' }, error: /non-empty identity/ },
  ];
  for (const c of invalid) {
    test(`rejects ${c.reason}`, () => {
      assert.throws(() => candidate(new FakeClient(), 'x', c.options), c.error);
    });
  }
});

describe('leaseIsFree', () => {
  const now = Date.parse('2025-01-01T00:00:30Z');
  const cases: Array<{ reason: string; spec: Lease['spec']; want: boolean }> = [
    { reason: 'no spec', spec: undefined, want: true },
    { reason: 'no holder', spec: { renewTime: microTime(now) }, want: true },
    { reason: 'renewed within its duration', spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2025-01-01T00:00:20.000000Z' }, want: false },
    {
      reason: 'renewed longer ago than its duration',
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2025-01-01T00:00:10.000000Z' },
      want: true,
    },
    {
      reason: 'exactly at the boundary is still held',
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2025-01-01T00:00:15.000000Z' },
      want: false,
    },
    { reason: 'no renewTime', spec: { holderIdentity: 'a', leaseDurationSeconds: 15 }, want: true },
    { reason: 'no duration uses the fallback (10 s)', spec: { holderIdentity: 'a', renewTime: '2025-01-01T00:00:25.000000Z' }, want: false },
  ];
  for (const c of cases) test(c.reason, () => assert.equal(leaseIsFree(c.spec, now, 10_000), c.want));

  test('microTime has microsecond precision', () => {
    assert.equal(microTime(Date.parse('2025-01-01T00:00:00.123Z')), '2025-01-01T00:00:00.123000Z');
  });
});
