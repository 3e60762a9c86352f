/**
 * ClaimQuotaAdmission on the in-process server (controllers off, so what is seen is the
 * admission plugin alone): creates and raising updates refused with 403 naming the
 * exceeded keys, status.used kept by compare-and-swap so concurrent creates cannot
 * overshoot, dry runs checked but never recorded, malformed quota values skipped, claim
 * kinds added by CRD counted.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startConductor, type RunningConductor } from '../index.js';
import { builtinRefs, resourceRef, type ResourceRef } from '../../client/types.js';
import type { ApiError } from '../../machinery/errors.js';
import { isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { apiRefs } from '../../conductor/catalog.js';

const mysql = apiRefs.mysqlinstances;
const volumes = apiRefs.volumes;
const quotas = apiRefs.claimquotas;

let server: RunningConductor;
let dataDir: string;
let nsCounter = 0;

async function namespace(): Promise<string> {
  const name = `quota-${++nsCounter}`;
  await server.client.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

function claimOf(ref: ResourceRef, ns: string, name: string, spec: Record<string, unknown> = {}): KObject {
  return { apiVersion: `${ref.group}/${ref.version}`, kind: ref.kind, metadata: { name, namespace: ns }, spec };
}

async function quota(ns: string, name: string, hard: Record<string, string | number>): Promise<void> {
  await server.client.create(quotas, { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ClaimQuota', metadata: { name, namespace: ns }, spec: { hard } });
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (isApiError(err)) return err;
    throw err;
  }
  assert.fail('the request was admitted, expected 403 Forbidden');
}

async function used(ns: string, name: string): Promise<unknown> {
  const q = await server.client.get(quotas, name, ns);
  return (q.status as { used?: unknown } | undefined)?.used;
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'conductor-quota-'));
  server = await startConductor({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }), controllers: false });
});
after(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ClaimQuota admission', () => {
  test('claims: the create over the limit is refused with 403 naming the key; status.used is kept', async () => {
    const ns = await namespace();
    await quota(ns, 'team-quota', { claims: 2 });
    await server.client.create(mysql, claimOf(mysql, ns, 'a'));
    await server.client.create(volumes, claimOf(volumes, ns, 'b'));
    assert.deepEqual(await used(ns, 'team-quota'), { claims: '2' });
    const err = await refusal(server.client.create(mysql, claimOf(mysql, ns, 'c')));
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.equal(
      err.message,
      'mysqlinstances.storage.conductor.io "c" is forbidden: exceeded quota: team-quota, requested: claims=1, used: claims=2, limited: claims=2',
    );
    assert.deepEqual(err.status.details, { name: 'c', group: 'storage.conductor.io', kind: 'mysqlinstances' });
    const dry = await refusal(server.client.create(mysql, claimOf(mysql, ns, 'c'), { dryRun: true }));
    assert.equal(dry.code, 403, 'dry-run is checked too');
  });

  test('a dry-run create that fits is admitted without recording usage: status.used is unchanged and the real create still fits', async () => {
    const ns = await namespace();
    await quota(ns, 'pair', { claims: 2, 'requests.storage': '10Gi' });
    await server.client.create(mysql, claimOf(mysql, ns, 'a', { requirements: { capacity: { storage: '4Gi' } } }));
    assert.deepEqual(await used(ns, 'pair'), { claims: '1', 'requests.storage': '4Gi' });
    const spec = { requirements: { capacity: { storage: '6Gi' } } };
    for (let i = 0; i < 2; i++) await server.client.create(mysql, claimOf(mysql, ns, 'b', spec), { dryRun: true });
    assert.deepEqual(await used(ns, 'pair'), { claims: '1', 'requests.storage': '4Gi' }, 'a dry run records nothing');
    await server.client.create(mysql, claimOf(mysql, ns, 'b', spec));
    assert.deepEqual(await used(ns, 'pair'), { claims: '2', 'requests.storage': '10Gi' });
  });

  test('requests.storage and several exceeded keys are named together, sorted', async () => {
    const ns = await namespace();
    await quota(ns, 'team-quota', { claims: 2, 'requests.storage': '100Gi' });
    await server.client.create(mysql, claimOf(mysql, ns, 'a', { requirements: { capacity: { storage: '60Gi' } } }));
    await server.client.create(mysql, claimOf(mysql, ns, 'b', { requirements: { capacity: { storage: '30Gi' } } }));
    const err = await refusal(server.client.create(mysql, claimOf(mysql, ns, 'c', { requirements: { capacity: { storage: '50Gi' } } })));
    assert.match(
      err.message,
      /exceeded quota: team-quota, requested: claims=1,requests\.storage=50Gi, used: claims=2,requests\.storage=90Gi, limited: claims=2,requests\.storage=100Gi$/,
    );
  });

  test('an update that raises storage is refused; one that does not is admitted even when over', async () => {
    const ns = await namespace();
    await quota(ns, 'storage', { 'requests.storage': '100Gi' });
    await server.client.create(mysql, claimOf(mysql, ns, 'a', { requirements: { capacity: { storage: '60Gi' } } }));
    const grow = await refusal(server.client.patch(mysql, 'a', 'merge', { spec: { requirements: { capacity: { storage: '120Gi' } } } }, { namespace: ns }));
    assert.equal(grow.code, 403);
    assert.match(grow.message, /requested: requests\.storage=60Gi, used: requests\.storage=60Gi, limited: requests\.storage=100Gi$/);
    await server.client.patch(mysql, 'a', 'merge', { spec: { requirements: { capacity: { storage: '100Gi' } } } }, { namespace: ns });
    // Lower the limit below the usage: shrinking and metadata changes still go through.
    await server.client.patch(quotas, 'storage', 'merge', { spec: { hard: { 'requests.storage': '10Gi' } } }, { namespace: ns });
    await server.client.patch(mysql, 'a', 'merge', { metadata: { labels: { team: 'x' } } }, { namespace: ns });
    await server.client.patch(mysql, 'a', 'merge', { spec: { requirements: { capacity: { storage: '90Gi' } } } }, { namespace: ns });
    assert.deepEqual(await used(ns, 'storage'), { 'requests.storage': '100Gi' }, 'a decrease is left to the usage controller');
  });

  test('<profile>.claims counts claims naming the profile; switching profile is a raise', async () => {
    const ns = await namespace();
    await quota(ns, 'profiles', { 'performance.claims': 1 });
    await server.client.create(mysql, claimOf(mysql, ns, 'fast', { resourceClass: 'performance' }));
    await server.client.create(mysql, claimOf(mysql, ns, 'plain', {}));
    const err = await refusal(server.client.create(mysql, claimOf(mysql, ns, 'fast2', { resourceClass: 'performance' })));
    assert.match(err.message, /exceeded quota: profiles, requested: performance\.claims=1, used: performance\.claims=1, limited: performance\.claims=1$/);
    const sw = await refusal(server.client.patch(mysql, 'plain', 'merge', { spec: { resourceClass: 'performance' } }, { namespace: ns }));
    assert.equal(sw.code, 403);
  });

  test('cost.monthly prices pending claims by the class they would provision from', async () => {
    const ns = await namespace();
    await server.client.create(apiRefs.resourceclasses, {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name: `${ns}-perf`, namespace: 'conductor-system', annotations: { 'conductor.io/monthly-cost': '25' } },
      resourceClass: `${ns}-perf`,
      supportedResources: ['MySQLInstance.v1alpha1.storage.conductor.io'],
      template: { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance' },
    });
    await quota(ns, 'money', { 'cost.monthly': '60' });
    await server.client.create(mysql, claimOf(mysql, ns, 'a', { resourceClass: `${ns}-perf` }));
    await server.client.create(mysql, claimOf(mysql, ns, 'b', { resourceClass: `${ns}-perf` }));
    await server.client.create(mysql, claimOf(mysql, ns, 'free', { resourceClass: 'unpriced' }));
    const err = await refusal(server.client.create(mysql, claimOf(mysql, ns, 'c', { resourceClass: `${ns}-perf` })));
    assert.match(err.message, /exceeded quota: money, requested: cost\.monthly=25, used: cost\.monthly=50, limited: cost\.monthly=60$/);
  });

  test("cost.monthly never believes a claim's status: a classRef forged to a free class leaves the claim at its class's price, and only a resource's record binds", async () => {
    const ns = await namespace();
    const cls = (name: string, annotations: Record<string, string>) => ({
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name, namespace: 'conductor-system', annotations },
      resourceClass: name,
      supportedResources: ['MySQLInstance.v1alpha1.storage.conductor.io'],
      template: { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance' },
    });
    await server.client.create(apiRefs.resourceclasses, cls(`${ns}-gold`, { 'conductor.io/monthly-cost': '25' }));
    await server.client.create(apiRefs.resourceclasses, cls(`${ns}-free`, {}));
    await quota(ns, 'money', { 'cost.monthly': '60' });
    const a = await server.client.create(mysql, claimOf(mysql, ns, 'a', { resourceClass: `${ns}-gold` }));
    const b = await server.client.create(mysql, claimOf(mysql, ns, 'b', { resourceClass: `${ns}-gold` }));
    // What the claims' owner could write (status), and the usage a controller trusting it would record.
    for (const c of [a, b]) {
      const cur = await server.client.get<KObject>(mysql, c.metadata.name!, ns);
      await server.client.updateStatus(mysql, {
        ...cur,
        status: {
          phase: 'Bound',
          classRef: { namespace: 'conductor-system', name: `${ns}-free` },
          resourceRef: { apiVersion: 'database.memory.conductor.io/v1alpha1', kind: 'MemoryDatabase', name: 'x', namespace: 'conductor-system' },
        },
      });
    }
    const q = await server.client.get<KObject>(quotas, 'money', ns);
    await server.client.updateStatus(quotas, { ...q, status: { hard: { 'cost.monthly': '60' }, used: { 'cost.monthly': '0' } } });
    const err = await refusal(server.client.create(mysql, claimOf(mysql, ns, 'c', { resourceClass: `${ns}-gold` })));
    assert.match(err.message, /exceeded quota: money, requested: cost\.monthly=25, used: cost\.monthly=50, limited: cost\.monthly=60$/);

    // A resource no class made, whose own record binds claim a: a costs nothing now.
    await server.client.create(apiRefs.memorydatabases, {
      apiVersion: 'database.memory.conductor.io/v1alpha1',
      kind: 'MemoryDatabase',
      metadata: { name: `${ns}-static`, namespace: 'conductor-system' },
      spec: {
        version: '16.4',
        claimRef: { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'MySQLInstance', namespace: ns, name: 'a', uid: a.metadata.uid },
      },
    });
    await server.client.create(mysql, claimOf(mysql, ns, 'c', { resourceClass: `${ns}-gold` }));
    assert.deepEqual(await used(ns, 'money'), { 'cost.monthly': '50' });
  });

  test('every exceeded quota of the namespace is named', async () => {
    const ns = await namespace();
    await quota(ns, 'count', { claims: 1 });
    await quota(ns, 'size', { 'requests.storage': '1Gi', claims: 5 });
    await server.client.create(mysql, claimOf(mysql, ns, 'a'));
    const err = await refusal(server.client.create(mysql, claimOf(mysql, ns, 'b', { requirements: { capacity: { storage: '2Gi' } } })));
    assert.match(
      err.message,
      /exceeded quota: count, requested: claims=1, used: claims=1, limited: claims=1; exceeded quota: size, requested: requests\.storage=2Gi, used: requests\.storage=0, limited: requests\.storage=1Gi$/,
    );
  });

  test('a malformed hard value is skipped (no 500); the other keys still apply', async () => {
    const ns = await namespace();
    await quota(ns, 'odd', { claims: 1, 'requests.storage': '1e5000', pods: 3 });
    await server.client.create(mysql, claimOf(mysql, ns, 'a', { requirements: { capacity: { storage: '1Ti' } } }));
    const err = await refusal(server.client.create(mysql, claimOf(mysql, ns, 'b')));
    assert.equal(err.code, 403);
    assert.match(err.message, /requested: claims=1, used: claims=1, limited: claims=1$/);
    assert.deepEqual(await used(ns, 'odd'), { claims: '1' });
  });

  test('concurrent creates never overshoot: the quota status is compare-and-swap', async () => {
    const ns = await namespace();
    await quota(ns, 'three', { claims: 3 });
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => server.client.create(mysql, claimOf(mysql, ns, `c${i}`))));
    const admitted = results.filter((r) => r.status === 'fulfilled').length;
    assert.equal(admitted, 3);
    for (const r of results) if (r.status === 'rejected') assert.ok(isApiError(r.reason) && (r.reason.code === 403 || r.reason.code === 409), String(r.reason));
    const stored = await server.client.list(mysql, { namespace: ns });
    assert.equal(stored.items.length, 3);
    assert.deepEqual(await used(ns, 'three'), { claims: '3' });
  });

  test('objects of other kinds and namespaces without quotas are not limited', async () => {
    const ns = await namespace();
    await quota(ns, 'none', { claims: 0 });
    await server.client.create(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns } });
    await server.client.create(apiRefs.resourceclasses, {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name: 'not-a-claim', namespace: ns },
      template: { apiVersion: 'x.conductor.io/v1alpha1', kind: 'X' },
    });
    const free = await namespace();
    await server.client.create(mysql, claimOf(mysql, free, 'a'));
  });

  test('a claim kind added by CRD (abstract label, no category) is counted and limited', async () => {
    const widgets = resourceRef('extra.conductor.io/v1', 'Widget', 'widgets', true);
    await server.client.create(builtinRefs.customresourcedefinitions, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.extra.conductor.io', labels: { 'conductor.io/abstract': 'true' } },
      spec: {
        group: 'extra.conductor.io',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const ns = await namespace();
    await quota(ns, 'q', { claims: 2 });
    await server.client.create(mysql, claimOf(mysql, ns, 'a'));
    // The CRD may take a moment to be served.
    for (let i = 0; ; i++) {
      try {
        await server.client.create(widgets, claimOf(widgets, ns, 'w1'));
        break;
      } catch (err) {
        if (i > 50 || !isApiError(err) || err.code !== 404) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const err = await refusal(server.client.create(widgets, claimOf(widgets, ns, 'w2')));
    assert.match(err.message, /^widgets\.extra\.conductor\.io "w2" is forbidden: exceeded quota: q, requested: claims=1, used: claims=2, limited: claims=2$/);
  });
});
