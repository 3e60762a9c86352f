/**
 * `/metrics` of `conductor controllers` (issue 15 item 1): the controllers-only process, run
 * against a Conductor server whose own controllers are off, serves the controllers' series on
 * its health listener. Two claims bound through it are counted: work queues and reconciles,
 * scheduling decisions, claims by kind and phase, time to Bound and Ready, provider calls.
 * The API server's series are not there (they are the server's own /metrics).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { find, parseExposition, sum, type Exposition } from '../support/prometheus.js';
import { cliPath, kubectlOk, removeDir, startServer, tempDir, type ServerProcess } from '../support/server.js';

const SYS = 'conductor-system';
const KIND = 'PostgreSQLInstance';

describe('conductor controllers serves the controllers’ metrics at /metrics', () => {
  let server: ServerProcess;
  let controllers: ChildProcess;
  let health = '';
  let output = '';
  const dir = tempDir('conductor-controllers-metrics-');

  const scrape = async (): Promise<Exposition> => {
    const res = await fetch(`${health}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return parseExposition(await res.text());
  };
  const claim = (name: string) => `apiVersion: storage.conductor.io/v1alpha1
kind: ${KIND}
metadata: {name: ${name}, namespace: apps}
spec: {}
`;

  before(async () => {
    server = await startServer({ env: { CONDUCTOR_CONTROLLERS: 'false' } });
    controllers = spawn(
      process.execPath,
      [cliPath, 'controllers', '--kubeconfig', server.kubeconfig, '--data-dir', join(dir, 'data'), '--health-port', '0', '--no-leader-elect'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    controllers.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    controllers.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    health = await eventually(
      () => /conductor controllers ready \(identity \S+; health on (\S+)\)/.exec(output)?.[1],
      `conductor controllers ready (output: ${output})`,
      60_000,
    );
  });

  after(async () => {
    controllers?.kill('SIGKILL');
    await server?.kill();
    if (server) removeDir(server.dataDir);
    removeDir(dir);
  });

  test('before any claim: the families are there, the process metrics too, and no API-server series', async () => {
    const m = await scrape();
    assert.equal(m.types.get('workqueue_adds_total'), 'counter');
    assert.equal(m.types.get('controller_runtime_reconcile_time_seconds'), 'histogram');
    assert.equal(m.types.get('conductor_scheduler_decisions_total'), 'counter');
    assert.equal(m.types.get('conductor_provider_calls_total'), 'counter');
    assert.ok(sum(m, 'process_resident_memory_bytes') > 0, 'process metrics');
    assert.equal(m.types.get('apiserver_request_total'), undefined, 'the API server’s series belong to the server’s /metrics');
    assert.equal(sum(m, 'conductor_claims', { kind: KIND }), 0, 'no claim yet');
    // The health endpoints are unchanged beside it.
    assert.equal((await fetch(`${health}/healthz`)).status, 200);
    assert.equal((await fetch(`${health}/metrics`, { method: 'POST' })).status, 405);
  });

  test('two claims bound by the controllers process are counted there', async () => {
    await kubectlOk(server, ['create', 'namespace', 'apps']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: memory, namespace: ${SYS}, annotations: {conductor.io/is-default-class: "true"}}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
rebindPolicy: Delete
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
`,
    });
    await kubectlOk(server, ['apply', '-f', '-'], { input: claim('first') + '---\n' + claim('second') });
    for (const name of ['first', 'second'])
      await kubectlOk(server, ['wait', '--for=condition=Ready', `postgresqlinstances.storage.conductor.io/${name}`, '-n', 'apps', '--timeout=60s']);

    const m = await eventually(async () => {
      const e = await scrape();
      return sum(e, 'conductor_claim_time_to_ready_seconds_count', { kind: KIND }) >= 2 ? e : undefined;
    }, 'both claims counted Ready');
    assert.equal(sum(m, 'conductor_claims', { kind: KIND, phase: 'Bound' }), 2, 'claims by kind and phase');
    assert.equal(sum(m, 'conductor_claim_time_to_bound_seconds_count', { kind: KIND }), 2, 'time to Bound, once per claim');
    assert.equal(sum(m, 'conductor_claim_time_to_ready_seconds_count', { kind: KIND }), 2, 'time to Ready, once per claim');
    assert.ok(sum(m, 'conductor_scheduler_decisions_total', { result: 'class' }) >= 2, 'a decision to provision from the class, per claim');
    assert.ok(sum(m, 'conductor_scheduler_decision_duration_seconds_count', { result: 'class' }) >= 2);
    assert.equal(
      sum(m, 'conductor_provider_calls_total', { provider: 'memory', kind: 'MemoryDatabase', operation: 'create', result: 'success' }),
      2,
      'one create per claim',
    );
    assert.ok(sum(m, 'conductor_provider_calls_total', { provider: 'memory', kind: 'MemoryDatabase', operation: 'observe' }) >= 2, 'observes');
    // The work queues and reconciles, by controller-runtime's names.
    assert.ok(sum(m, 'workqueue_adds_total', { name: 'claims' }) >= 2);
    assert.equal(find(m, 'workqueue_depth', { name: 'claims' }).length, 1, 'the claim queue’s depth is reported');
    assert.ok(find(m, 'workqueue_retries_total', { name: 'claims' }).length === 1);
    assert.ok(sum(m, 'controller_runtime_reconcile_total', { controller: 'claims', result: 'success' }) >= 2);
    assert.ok(sum(m, 'controller_runtime_reconcile_time_seconds_count', { controller: 'claims' }) >= 2);
    assert.equal(find(m, 'controller_runtime_reconcile_errors_total', { controller: 'claims' }).length, 1);
    assert.ok(sum(m, 'workqueue_adds_total', { name: 'managed-memorydatabases.database.memory.conductor.io' }) >= 2);
  });
});
