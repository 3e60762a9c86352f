/**
 * `conductor plan` against a running server with real resources: a server-side dry run of
 * each claim in the files says where it would be bound (golden output), a claim that fits
 * nowhere makes the exit code 2, an existing bound claim shows the fields that would change,
 * and nothing is written. `kubectl apply --dry-run=server` of a claim carries the same plan.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliPath, kubectlOk, removeDir, startServer, type ServerProcess } from '../support/server.js';
import { eventually } from '../support/eventually.js';

const run = promisify(execFile);

const ORDERS = `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: orders, namespace: apps}
spec: {version: "16"}
`;
const HUGE = `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: huge, namespace: apps}
spec:
  version: "16"
  requirements: {capacity: {storage: 100Ti}}
`;
const EXISTING = `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: existing, namespace: apps}
spec: {version: "15", writeConnectionSecretToRef: {name: other}}
`;

describe('conductor plan', () => {
  let server: ServerProcess;
  const file = (name: string, text: string) => {
    const path = join(server.dataDir, name);
    writeFileSync(path, text);
    return path;
  };
  const plan = async (...args: string[]) => {
    try {
      const { stdout } = await run(process.execPath, [cliPath, 'plan', ...args, '--kubeconfig', server.kubeconfig]);
      return { code: 0, stdout, stderr: '' };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };

  before(async () => {
    server = await startServer();
    await kubectlOk(server, ['create', 'namespace', 'apps']);
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: Provider
metadata: {name: mem, namespace: conductor-system}
spec: {type: memory}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-1, namespace: conductor-system}
spec: {providerRef: {name: mem}, version: "16.4"}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-2, namespace: conductor-system}
spec: {providerRef: {name: mem}, version: "15.2"}
---
apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: existing, namespace: apps}
spec: {version: "15"}
`,
    });
    await eventually(
      async () => ((await kubectlOk(server, ['get', 'pg', 'existing', '-n', 'apps', '-o', 'jsonpath={.status.phase}'])) === 'Bound' ? true : undefined),
      'the existing claim Bound',
      30_000,
    );
    // The plan reads the scheduler's view: wait until it has seen db-1 Available.
    await eventually(async () => ((await plan('-f', file('probe.yaml', ORDERS))).code === 0 ? true : undefined), 'the scheduler sees db-1', 30_000);
  });
  after(async () => {
    await server?.kill();
    if (server) removeDir(server.dataDir);
  });

  test('golden: a new claim bound, one that fits nowhere, an existing claim with its changes; exit 2; nothing written', async () => {
    const r = await plan('-f', file('claims.yaml', `${ORDERS}---\n${HUGE}`), '-f', file('existing.yaml', EXISTING));
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      r.stdout,
      `PostgreSQLInstance apps/orders (new): bind to MemoryDatabase conductor-system/db-1 (0.00 USD/month)
  scheduler: 1/2 candidates fit; chose MemoryDatabase conductor-system/db-1: LowestCost 100×15, Spread 0×5, StaticFirst 100×50 = 6500; rejected: 1 already bound; monthly prices: chose MemoryDatabase conductor-system/db-1 0.00 USD
PostgreSQLInstance apps/huge (new): cannot be placed: it would stay Pending
  scheduler: 0/2 candidates: 1 already bound, 1 insufficient storage (want 100Ti); to fit: storage: wants 100Ti; no resource or class states any storage
PostgreSQLInstance apps/existing: stays bound to MemoryDatabase conductor-system/db-2
  change: spec.writeConnectionSecretToRef: (none) → {"name":"other"}

3 claims: 2 can be placed, 1 cannot
`,
    );
    const names = await kubectlOk(server, ['get', 'pg', '-n', 'apps', '-o', 'jsonpath={.items[*].metadata.name}']);
    assert.equal(names, 'existing', 'a plan writes nothing');
    const existingSpec = JSON.parse(await kubectlOk(server, ['get', 'pg', 'existing', '-n', 'apps', '-o', 'jsonpath={.spec}']));
    assert.equal(existingSpec.writeConnectionSecretToRef, undefined);
  });

  test('every claim placed: exit 0; -o json holds the decision', async () => {
    const r = await plan('-f', file('orders.yaml', ORDERS), '-o', 'json');
    assert.equal(r.code, 0, r.stderr);
    const [one] = JSON.parse(r.stdout);
    assert.equal(one.claim, 'PostgreSQLInstance apps/orders');
    assert.deepEqual({ decision: one.plan.decision, kind: one.plan.kind, name: one.plan.name }, { decision: 'resource', kind: 'MemoryDatabase', name: 'db-1' });
  });

  test('kubectl apply --dry-run=server of a claim answers with the plan annotation', async () => {
    const out = await kubectlOk(server, ['apply', '--dry-run=server', '-f', '-', '-o', 'jsonpath={.metadata.annotations.conductor\\.io/plan}'], {
      input: HUGE,
    });
    const p = JSON.parse(out);
    assert.equal(p.decision, 'none');
    assert.match(p.message, /insufficient storage \(want 100Ti\)/);
  });

  test('a file that is not YAML of objects, or a missing file: exit 1 with the reason', async () => {
    const bad = await plan('-f', file('bad.yaml', 'just a string\n'));
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /conductor plan: .*bad\.yaml: every document must be an object with apiVersion, kind and metadata/);
    const missing = await plan('-f', join(server.dataDir, 'none.yaml'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /conductor plan: .*none\.yaml/);
  });
});
