/**
 * Prometheus metrics at /metrics (issue 15 item 1): a real server, a small workload with the
 * real kubectl (creates, gets, a watch, a claim bound on the memory provider), then a scrape
 * with the admin kubeconfig (`kubectl get --raw /metrics`) holding the expected series with
 * plausible counts; RBAC on the URL (a developer gets 403 until bound to
 * conductor:metrics-reader); and /readyz and /livez with `?verbose` and per check.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { cliPath, kubectl, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { find, parseExposition, sum, type Exposition } from '../support/prometheus.js';

const run = promisify(execFile);
const SYS = 'conductor-system';
const CONFIGMAPS = 5;

describe('metrics at /metrics', () => {
  let server: ServerProcess;
  let dev: { kubeconfig: string };
  const scrape = async (who: { kubeconfig: string } = server): Promise<Exposition> => parseExposition(await kubectlOk(who, ['get', '--raw', '/metrics']));

  before(async () => {
    server = await startServer();
    await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/postgresqlinstances.storage.conductor.io', '--timeout=30s']);
    const out = join(server.dataDir, 'dev.kubeconfig');
    await run(process.execPath, [cliPath, 'user', 'add', 'dev', '--data-dir', server.dataDir, '--out', out]);
    dev = { kubeconfig: out };
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('a workload is counted: requests by verb, resource and code, a watch, store commits, a claim Bound and Ready, provider calls', async () => {
    await kubectlOk(server, ['create', 'namespace', 'metrics']);
    // A watch over HTTP, open while the configmaps are made: it gets their ADDED events.
    const watch = spawn('kubectl', ['get', 'configmaps', '-n', 'metrics', '--watch', '-o', 'name'], {
      env: { ...process.env, KUBECONFIG: server.kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let watched = '';
    watch.stdout.on('data', (d: Buffer) => (watched += d.toString()));
    try {
      await eventually(
        async () => sum(await scrape(), 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps' }) >= 1,
        'the watch to be open',
      );
      for (let i = 0; i < CONFIGMAPS; i++) await kubectlOk(server, ['create', 'configmap', `c${i}`, '-n', 'metrics', `--from-literal=k=${i}`]);
      await kubectlOk(server, ['get', 'configmap', 'c0', '-n', 'metrics']);
      await kubectlOk(server, ['get', 'configmap', 'missing', '-n', 'metrics', '--ignore-not-found']);
      await eventually(() => (watched.match(/configmap\/c\d/g) ?? []).length >= CONFIGMAPS && watched, 'the watch to see every configmap', 30_000);

      const m = await scrape();
      assert.equal(m.types.get('apiserver_request_total'), 'counter');
      assert.equal(m.types.get('apiserver_request_duration_seconds'), 'histogram');
      const created = sum(m, 'apiserver_request_total', { verb: 'POST', resource: 'configmaps', code: '201' });
      assert.ok(created >= CONFIGMAPS, `configmaps created: ${created}`);
      assert.ok(sum(m, 'apiserver_request_total', { verb: 'GET', resource: 'configmaps', scope: 'resource', code: '200' }) >= 1, 'a get counted 200');
      assert.ok(sum(m, 'apiserver_request_total', { verb: 'GET', resource: 'configmaps', code: '404' }) >= 1, 'a get of a missing configmap counted 404');
      assert.ok(sum(m, 'apiserver_request_total', { verb: 'WATCH', resource: 'configmaps', code: '200' }) >= 1, 'the watch counted');
      const latency = find(m, 'apiserver_request_duration_seconds_count', { verb: 'POST', resource: 'configmaps' });
      assert.ok(sum(m, 'apiserver_request_duration_seconds_count', { verb: 'POST', resource: 'configmaps' }) >= CONFIGMAPS, JSON.stringify(latency));
      const inf = sum(m, 'apiserver_request_duration_seconds_bucket', { verb: 'POST', resource: 'configmaps', le: '+Inf' });
      assert.equal(inf, sum(m, 'apiserver_request_duration_seconds_count', { verb: 'POST', resource: 'configmaps' }), 'the +Inf bucket holds every request');
      // The scrape itself is in flight while it is answered.
      assert.ok(sum(m, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }) >= 1);
      assert.equal(sum(m, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps' }), 1);
      assert.ok(sum(m, 'apiserver_watch_events_total', { kind: 'ConfigMap' }) >= CONFIGMAPS, 'the watch events sent');
      // The store: commits durable, their batch sizes, the WAL, objects per resource.
      assert.ok(sum(m, 'conductor_store_commit_duration_seconds_count') >= CONFIGMAPS);
      assert.ok(sum(m, 'conductor_store_commit_batch_size_sum') >= sum(m, 'conductor_store_commit_batch_size_count'), 'at least one write per commit');
      assert.ok(sum(m, 'conductor_store_wal_bytes') > 0, 'the WAL has a size');
      // Counted at scrape time and reused for 10 s: the count follows within that.
      assert.ok(find(m, 'apiserver_storage_objects', { resource: 'configmaps' }).length === 1);
      await eventually(
        async () => sum(await scrape(), 'apiserver_storage_objects', { resource: 'configmaps' }) >= CONFIGMAPS,
        'the configmaps counted in apiserver_storage_objects',
        30_000,
        500,
      );
      assert.ok(sum(m, 'apiserver_storage_objects', { resource: 'customresourcedefinitions.apiextensions.k8s.io' }) >= 1);
      // The process.
      assert.ok(sum(m, 'process_resident_memory_bytes') > 0);
    } finally {
      watch.kill();
    }
    // Once its client went, the watch is no longer open.
    await eventually(
      async () => sum(await scrape(), 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'configmaps' }) === 0,
      'the watch to be closed',
    );
  });

  test('a claim on the memory provider: scheduled, counted Bound and Ready, its provider calls and the controllers’ queues', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: memory, namespace: ${SYS}, annotations: {conductor.io/is-default-class: "true"}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
`,
    });
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders, namespace: metrics}
spec: {}
`,
    });
    await kubectlOk(server, ['wait', '--for=condition=Ready', 'postgresqlinstances.storage.conductor.io/orders', '-n', 'metrics', '--timeout=60s']);
    const m = await eventually(async () => {
      const e = await scrape();
      return sum(e, 'conductor_claim_time_to_ready_seconds_count', { kind: 'PostgreSQLInstance' }) >= 1 ? e : undefined;
    }, 'the claim counted Ready');
    assert.equal(sum(m, 'conductor_claims', { kind: 'PostgreSQLInstance', phase: 'Bound' }), 1, 'the claim counted as Bound');
    assert.equal(sum(m, 'conductor_claim_time_to_bound_seconds_count', { kind: 'PostgreSQLInstance' }), 1);
    assert.ok(sum(m, 'conductor_scheduler_decisions_total', { result: 'class' }) >= 1, 'the decision to provision from the class');
    assert.ok(sum(m, 'conductor_scheduler_decision_duration_seconds_count', { result: 'class' }) >= 1);
    assert.ok(
      sum(m, 'conductor_provider_calls_total', { provider: 'memory', kind: 'MemoryDatabase', operation: 'create', result: 'success' }) >= 1,
      'the create',
    );
    assert.ok(sum(m, 'conductor_provider_calls_total', { provider: 'memory', kind: 'MemoryDatabase', operation: 'observe' }) >= 1, 'an observe');
    // The claim controller's queue and reconciles, by controller-runtime's names.
    assert.ok(sum(m, 'workqueue_adds_total', { name: 'claims' }) >= 1);
    assert.equal(find(m, 'workqueue_depth', { name: 'claims' }).length, 1);
    assert.ok(sum(m, 'controller_runtime_reconcile_total', { controller: 'claims', result: 'success' }) >= 1);
    assert.ok(sum(m, 'controller_runtime_reconcile_time_seconds_count', { controller: 'claims' }) >= 1);
    assert.ok(find(m, 'controller_runtime_reconcile_errors_total', { controller: 'claims' }).length === 1);
    assert.ok(sum(m, 'workqueue_adds_total', { name: 'managed-memorydatabases.database.memory.conductor.io' }) >= 1);
  });

  test('RBAC: a developer without the role gets 403; bound to conductor:metrics-reader, 200; no credentials, 401', async () => {
    const denied = await kubectl(dev, ['get', '--raw', '/metrics']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Forbidden|forbidden/);
    assert.match(denied.stderr, /\/metrics/);
    await kubectlOk(server, ['create', 'clusterrolebinding', 'dev-metrics', '--clusterrole=conductor:metrics-reader', '--user=dev']);
    const m = await eventually(
      async () => {
        const r = await kubectl(dev, ['get', '--raw', '/metrics']);
        return r.code === 0 ? parseExposition(r.stdout) : undefined;
      },
      'the developer to read /metrics once bound',
      30_000,
    );
    assert.ok(find(m, 'apiserver_request_total').length > 0);
    // The role grants /metrics only.
    const other = await kubectl(dev, ['get', 'configmaps', '-n', 'metrics']);
    assert.notEqual(other.code, 0);
    // Without credentials: 401, as kube answers.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsGet(`${server.url}/metrics`, { rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    assert.equal(status, 401);
  });

  test('/readyz and /livez: short answers, ?verbose lists each check as kube does, /readyz/<check> answers one', async () => {
    assert.equal(await kubectlOk(server, ['get', '--raw', '/readyz']), 'ok');
    assert.equal(await kubectlOk(server, ['get', '--raw', '/livez']), 'ok');
    const ready = await kubectlOk(server, ['get', '--raw', '/readyz?verbose']);
    assert.match(ready, /^\[\+\]ping ok\n\[\+\]started ok\nreadyz check passed\n$/);
    assert.equal(await kubectlOk(server, ['get', '--raw', '/livez?verbose']), '[+]ping ok\nlivez check passed\n');
    assert.equal(await kubectlOk(server, ['get', '--raw', '/readyz/started']), 'ok');
    assert.equal(await kubectlOk(server, ['get', '--raw', '/readyz?verbose&exclude=started']), '[+]ping ok\n[+]started excluded: ok\nreadyz check passed\n');
    const unknown = await kubectl(server, ['get', '--raw', '/readyz/no-such-check']);
    assert.notEqual(unknown.code, 0);
  });
});
