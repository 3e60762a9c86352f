/**
 * The official Kubernetes Python client (Debian's python3-kubernetes) against a real Conductor
 * server: typed list/create/replace/patch (json, merge, strategic)/delete, watch from a
 * resourceVersion, the 410 Expired → re-list → watch recovery, and the dynamic client on a
 * CRD (discovery, CRUD, merge patch, server-side apply with a conflict). The client runs as
 * test/clients/python/conductor_client_check.py, one step per call, printing JSON lines.
 * Without a python3 that can import `kubernetes` the tests are reported as skipped, naming
 * what to install.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { repoRoot, serverForSuite } from '../support/server.js';

const SCRIPT = join(repoRoot, 'test', 'clients', 'python', 'conductor_client_check.py');
const GROUP = 'py.example.io';
const NS = 'py';

/** The first python3 that imports the Kubernetes client: $CONDUCTOR_PYTHON, Debian's, then PATH's. */
function findPython(): string | undefined {
  const candidates = [process.env.CONDUCTOR_PYTHON, '/usr/bin/python3', 'python3'].filter((c): c is string => !!c);
  return candidates.find((c) => spawnSync(c, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0);
}

interface StepRun {
  /** The JSON documents the step printed, in order. */
  docs: any[];
  stderr: string;
}

/**
 * runStep runs one step of the Python script; `onDoc` hears each JSON line as it is printed
 * (a test acts on the server while the step runs). Fails with the step's output on a non-zero exit.
 */
function runStep(python: string, kubeconfig: string, args: string[], onDoc?: (doc: any) => void, timeoutMs = 90_000): Promise<StepRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [SCRIPT, kubeconfig, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    const docs: any[] = [];
    let pending = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      pending += d.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (!line) continue;
        const doc = JSON.parse(line);
        docs.push(doc);
        onDoc?.(doc);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`python step ${args.join(' ')} timed out; printed ${JSON.stringify(docs)}; stderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`python step ${args.join(' ')} exited ${code}; printed ${JSON.stringify(docs)}; stderr:\n${stderr}`));
      else resolve({ docs, stderr });
    });
  });
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 }, color: { type: 'string' } } } },
          },
        },
      },
    ],
  },
};

const python = findPython();

describe('the official Python client (python3-kubernetes)', { concurrency: 1 }, () => {
  if (!python) {
    test('python3-kubernetes', (t) =>
      t.skip('no python3 can import kubernetes: install Debian python3-kubernetes (apt-get install python3-kubernetes), or set CONDUCTOR_PYTHON'));
    return;
  }
  // A short history, so a test can make a resourceVersion expire (410) without waiting.
  const s = serverForSuite({
    env: { CONDUCTOR_HISTORY_MIN_REVISIONS: '20', CONDUCTOR_HISTORY_MIN_AGE_MS: '0', CONDUCTOR_COMPACTION_INTERVAL_MS: '200' },
  });
  const step = (args: string[], onDoc?: (doc: any) => void) => runStep(python, s.server.kubeconfig, args, onDoc);
  const cms = `/api/v1/namespaces/${NS}/configmaps`;

  test('the client is the Debian package', async () => {
    const { docs } = await step(['version']);
    assert.match(docs[0].version, /^\d+\.\d+\.\d+/);
  });

  test('typed client: list, create, list with a selector and a limit, 409 on a stale replace, json/merge/strategic patch, delete', async () => {
    const { docs } = await step(['typed', NS]);
    const r = docs[0];
    assert.equal(r.namespaceListed, true);
    assert.equal(r.resourceVersionType, 'str', 'resourceVersion is an opaque string');
    assert.deepEqual(r.selected, ['settings']);
    assert.equal(r.pageItems, 1);
    assert.equal(r.pageContinue, true, 'a limited list carries a continue token');
    assert.equal(r.conflict.status, 409);
    assert.equal(r.conflict.reason, 'Conflict');
    assert.equal(
      r.conflict.message,
      'Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again',
    );
    assert.deepEqual(r.afterPatches, { shape: 'round', size: 'L' }, 'json patch added shape; merge patch removed color and added size');
    assert.deepEqual([...r.strategicSecrets].sort(), ['a', 'b'], 'strategic merge patch merges ServiceAccount.secrets by name');
    assert.deepEqual(r.mergeSecrets, ['c'], 'merge patch replaces the list');
    assert.equal(r.readAfterDelete, 404);
  });

  test('watch from a resourceVersion replays what happened after it', async () => {
    const first = (await s.api.request('POST', cms, { metadata: { name: 'a' }, data: { v: '1' } })).json();
    await s.api.request('PUT', `${cms}/a`, { metadata: { name: 'a' }, data: { v: '2' } });
    await s.api.request('POST', cms, { metadata: { name: 'b' } });
    const { docs } = await step(['watch-from', NS, first.metadata.resourceVersion, '2']);
    assert.deepEqual(
      docs[0].events.map(([type, name]: string[]) => [type, name]),
      [
        ['MODIFIED', 'a'],
        ['ADDED', 'b'],
      ],
    );
  });

  test('a watch from a compacted resourceVersion gets 410; the client re-lists and watches from the list', async () => {
    const old = (await s.api.request('POST', cms, { metadata: { name: 'old' } })).json().metadata.resourceVersion;
    for (let i = 0; i < 30; i++) await s.api.request('PUT', `${cms}/old`, { metadata: { name: 'old' }, data: { i: String(i) } });
    await eventually(
      async () => ((await s.api.request('GET', `${cms}?resourceVersion=${old}&resourceVersionMatch=Exact`)).status === 410 ? true : undefined),
      `the history compacted past resourceVersion ${old}`,
    );
    let created: Promise<unknown> | undefined;
    const { docs } = await step(['relist-after-expired', NS, old, 'after-relist'], (doc) => {
      // Once the client has re-listed, a new object must reach its watch from the list's resourceVersion.
      if (doc.relisted && !created) created = s.api.request('POST', cms, { metadata: { name: 'after-relist' } });
    });
    assert.ok(created, `the client never re-listed: ${JSON.stringify(docs)}`);
    assert.equal(((await created) as { status: number }).status, 201);
    assert.equal(docs[0].expired.status, 410);
    assert.match(docs[0].expired.reason, /^Expired: /);
    assert.ok(docs[0].relisted.includes('old'));
    assert.deepEqual(docs[1].events.at(-1), ['ADDED', 'after-relist']);
    assert.ok(!docs[1].events.some(([, name]: string[]) => name === 'old'), 'nothing from before the list is replayed');
  });

  test('dynamic client on a CRD: discovery, create, get, merge patch, server-side apply (409 conflict, then force), 422, list, delete', async () => {
    const r0 = await s.api.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
    assert.equal(r0.status, 201, r0.text);
    await eventually(async () => (await s.api.request('GET', `/apis/${GROUP}/v1/widgets`)).status === 200, 'the Widget kind to be served');
    const { docs } = await step(['dynamic', NS, GROUP]);
    const r = docs[0];
    assert.equal(r.namespaced, true);
    assert.equal(r.createdUid, true);
    assert.deepEqual(r.gotSpec, { size: 1, color: 'red' });
    assert.deepEqual(r.patchedSpec, { size: 3, color: 'red' });
    assert.equal(r.applyConflict.status, 409);
    assert.equal(r.applyConflict.reason, 'Conflict');
    assert.match(r.applyConflict.message, /^Apply failed with 1 conflict: conflict with "OpenAPI-Generator" using py\.example\.io\/v1: \.spec\.color$/);
    assert.deepEqual(r.applyConflict.details.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "OpenAPI-Generator" using py.example.io/v1', field: '.spec.color' },
    ]);
    assert.deepEqual(r.appliedSpec, { size: 3, color: 'blue' });
    assert.deepEqual(r.managers, ['OpenAPI-Generator', 'python-apply']);
    assert.deepEqual(r.listed, ['w1']);
    assert.deepEqual(r.invalid, { status: 422, reason: 'Invalid' });
    assert.equal((await s.api.request('GET', `/apis/${GROUP}/v1/namespaces/${NS}/widgets/w1`)).status, 404);
  });
});
