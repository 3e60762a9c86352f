/**
 * What kubectl tells a user without being asked (issue 15, item 6), with the real kubectl:
 * a claim asking for a region or a profile nothing offers is accepted with a `Warning:`
 * naming what is offered; `kubectl explain` shows quantities as Quantity, as it does for
 * Kubernetes' own `resources.limits`; and `kubectl get` of claims and of `managed` shows an
 * object held by a finalizer as Terminating. The controllers do not run (nothing here needs
 * them, and nothing is provisioned).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, serverForSuite } from '../support/server.js';

const SYS = 'conductor-system';
const NS = 'shop';

/** The `Warning:` lines kubectl printed. */
const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('Warning:'));

const pgClaim = (name: string, spec: string) => `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: ${name}, namespace: ${NS}}
spec: ${spec}
`;

describe('kubectl guidance: placement warnings, quantities in explain, the Terminating column', () => {
  const suite = serverForSuite({
    env: { CONDUCTOR_CONTROLLERS: 'false' },
    setup: async ({ server }) => {
      await kubectlOk(server, [
        'wait',
        '--for=condition=Established',
        'crd/resourceclasses.core.conductor.io',
        'crd/postgresqlinstances.storage.conductor.io',
        'crd/memorydatabases.database.memory.conductor.io',
        '--timeout=30s',
      ]);
      await kubectlOk(server, ['create', 'namespace', NS]);
      // PostgreSQL: a class in eu-west-1 (profile standard) and a static resource in us-east-1
      // (profile gold); Redis: one class in ap-southeast-1.
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: pg-europe, namespace: ${SYS}}
resourceClass: standard
capabilities: {region: eu-west-1}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: db-us, namespace: ${SYS}}
spec: {version: "16.4", resourceClass: gold, capabilities: {region: us-east-1}}
---
apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: redis-asia, namespace: ${SYS}}
capabilities: {region: ap-southeast-1}
supportedResources: [RedisCluster.v1alpha1.cache.conductor.io]
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
`,
      });
    },
  });
  const apply = (yaml: string) => kubectl(suite.server, ['apply', '-f', '-'], { input: yaml });

  test('a claim asking for a region nothing serves is accepted with a warning naming the regions served', async () => {
    const r = await apply(pgClaim('far', '{requirements: {region: antartica}}'));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(warnings(r.stderr), [
      'Warning: spec.requirements.region "antartica": no class or resource of kind PostgreSQLInstance serves it; regions served: eu-west-1, us-east-1',
    ]);
    await kubectlOk(suite.server, ['get', 'postgresqlinstance', 'far', '-n', NS]);
  });

  test('a region of any characters (not Latin-1) is warned about, not a 500: kubectl shows the characters as U+XXXX', async () => {
    const r = await apply(pgClaim('tokyo', '{requirements: {region: "日本"}}'));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(warnings(r.stderr), [
      'Warning: spec.requirements.region "U+65E5U+672C": no class or resource of kind PostgreSQLInstance serves it; regions served: eu-west-1, us-east-1',
    ]);
  });

  test('a region group above a served region, and a claim naming no region or profile, get no warning', async () => {
    const group = await apply(pgClaim('near', '{requirements: {region: north-america}}'));
    assert.equal(group.code, 0, group.stderr);
    assert.deepEqual(warnings(group.stderr), [], 'us-east-1 is in north-america (the default region hierarchy)');
    const plain = await apply(pgClaim('plain', '{}'));
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(warnings(plain.stderr), []);
  });

  test('a claim naming a profile nothing offers is accepted with a warning naming the profiles offered', async () => {
    const r = await apply(pgClaim('fancy', '{resourceClass: platinum}'));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(warnings(r.stderr), [
      'Warning: spec.resourceClass "platinum": no class or resource of kind PostgreSQLInstance offers it; profiles offered: gold, standard',
    ]);
    const known = await apply(pgClaim('golden', '{resourceClass: gold}'));
    assert.deepEqual(warnings(known.stderr), []);
  });

  test('the warning is per kind: a region served only for another kind is named as not served', async () => {
    const r = await kubectl(suite.server, ['apply', '--dry-run=server', '-f', '-'], {
      input: `apiVersion: cache.conductor.io/v1alpha1
kind: RedisCluster
metadata: {name: sessions, namespace: ${NS}}
spec: {requirements: {region: eu-west-1}}
`,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      warnings(r.stderr).includes(
        'Warning: spec.requirements.region "eu-west-1": no class or resource of kind RedisCluster serves it; regions served: ap-southeast-1',
      ),
      r.stderr,
    );
  });

  test('an update that changes the region is warned about; a re-apply that changes nothing is not', async () => {
    const moved = await apply(pgClaim('near', '{requirements: {region: mars}}'));
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stderr, /Warning: spec\.requirements\.region "mars": no class or resource of kind PostgreSQLInstance serves it/);
    const again = await apply(pgClaim('near', '{requirements: {region: mars}}'));
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(warnings(again.stderr), []);
  });

  test('a class published later is known at once: its region is no longer warned about', async () => {
    await kubectlOk(suite.server, ['apply', '-f', '-'], {
      input: `apiVersion: core.conductor.io/v1alpha1
kind: ResourceClass
metadata: {name: pg-south, namespace: ${SYS}}
resourceClass: standard
capabilities: {region: antartica}
supportedResources: [PostgreSQLInstance.v1alpha1.storage.conductor.io]
template: {apiVersion: database.memory.conductor.io/v1alpha1, kind: MemoryDatabase, spec: {}}
`,
    });
    const r = await apply(pgClaim('polar', '{requirements: {region: antartica}}'));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(warnings(r.stderr), []);
  });

  test('kubectl explain shows maps of quantities as map[string]Quantity, with what a quantity is', async () => {
    const capacity = (await kubectlOk(suite.server, ['explain', 'postgresqlinstance.spec.requirements.capacity'])).replace(/\s+/g, ' ');
    assert.match(capacity, /FIELD: capacity <map\[string\]Quantity>/);
    assert.match(capacity, /Each amount is a quantity: a number with an optional suffix/);
    assert.match(capacity, /e\.g\. 25Gi, 500m or 2\./);
    const allocatable = await kubectlOk(suite.server, ['explain', 'memorydatabase.status.allocatable']);
    assert.match(allocatable, /FIELD: allocatable <map\[string\]Quantity>/);
    const requirements = await kubectlOk(suite.server, ['explain', 'postgresqlinstance.spec.requirements']);
    assert.match(requirements, /capacity\s+<map\[string\]Quantity>/);
    // Quantities are still validated as quantities.
    const bad = await apply(pgClaim('huge', '{requirements: {capacity: {storage: lots}}}'));
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /spec\.requirements\.capacity\[storage\]: Invalid value: "lots"/);
  });

  test('kubectl get shows a claim and a concrete resource held by a finalizer as Terminating', async () => {
    const s = suite.server;
    await kubectlOk(s, ['apply', '-f', '-'], {
      input: `apiVersion: storage.conductor.io/v1alpha1
kind: PostgreSQLInstance
metadata: {name: held, namespace: ${NS}, finalizers: [example.com/hold]}
spec: {}
---
apiVersion: database.memory.conductor.io/v1alpha1
kind: MemoryDatabase
metadata: {name: held-db, namespace: ${SYS}, finalizers: [example.com/hold]}
spec: {version: "16.4"}
`,
    });
    await kubectlOk(s, ['delete', 'postgresqlinstance', 'held', '-n', NS, '--wait=false']);
    await kubectlOk(s, ['delete', 'memorydatabase', 'held-db', '-n', SYS, '--wait=false']);

    const row = (table: string, name: string) => table.split('\n').find((l) => l.startsWith(`${name} `)) ?? '';
    const column = (table: string, header: string, line: string) => {
      const head = table.split('\n')[0];
      const at = head.indexOf(header);
      assert.ok(at >= 0, `no ${header} column in:\n${table}`);
      return line.slice(at).split(/\s+/)[0];
    };
    const claims = await kubectlOk(s, ['get', 'postgresqlinstances', '-n', NS]);
    assert.match(column(claims, 'TERMINATING', row(claims, 'held')), /^\d+s$/, claims);
    assert.equal(column(claims, 'TERMINATING', row(claims, 'plain')), '<none>', claims);

    const managed = await kubectlOk(s, ['get', 'managed', '-n', SYS]);
    const heldRow = managed.split('\n').find((l) => l.includes('held-db')) ?? '';
    const liveRow = managed.split('\n').find((l) => l.includes('db-us')) ?? '';
    const header = managed.split('\n').find((l) => l.includes('TERMINATING') && l.indexOf('NAME') === 0) ?? '';
    const at = header.indexOf('TERMINATING');
    assert.ok(at >= 0, managed);
    assert.match(heldRow.slice(at).split(/\s+/)[0], /^\d+s$/, managed);
    assert.equal(liveRow.slice(at).split(/\s+/)[0], '<none>', managed);
  });

  test('a resource deleted is forgotten at once: its region is warned about again', async () => {
    await kubectlOk(suite.server, ['delete', 'memorydatabase', 'db-us', '-n', SYS]);
    const r = await apply(pgClaim('east', '{requirements: {region: us-east-1}}'));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(warnings(r.stderr), [
      'Warning: spec.requirements.region "us-east-1": no class or resource of kind PostgreSQLInstance serves it; regions served: antartica, eu-west-1',
    ]);
  });
});
