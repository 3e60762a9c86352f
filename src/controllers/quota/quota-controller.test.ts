/**
 * QuotaController against the FakeClient: status.hard mirrored, status.used recomputed as
 * claims come, change and go, as class prices change, as claim kinds appear by CRD, and
 * stale admission bookkeeping corrected.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { FakeClient } from '../../client/testing/index.js';
import { builtinRefs, resourceRef, type ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import { apiRefs, mysqlInstanceKind, resourceClassKind, volumeKind, claimQuotaKind } from '../../apis/index.js';
import { memoryDatabaseKind } from '../../providers/memory/kinds.js';
import { QuotaController, claimRefOf } from './quota-controller.js';
import { MONTHLY_COST_ANNOTATION, RESOURCE_CLASS_LABEL } from '../../apis/quota/usage.js';

const NS = 'team';
const crds = builtinRefs.customresourcedefinitions;
const mysql = apiRefs.mysqlinstances;
const volumes = apiRefs.volumes;
const quotas = apiRefs.claimquotas;
const memoryDbs = memoryDatabaseKind.ref;

/** The resource a class (or none: a static one) made for `c`, its spec.claimRef naming the claim by uid. */
function madeFor(c: KObject, cls?: string): KObject {
  return {
    apiVersion: 'database.memory.conductor.io/v1alpha1',
    kind: 'MemoryDatabase',
    metadata: {
      name: `${c.metadata.name}-db`,
      namespace: 'conductor-system',
      ...(cls ? { labels: { [RESOURCE_CLASS_LABEL]: `conductor-system.${cls}` } } : {}),
    },
    spec: { claimRef: { namespace: c.metadata.namespace, name: c.metadata.name, uid: c.metadata.uid } },
  };
}

function established(crd: KObject): KObject {
  return { ...crd, status: { conditions: [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: '' }] } };
}

function claim(ref: ResourceRef, name: string, spec: Record<string, unknown> = {}, namespace = NS): KObject {
  return { apiVersion: `${ref.group}/${ref.version}`, kind: ref.kind, metadata: { name, namespace }, spec };
}

function quota(hard: Record<string, string | number>, status?: Record<string, unknown>, name = 'q'): KObject {
  return { apiVersion: 'core.conductor.io/v1alpha1', kind: 'ClaimQuota', metadata: { name, namespace: NS }, spec: { hard }, ...(status ? { status } : {}) };
}

function setup(): { fake: FakeClient; controller: QuotaController } {
  const fake = new FakeClient();
  for (const crd of [claimQuotaKind.crd(), resourceClassKind.crd(), mysqlInstanceKind.crd(), volumeKind.crd(), memoryDatabaseKind.crd()])
    fake.seed(crds, established(crd));
  const controller = new QuotaController(fake, { logger: pino({ level: 'silent' }) });
  running.push(controller);
  return { fake, controller };
}

const running: QuotaController[] = [];
afterEach(() => {
  for (const c of running.splice(0)) c.stop();
});

