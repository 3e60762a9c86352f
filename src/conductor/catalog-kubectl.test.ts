/**
 * The kinds as a user sees them through the real kubectl against a `conductor server`
 * process: categories (`kubectl get claim -A`, `kubectl get managed -A`), printer columns
 * with status, short names, `kubectl explain`, rejections naming the field, and the
 * `conductor crds` stream applied with kubectl.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { cliPath, kubectl, kubectlOk, serverForSuite } from '../../test/support/server.js';
import { claimKinds, concreteKinds } from './catalog.js';
import { sampleObjects } from '../apis/testing/index.js';
import { localSampleObjects } from '../providers/local/samples.js';
import { memorySampleObjects } from '../providers/memory/samples.js';
import { kubernetesSampleObjects } from '../providers/kubernetes/samples.js';
import { azureSampleObjects } from '../providers/azure/samples.js';
import { gcpSampleObjects } from '../providers/gcp/samples.js';
import { awsSampleObjects } from '../providers/aws/samples.js';

const NS = 'shop';

/** The rows of `kubectl get` output as arrays of cells (header first). */
function table(out: string): string[][] {
  return out
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

/** The row whose NAME column is `name`, as header → cell. */
function row(out: string, name: string): Record<string, string> {
  const [header, ...rows] = table(out);
  const nameAt = header.indexOf('NAME');
  const found = rows.find((r) => r[nameAt] === name || r[nameAt]?.endsWith(`/${name}`));
  assert.ok(found, `no row named ${name} in:\n${out}`);
  return Object.fromEntries(header.map((h, i) => [h, found[i] ?? '']));
}

describe('the kinds through kubectl', () => {
  // Printer columns are checked on hand-written statuses: no controller may rewrite them.
  const suite = serverForSuite({
    env: { CONDUCTOR_CONTROLLERS: 'false' },
    setup: async (s) => {
      await kubectlOk(s.server, ['create', 'namespace', NS]);
    },
  });

  before(async () => {
    const docs = [
      ...sampleObjects(NS),
      ...localSampleObjects(NS),
      ...memorySampleObjects(),
      ...kubernetesSampleObjects(),
      ...azureSampleObjects(),
      ...gcpSampleObjects(),
      ...awsSampleObjects(),
    ]
      .map((o) => `---\n${stringify(o)}`)
      .join('');
    await kubectlOk(suite.server, ['apply', '-f', '-'], { input: docs });
  });

  test('`kubectl get claim -A` lists a claim of every claim kind', async () => {
    const out = await kubectlOk(suite.server, ['get', 'claim', '-A', '-o', 'name']);
    for (const k of claimKinds) {
      assert.match(out, new RegExp(`^${k.singular}\\.${k.group.replace(/\./g, '\\.')}/`, 'm'), `${k.kind} missing from:\n${out}`);
    }
    assert.equal(out.trim().split('\n').length, claimKinds.length);
  });

  test('`kubectl get managed -A` lists every concrete kind and no claims', async () => {
    const out = await kubectlOk(suite.server, ['get', 'managed', '-A', '-o', 'name']);
    for (const k of concreteKinds) assert.match(out, new RegExp(`^${k.singular}\\.${k.group.replace(/\./g, '\\.')}/`, 'm'), k.kind);
    for (const k of claimKinds) assert.doesNotMatch(out, new RegExp(`^${k.singular}\\.`, 'm'), k.kind);
  });

  test('a bound claim shows its phase, resource and class; short names work', async () => {
    await kubectlOk(suite.server, [
      'patch',
      'mysql',
      'wordpress-db',
      '-n',
      NS,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({
        status: {
          phase: 'Bound',
          resourceRef: { apiVersion: 'database.aws.conductor.io/v1alpha1', kind: 'RDSInstance', namespace: 'conductor-system', name: 'rds-instance-445' },
        },
      }),
    ]);
    const out = await kubectlOk(suite.server, ['get', 'mysqlinstances', '-A']);
    assert.deepEqual(table(out)[0], ['NAMESPACE', 'NAME', 'PHASE', 'RESOURCE', 'CLASS', 'TERMINATING', 'AGE']);
    const r = row(out, 'wordpress-db');
    assert.equal(r.NAMESPACE, NS);
    assert.equal(r.PHASE, 'Bound');
    assert.equal(r.RESOURCE, 'rds-instance-445');
    assert.equal(r.CLASS, 'performance');
    const pending = row(await kubectlOk(suite.server, ['get', 'pg', '-n', NS]), 'orders-db');
    assert.equal(pending.PHASE, '<none>', 'a claim without status shows no phase');
    assert.equal(pending.TERMINATING, '<none>', 'nor, while it is not being deleted, a deletion age');
  });

  test('a concrete resource shows its phase, claim, class, readiness and whether it is synced', async () => {
    await kubectlOk(suite.server, [
      'patch',
      'localpg',
      'default-orders-db-1a2b3c4d',
      '-n',
      'conductor-system',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({
        status: {
          phase: 'Bound',
          claim: `${NS}/orders-db`,
          conditions: [
            { type: 'Ready', status: 'True', reason: 'Available', message: 'accepting connections', lastTransitionTime: '2025-01-01T00:00:00Z' },
            { type: 'Synced', status: 'False', reason: 'ReconcileError', message: 'cannot observe', lastTransitionTime: '2025-01-01T00:00:00Z' },
          ],
        },
      }),
    ]);
    const out = await kubectlOk(suite.server, ['get', 'localpostgresqlinstances', '-n', 'conductor-system']);
    assert.deepEqual(table(out)[0], ['NAME', 'PHASE', 'CLAIM', 'CLASS', 'READY', 'SYNCED', 'TERMINATING', 'AGE']);
    const r = row(out, 'default-orders-db-1a2b3c4d');
    assert.deepEqual([r.PHASE, r.CLAIM, r.CLASS, r.READY, r.SYNCED], ['Bound', `${NS}/orders-db`, 'standard', 'True', 'False']);
    const wide = row(await kubectlOk(suite.server, ['get', 'pgserver', 'shared-pg', '-n', 'conductor-system', '-o', 'wide']), 'shared-pg');
    assert.equal(wide.PROVIDER, 'local');
  });

  test('a ResourceClass shows its profile, template kind and rebind policy', async () => {
    const r = row(await kubectlOk(suite.server, ['get', 'resourceclasses', '-n', 'conductor-system']), 'local-pg');
    assert.deepEqual([r.PROFILE, r.KIND, r.REBIND], ['standard', 'LocalPostgreSQLInstance', 'Delete']);
  });

  test('kubectl explain describes the claim fields', async () => {
    const out = await kubectlOk(suite.server, ['explain', 'mysqlinstances.spec.requirements']);
    assert.match(out, /capacity/);
    assert.match(out, /Generic requirements the scheduler matches/);
  });

  const rejected: { reason: string; yaml: string; field: RegExp }[] = [
    {
      reason: 'a capacity that is not a quantity',
      yaml: `apiVersion: storage.conductor.io/v1alpha1\nkind: MySQLInstance\nmetadata: {name: bad, namespace: ${NS}}\nspec: {requirements: {capacity: {storage: lots}}}\n`,
      field: /spec\.requirements\.capacity\[storage\]/,
    },
    {
      reason: 'an unknown rebind policy',
      yaml: 'apiVersion: database.local.conductor.io/v1alpha1\nkind: LocalPostgreSQLInstance\nmetadata: {name: bad, namespace: conductor-system}\nspec: {rebindPolicy: Keep}\n',
      field: /spec\.rebindPolicy: Unsupported value: "Keep"/,
    },
  ];
  for (const c of rejected) {
    test(`kubectl apply is refused for ${c.reason}, naming the field`, async () => {
      const r = await kubectl(suite.server, ['apply', '-f', '-'], { input: c.yaml });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /is invalid/);
      assert.match(r.stderr, c.field);
    });
  }

  test('`conductor crds` applies cleanly with kubectl', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [cliPath, 'crds'], { maxBuffer: 16 << 20 });
    const out = await kubectlOk(suite.server, ['apply', '--server-side', '-f', '-'], { input: stdout });
    assert.equal(out.trim().split('\n').length, claimKinds.length + concreteKinds.length + 4);
    const abstract = await kubectlOk(suite.server, ['get', 'crd', '-l', 'conductor.io/abstract=true', '-o', 'name']);
    assert.equal(abstract.trim().split('\n').length, claimKinds.length);
  });
});
