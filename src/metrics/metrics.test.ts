import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsRegistry } from './registry.js';
import { ApiServerMetrics } from './apiserver.js';
import { ClaimSeries, ProviderCallSeries, WorkQueueSeries } from './controllers.js';

/** The sample lines of `text` (no comments), for exact comparisons. */
function samples(text: string, prefix: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(prefix));
}

describe('metric families', () => {
  test('a counter keeps one child per label set; the same values give the same child', async () => {
    const r = new MetricsRegistry({ processMetrics: false });
    const c = r.counter('things_total', 'Things.', ['kind', 'result']);
    const a = c.child('Foo', 'ok');
    assert.equal(c.child('Foo', 'ok'), a);
    a.inc();
    a.inc(2);
    c.child('Bar', 'error').inc();
    const text = await r.text();
    assert.match(text, /^# HELP things_total Things\.$/m);
    assert.match(text, /^# TYPE things_total counter$/m);
    assert.deepEqual(samples(text, 'things_total'), ['things_total{kind="Foo",result="ok"} 3', 'things_total{kind="Bar",result="error"} 1']);
  });

  test('a child asked with the wrong number of label values is refused, naming the labels', () => {
    const r = new MetricsRegistry({ processMetrics: false });
    const c = r.counter('x_total', 'X.', ['a', 'b']);
    assert.throws(() => c.child('only-one'), /want 2 values \(a, b\), got 1/);
  });

  test('a histogram renders cumulative buckets, +Inf, sum and count; a value on a bound falls in that bucket', async () => {
    const r = new MetricsRegistry({ processMetrics: false });
    const h = r.histogram('wait_seconds', 'Waits.', ['op'], [0.1, 1, 10]);
    const child = h.child('get');
    for (const v of [0.05, 0.1, 0.5, 5, 50]) child.observe(v);
    const text = await r.text();
    assert.match(text, /^# TYPE wait_seconds histogram$/m);
    assert.deepEqual(samples(text, 'wait_seconds'), [
      'wait_seconds_bucket{op="get",le="0.1"} 2',
      'wait_seconds_bucket{op="get",le="1"} 3',
      'wait_seconds_bucket{op="get",le="10"} 4',
      'wait_seconds_bucket{op="get",le="+Inf"} 5',
      'wait_seconds_sum{op="get"} 55.65',
      'wait_seconds_count{op="get"} 5',
    ]);
  });

  test('buckets must increase', () => {
    const r = new MetricsRegistry({ processMetrics: false });
    assert.throws(() => r.histogram('bad_seconds', 'Bad.', [], [1, 1]), /buckets must increase/);
  });

  test('label values are escaped; a collected gauge is computed at each scrape', async () => {
    const r = new MetricsRegistry({ processMetrics: false });
    let n = 1;
    r.collected('files', 'Files.', () => [{ labels: { path: 'a"b\\c\nd' }, value: n++ }]);
    assert.deepEqual(samples(await r.text(), 'files'), ['files{path="a\\"b\\\\c\\nd"} 1']);
    assert.deepEqual(samples(await r.text(), 'files'), ['files{path="a\\"b\\\\c\\nd"} 2']);
  });

  test('two registries in one process keep their series apart, each with the process metrics', async () => {
    const one = new MetricsRegistry();
    const two = new MetricsRegistry();
    one.counter('requests_total', 'Requests.').child().inc();
    two.counter('requests_total', 'Requests.');
    assert.deepEqual(samples(await one.text(), 'requests_total'), ['requests_total 1']);
    assert.deepEqual(samples(await two.text(), 'requests_total'), []);
    assert.match(await two.text(), /^process_cpu_user_seconds_total /m);
    assert.equal(one.contentType, 'text/plain; version=0.0.4; charset=utf-8');
  });

  test('a name registered twice in one registry is refused', () => {
    const r = new MetricsRegistry({ processMetrics: false });
    r.counter('dup_total', 'Dup.');
    assert.throws(() => r.counter('dup_total', 'Dup.'), /already been registered/);
  });
});

describe('ApiServerMetrics', () => {
  const configmaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' };

  test('a request series is made once per (type, verb, subresource, scope) and counts codes and latency; watches have no latency', async () => {
    const r = new MetricsRegistry({ processMetrics: false });
    const m = new ApiServerMetrics(r);
    const create = m.series(configmaps, 'POST', '', 'namespace');
    assert.equal(m.series(configmaps, 'POST', '', 'namespace'), create);
    assert.notEqual(m.series(configmaps, 'POST', '', 'cluster'), create);
    create.done(201, 0.01);
    create.done(201, 0.02);
    create.done(409, 0.001);
    m.series(configmaps, 'WATCH', '', 'namespace').done(200, 30);
    m.series(configmaps, 'PUT', 'status', 'resource').done(200, 0.003);
    m.nonResource('GET').done(200, 0.001);
    m.nonResource('BREW').done(0, 0.001);
    const text = await r.text();
    const base = 'group="",version="v1",resource="configmaps"';
    assert.deepEqual(samples(text, 'apiserver_request_total'), [
      `apiserver_request_total{verb="POST",${base},subresource="",scope="namespace",component="apiserver",code="201"} 2`,
      `apiserver_request_total{verb="POST",${base},subresource="",scope="namespace",component="apiserver",code="409"} 1`,
      `apiserver_request_total{verb="WATCH",${base},subresource="",scope="namespace",component="apiserver",code="200"} 1`,
      `apiserver_request_total{verb="PUT",${base},subresource="status",scope="resource",component="apiserver",code="200"} 1`,
      `apiserver_request_total{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="200"} 1`,
      `apiserver_request_total{verb="other",group="",version="",resource="",subresource="",scope="",component="apiserver",code="0"} 1`,
    ]);
    assert.ok(
      samples(text, 'apiserver_request_duration_seconds_count').includes(
        `apiserver_request_duration_seconds_count{verb="POST",${base},subresource="",scope="namespace",component="apiserver"} 3`,
      ),
    );
    assert.ok(!text.includes('apiserver_request_duration_seconds_count{verb="WATCH"'), 'no latency for watches');
  });

  test('in-flight requests, watches open and events sent, store commits', async () => {
    const r = new MetricsRegistry({ processMetrics: false });
    const m = new ApiServerMetrics(r);
    m.readOnly.value++;
    m.mutating.value += 2;
    m.mutating.value--;
    const w = m.watches(configmaps);
    assert.equal(m.watches(configmaps), w);
    w.open.value++;
    w.events.value += 7;
    m.storeObserver.committed(3, 0.002);
    m.storeObserver.committed(1, 0.004);
    m.storeGauges({ walBytes: () => 4096, watchers: () => 5, objectCounts: () => Promise.resolve([{ labels: { resource: 'configmaps' }, value: 12 }]) });
    const text = await r.text();
    assert.deepEqual(samples(text, 'apiserver_current_inflight_requests'), [
      'apiserver_current_inflight_requests{request_kind="readOnly"} 1',
      'apiserver_current_inflight_requests{request_kind="mutating"} 1',
    ]);
    assert.deepEqual(samples(text, 'apiserver_longrunning_requests'), [
      'apiserver_longrunning_requests{verb="WATCH",group="",version="v1",resource="configmaps",scope="",component="apiserver"} 1',
    ]);
    assert.deepEqual(samples(text, 'apiserver_watch_events_total'), ['apiserver_watch_events_total{group="",version="v1",kind="ConfigMap"} 7']);
    assert.ok(samples(text, 'conductor_store_commit_batch_size_sum').includes('conductor_store_commit_batch_size_sum 4'));
    assert.ok(samples(text, 'conductor_store_commit_duration_seconds_count').includes('conductor_store_commit_duration_seconds_count 2'));
    assert.deepEqual(samples(text, 'conductor_store_wal_bytes'), ['conductor_store_wal_bytes 4096']);
    assert.deepEqual(samples(text, 'conductor_store_watchers'), ['conductor_store_watchers 5']);
    assert.deepEqual(samples(text, 'apiserver_storage_objects'), ['apiserver_storage_objects{resource="configmaps"} 12']);
  });
});

describe('controller series', () => {
  test('work queues: adds, retries, reconciles by result with their time and errors, depth summed per name while open', async () => {
    const r = new MetricsRegistry({ processMetrics: false });
    const queues = new WorkQueueSeries(r);
    const a = queues.forQueue('claims', () => 3);
    const b = queues.forQueue('claims', () => 2);
    a.added();
    a.added();
    b.retried();
    a.reconciled('success', 0.01);
    a.reconciled('error', 0.02);
    a.reconciled('requeue_after', 0.03);
    let text = await r.text();
    assert.deepEqual(samples(text, 'workqueue_depth'), ['workqueue_depth{name="claims"} 5']);
    assert.deepEqual(samples(text, 'workqueue_adds_total'), ['workqueue_adds_total{name="claims"} 2']);
    assert.deepEqual(samples(text, 'workqueue_retries_total'), ['workqueue_retries_total{name="claims"} 1']);
    assert.deepEqual(samples(text, 'controller_runtime_reconcile_total'), [
      'controller_runtime_reconcile_total{controller="claims",result="success"} 1',
      'controller_runtime_reconcile_total{controller="claims",result="error"} 1',
      'controller_runtime_reconcile_total{controller="claims",result="requeue"} 0',
      'controller_runtime_reconcile_total{controller="claims",result="requeue_after"} 1',
    ]);
    assert.deepEqual(samples(text, 'controller_runtime_reconcile_errors_total'), ['controller_runtime_reconcile_errors_total{controller="claims"} 1']);
    assert.ok(
      samples(text, 'controller_runtime_reconcile_time_seconds_count').includes('controller_runtime_reconcile_time_seconds_count{controller="claims"} 3'),
    );
    b.closed();
    text = await r.text();
    assert.deepEqual(samples(text, 'workqueue_depth'), ['workqueue_depth{name="claims"} 3']);
  });

  test('claims: decisions by result, time to Bound and Ready by kind, phases from every source at scrape time', async () => {
    const r = new MetricsRegistry({ processMetrics: false });
    const claims = new ClaimSeries(r);
    claims.decided('class', 0.001);
    claims.decided('unschedulable', 0.002);
    claims.decided('class', 0.001);
    claims.bound('PostgreSQLInstance', 1.5);
    claims.ready('PostgreSQLInstance', 2.5);
    const phases = [{ kind: 'Bucket', phase: 'Bound', count: 2 }];
    const remove = claims.claimPhases(() => phases);
    claims.claimPhases(() => [{ kind: 'Bucket', phase: 'Bound', count: 1 }]);
    let text = await r.text();
    assert.deepEqual(samples(text, 'conductor_scheduler_decisions_total'), [
      'conductor_scheduler_decisions_total{result="class"} 2',
      'conductor_scheduler_decisions_total{result="unschedulable"} 1',
    ]);
    assert.ok(
      samples(text, 'conductor_claim_time_to_bound_seconds_count').includes('conductor_claim_time_to_bound_seconds_count{kind="PostgreSQLInstance"} 1'),
    );
    assert.ok(samples(text, 'conductor_claim_time_to_ready_seconds_sum').includes('conductor_claim_time_to_ready_seconds_sum{kind="PostgreSQLInstance"} 2.5'));
    assert.deepEqual(samples(text, 'conductor_claims'), ['conductor_claims{kind="Bucket",phase="Bound"} 3']);
    remove();
    text = await r.text();
    assert.deepEqual(samples(text, 'conductor_claims'), ['conductor_claims{kind="Bucket",phase="Bound"} 1']);
  });

  test('provider calls by provider, kind, operation and result', async () => {
    const r = new MetricsRegistry({ processMetrics: false });
    const calls = new ProviderCallSeries(r);
    calls.called('memory', 'MemoryDatabase', 'create', 'success', 0.001);
    calls.called('memory', 'MemoryDatabase', 'create', 'timeout', 300);
    const text = await r.text();
    assert.deepEqual(samples(text, 'conductor_provider_calls_total'), [
      'conductor_provider_calls_total{provider="memory",kind="MemoryDatabase",operation="create",result="success"} 1',
      'conductor_provider_calls_total{provider="memory",kind="MemoryDatabase",operation="create",result="timeout"} 1',
    ]);
    assert.ok(
      samples(text, 'conductor_provider_call_duration_seconds_count').includes(
        'conductor_provider_call_duration_seconds_count{provider="memory",kind="MemoryDatabase",operation="create"} 2',
      ),
    );
  });
});