/** Waits until the quota's status equals `want` (or fails with the last status seen). */
async function statusBecomes(fake: FakeClient, want: unknown, name = 'q'): Promise<void> {
  let last: unknown;
  for (let i = 0; i < 200; i++) {
    const q = fake.stored(quotas, NS).find((o) => o.metadata.name === name);
    last = q?.status;
    try {
      assert.deepEqual(last, want);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  assert.deepEqual(last, want, 'the quota status did not converge');
}

describe('QuotaController', () => {
  test("mirrors hard and counts the namespace's claims of every kind (other namespaces not)", async () => {
    const { fake, controller } = setup();
    fake.seed(quotas, quota({ claims: 10, 'requests.storage': '500Gi', 'performance.claims': 2, pods: 1 }));
    fake.seed(mysql, claim(mysql, 'a', { resourceClass: 'performance', requirements: { capacity: { storage: '25Gi' } } }));
    fake.seed(volumes, claim(volumes, 'b', { requirements: { capacity: { storage: '1Ti' } } }));
    fake.seed(mysql, claim(mysql, 'elsewhere', { requirements: { capacity: { storage: '1Ti' } } }, 'other'));
    await controller.start();
    await statusBecomes(fake, {
      hard: { claims: 10, 'requests.storage': '500Gi', 'performance.claims': 2, pods: 1 },
      used: { claims: '2', 'performance.claims': '1', 'requests.storage': '1049Gi' },
    });
  });

  test('claims created, resized and deleted move status.used', async () => {
    const { fake, controller } = setup();
    fake.seed(quotas, quota({ claims: 5, 'requests.storage': '100Gi' }));
    await controller.start();
    await statusBecomes(fake, { hard: { claims: 5, 'requests.storage': '100Gi' }, used: { claims: '0', 'requests.storage': '0' } });
    await fake.create(mysql, claim(mysql, 'a', { requirements: { capacity: { storage: '10Gi' } } }));
    await statusBecomes(fake, { hard: { claims: 5, 'requests.storage': '100Gi' }, used: { claims: '1', 'requests.storage': '10Gi' } });
    await fake.patch(mysql, 'a', 'merge', { spec: { requirements: { capacity: { storage: '30Gi' } } } }, { namespace: NS });
    await statusBecomes(fake, { hard: { claims: 5, 'requests.storage': '100Gi' }, used: { claims: '1', 'requests.storage': '30Gi' } });
    await fake.delete(mysql, 'a', { namespace: NS });
    await statusBecomes(fake, { hard: { claims: 5, 'requests.storage': '100Gi' }, used: { claims: '0', 'requests.storage': '0' } });
  });

  test('a changed hard is mirrored at once', async () => {
    const { fake, controller } = setup();
    fake.seed(quotas, quota({ claims: 1 }));
    await controller.start();
    await statusBecomes(fake, { hard: { claims: 1 }, used: { claims: '0' } });
    await fake.patch(quotas, 'q', 'merge', { spec: { hard: { claims: 3, 'gold.claims': 1 } } }, { namespace: NS });
    await statusBecomes(fake, { hard: { claims: 3, 'gold.claims': 1 }, used: { claims: '0', 'gold.claims': '0' } });
  });

  test('cost.monthly follows class prices: pending claims at the class they would use, bound ones at the class that made their resource', async () => {
    const { fake, controller } = setup();
    const cls = (name: string, price: string): KObject => ({
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name, namespace: 'conductor-system', annotations: { [MONTHLY_COST_ANNOTATION]: price } },
      resourceClass: 'performance',
      supportedResources: ['MySQLInstance.v1alpha1.storage.conductor.io'],
      template: { apiVersion: 'x.conductor.io/v1alpha1', kind: 'X' },
    });
    fake.seed(apiRefs.resourceclasses, cls('perf-a', '25'));
    fake.seed(quotas, quota({ 'cost.monthly': '300' }));
    fake.seed(mysql, claim(mysql, 'pending', { resourceClass: 'performance' }));
    const bound = fake.seed(mysql, {
      ...claim(mysql, 'bound', { resourceClass: 'performance' }),
      status: { phase: 'Bound', classRef: { namespace: 'conductor-system', name: 'perf-a' } },
    });
    fake.seed(memoryDbs, madeFor(bound, 'perf-a'));
    await controller.start();
    await statusBecomes(fake, { hard: { 'cost.monthly': '300' }, used: { 'cost.monthly': '50' } });
    // A dearer class for the profile raises the pending claim's bound, not the bound claim's price.
    fake.seed(apiRefs.resourceclasses, cls('perf-b', '40'));
    await statusBecomes(fake, { hard: { 'cost.monthly': '300' }, used: { 'cost.monthly': '65' } });
    fake.seed(apiRefs.resourceclasses, cls('perf-a', '30'));
    await statusBecomes(fake, { hard: { 'cost.monthly': '300' }, used: { 'cost.monthly': '70' } });
  });

  test("cost.monthly never believes a claim's status: a forged classRef or resourceRef leaves the claim at what it could cost", async () => {
    const { fake, controller } = setup();
    fake.seed(apiRefs.resourceclasses, {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name: 'gold', namespace: 'conductor-system', annotations: { [MONTHLY_COST_ANNOTATION]: '100' } },
      resourceClass: 'gold',
      supportedResources: ['MySQLInstance.v1alpha1.storage.conductor.io'],
      template: { apiVersion: 'x.conductor.io/v1alpha1', kind: 'X' },
    });
    fake.seed(quotas, quota({ 'cost.monthly': '1000' }));
    // As its owner could write: bound to a free class, or to a static resource.
    fake.seed(mysql, {
      ...claim(mysql, 'forged-class', { resourceClass: 'gold' }),
      status: { phase: 'Bound', classRef: { namespace: 'conductor-system', name: 'free' } },
    });
    fake.seed(mysql, {
      ...claim(mysql, 'forged-static', { resourceClass: 'gold' }),
      status: { phase: 'Bound', resourceRef: { name: 'static', namespace: 'conductor-system' } },
    });
    await controller.start();
    await statusBecomes(fake, { hard: { 'cost.monthly': '1000' }, used: { 'cost.monthly': '200' } });
    // A static resource whose own record binds one of them: that one costs nothing now.
    const stored = fake.stored(mysql, NS).find((o) => o.metadata.name === 'forged-static')!;
    await fake.create(memoryDbs, madeFor(stored));
    await statusBecomes(fake, { hard: { 'cost.monthly': '1000' }, used: { 'cost.monthly': '100' } });
  });

  test('a claim kind added later by CRD is counted, and no longer when its CRD goes', async () => {
    const { fake, controller } = setup();
    const widgets = resourceRef('extra.conductor.io/v1', 'Widget', 'widgets', true);
    fake.seed(quotas, quota({ claims: 5 }));
    fake.seed(mysql, claim(mysql, 'a'));
    await controller.start();
    await statusBecomes(fake, { hard: { claims: 5 }, used: { claims: '1' } });
    const crd = established({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.extra.conductor.io', labels: { 'conductor.io/abstract': 'true' } },
      spec: {
        group: 'extra.conductor.io',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    });
    fake.seed(widgets, claim(widgets, 'w1'));
    fake.seed(widgets, claim(widgets, 'w2'));
    fake.seed(crds, crd);
    await statusBecomes(fake, { hard: { claims: 5 }, used: { claims: '3' } });
    await fake.delete(crds, 'widgets.extra.conductor.io');
    await statusBecomes(fake, { hard: { claims: 5 }, used: { claims: '1' } });
  });

  test('stale admission bookkeeping is corrected by the next claim event', async () => {
    const { fake, controller } = setup();
    // As if admission counted a claim whose create then failed.
    fake.seed(quotas, quota({ claims: 5 }, { hard: { claims: 5 }, used: { claims: '4' } }));
    fake.seed(mysql, claim(mysql, 'a'));
    await controller.start();
    await fake.create(mysql, claim(mysql, 'b'));
    await statusBecomes(fake, { hard: { claims: 5 }, used: { claims: '2' } });
  });
});

describe('claimRefOf', () => {
  const base = (extra: { labels?: Record<string, string>; categories?: string[]; scope?: string; versions?: unknown[] } = {}): KObject =>
    established({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.x.io', ...(extra.labels ? { labels: extra.labels } : {}) },
      spec: {
        group: 'x.io',
        scope: extra.scope ?? 'Namespaced',
        names: { plural: 'things', kind: 'Thing', ...(extra.categories ? { categories: extra.categories } : {}) },
        versions: extra.versions ?? [
          { name: 'v1beta1', served: true, storage: false },
          { name: 'v1', served: true, storage: true },
        ],
      },
    });
  const cases: Array<{ reason: string; crd: KObject; want: ResourceRef | undefined }> = [
    {
      reason: 'the claim category makes a claim kind (storage version chosen)',
      crd: base({ categories: ['claim'] }),
      want: { group: 'x.io', version: 'v1', resource: 'things', namespaced: true, kind: 'Thing' },
    },
    {
      reason: 'the abstract label makes a claim kind',
      crd: base({ labels: { 'conductor.io/abstract': 'true' } }),
      want: { group: 'x.io', version: 'v1', resource: 'things', namespaced: true, kind: 'Thing' },
    },
    { reason: 'other CRDs are not claims', crd: base({ categories: ['managed'] }), want: undefined },
    { reason: 'cluster-scoped kinds cannot be claims', crd: base({ categories: ['claim'], scope: 'Cluster' }), want: undefined },
    {
      reason: 'a storage version that is not served gives way to a served one',
      crd: base({
        categories: ['claim'],
        versions: [
          { name: 'v2', served: true, storage: false },
          { name: 'v1', served: false, storage: true },
        ],
      }),
      want: { group: 'x.io', version: 'v2', resource: 'things', namespaced: true, kind: 'Thing' },
    },
    { reason: 'a CRD not yet Established is not used', crd: { ...base({ categories: ['claim'] }), status: {} }, want: undefined },
  ];
  for (const c of cases) test(c.reason, () => assert.deepEqual(claimRefOf(c.crd), c.want));
});
