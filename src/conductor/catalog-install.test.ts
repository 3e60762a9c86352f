/**
 * The CRDs against our API server, in-process: installed and Established at start-up,
 * re-installing is harmless and repairs drift, every kind accepts its typed sample (with
 * schema defaults applied), invalid objects are rejected with 422 naming the field, and the
 * default SchedulerProfile is created once and never overwritten.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startConductor as startServer, type RunningConductor as RunningServer } from '../conductor/index.js';
import { builtinRefs } from '../client/types.js';
import { isApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/object.js';
import { allCrds, allKinds, installCrds } from './catalog.js';
import { crdEstablished } from '../apis/install.js';
import { sampleObjects } from '../apis/testing/index.js';
import { localSampleObjects } from '../providers/local/samples.js';
import { memorySampleObjects } from '../providers/memory/samples.js';
import { kubernetesSampleObjects } from '../providers/kubernetes/samples.js';
import { azureSampleObjects } from '../providers/azure/samples.js';
import { gcpSampleObjects } from '../providers/gcp/samples.js';
import { awsSampleObjects } from '../providers/aws/samples.js';
import { localPostgreSQLInstanceKind, postgresqlServerKind, type LocalPostgreSQLInstance, type PostgreSQLServer } from '../providers/local/postgresql/kinds.js';
import { mysqlInstanceKind, volumeKind, type MySQLInstance } from '../apis/storage/index.js';
import { loadBalancerKind } from '../apis/network/index.js';
import {
  resourceClassKind,
  DEFAULT_SCHEDULER_PROFILE_NAME,
  ensureDefaultSchedulerProfile,
  schedulerProfileKind,
  type SchedulerProfile,
} from '../apis/core/index.js';
import { SYSTEM_NAMESPACE } from '../apis/well-known.js';

const NS = 'shop';

/** Whether `actual` has every field of `expected` with the same value (defaults may add more). */
function contains(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => contains(actual[i], e));
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([k, v]) => contains((actual as Record<string, unknown>)[k], v));
  }
  return actual === expected;
}

describe('CRDs on the API server', () => {
  let server: RunningServer;
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'conductor-apis-'));
    // Statuses are written by hand here: no controller may race them (the samples include a
    // MemoryDatabase the claim controller would otherwise bind a sample claim to).
    server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }), controllers: false });
    for (const name of [NS, 'elsewhere']) {
      await server.client.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  });
  after(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('every CRD is installed and Established when the server starts, and its kind is served', async () => {
    const list = await server.client.list(builtinRefs.customresourcedefinitions);
    const byName = new Map(list.items.map((c) => [c.metadata.name!, c]));
    for (const kind of allKinds) {
      const crd = byName.get(kind.crdName);
      assert.ok(crd, `${kind.crdName} is missing`);
      assert.ok(crdEstablished(crd), `${kind.crdName} is not Established`);
      assert.ok(server.registry.get(kind.group, kind.version, kind.plural), `${kind.plural} is not served`);
    }
  });

  test('installing again is harmless and writes nothing: the CRDs stay Established and owned by the conductor apply manager', async () => {
    const before = server.store.currentRevision();
    const result = await installCrds(server.client);
    assert.deepEqual(
      result.names,
      allCrds().map((c) => c.metadata.name),
    );
    assert.deepEqual(result.applied, [], 'unchanged definitions are not applied again');
    assert.equal(server.store.currentRevision(), before, 'no write at all');
    for (const name of result.names) {
      const crd = await server.client.get(builtinRefs.customresourcedefinitions, name);
      assert.ok(crdEstablished(crd));
      const managers = (crd.metadata.managedFields ?? []).map((m) => `${m.manager}/${m.operation}`);
      assert.ok(managers.includes('conductor/Apply'), `${name}: ${managers.join(', ')}`);
    }
  });

  test('installing repairs a CRD someone changed', async () => {
    const name = mysqlInstanceKind.crdName;
    await server.client.patch(builtinRefs.customresourcedefinitions, name, 'merge', { spec: { names: { shortNames: ['my'] } } }, { fieldManager: 'someone' });
    const result = await installCrds(server.client);
    assert.deepEqual(result.applied, [name], 'only the changed CRD is applied again');
    const crd = await server.client.get(builtinRefs.customresourcedefinitions, name);
    assert.deepEqual((crd.spec as { names: { shortNames: string[] } }).names.shortNames, ['mysql']);
  });

  test("installing fails with the CRD's name when the server refuses it", async () => {
    const bad = mysqlInstanceKind.crd();
    (bad.spec as { names: { plural: string } }).names.plural = 'Not_A_Plural';
    await assert.rejects(installCrds(server.client, { crds: [bad], timeoutMs: 2000 }), /cannot install CRD mysqlinstances\.storage\.conductor\.io: .*plural/);
  });

  test('every kind accepts a sample written with its TypeScript type', async () => {
    for (const obj of [
      ...sampleObjects(NS),
      ...localSampleObjects(NS),
      ...memorySampleObjects(),
      ...kubernetesSampleObjects(),
      ...azureSampleObjects(),
      ...gcpSampleObjects(),
      ...awsSampleObjects(),
    ]) {
      const kind = allKinds.find((k) => k.kind === obj.kind)!;
      const ns = obj.metadata.namespace!;
      const created = await server.client.create(kind.ref, obj).catch((err: unknown) => {
        if (isApiError(err) && err.reason === 'AlreadyExists') return server.client.get(kind.ref, obj.metadata.name!, ns);
        throw err;
      });
      assert.equal(created.kind, obj.kind);
      const { apiVersion: _a, kind: _k, metadata: _m, ...fields } = obj;
      assert.ok(contains(created, fields), `${obj.kind} came back without some of its fields: ${JSON.stringify(created)}`);
    }
  });

  test("schema defaults fill in the common concrete fields and the shared server's sharing mode", async () => {
    const local = await server.client.create<LocalPostgreSQLInstance>(
      localPostgreSQLInstanceKind.ref,
      localPostgreSQLInstanceKind.make({
        metadata: { name: 'defaults', namespace: SYSTEM_NAMESPACE },
        spec: { rebindPolicy: 'Retain', managementPolicy: 'Full' },
      }),
    );
    assert.equal(local.spec.rebindPolicy, 'Retain');
    assert.equal(local.spec.managementPolicy, 'Full');
    assert.equal(local.spec.sharing, undefined);
    const bare = {
      apiVersion: postgresqlServerKind.apiVersion,
      kind: 'PostgreSQLServer',
      metadata: { name: 'bare', namespace: SYSTEM_NAMESPACE },
      spec: { host: 'h', adminCredentialsSecretRef: { name: 's' } },
    };
    const server2 = await server.client.create<PostgreSQLServer>(postgresqlServerKind.ref, bare as KObject as PostgreSQLServer);
    assert.equal(server2.spec.port, 5432);
    assert.equal(server2.spec.sslMode, 'prefer');
    assert.deepEqual(server2.spec.sharing, { mode: 'Shared' });
    assert.deepEqual(server2.spec.adminCredentialsSecretRef, { name: 's', usernameKey: 'username', passwordKey: 'password' });
    assert.equal(server2.spec.rebindPolicy, 'Retain');
    assert.equal(server2.spec.managementPolicy, 'Full');
  });

  test("a claim's status is written through the status subresource only", async () => {
    const ref = mysqlInstanceKind.ref;
    const claim = await server.client.create<MySQLInstance>(ref, mysqlInstanceKind.make({ metadata: { name: 'status-test', namespace: NS }, spec: {} }));
    const withStatus = await server.client.updateStatus<MySQLInstance>(ref, {
      ...claim,
      status: {
        phase: 'Bound',
        resourceRef: { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance', namespace: SYSTEM_NAMESPACE, name: 'x', uid: 'u' },
        conditions: [{ type: 'Bound', status: 'True', reason: 'Bound', message: '', lastTransitionTime: '2025-01-01T00:00:00Z' }],
        observedGeneration: 1,
      },
    });
    assert.equal(withStatus.status?.phase, 'Bound');
    const specWrite = await server.client.update<MySQLInstance>(ref, { ...withStatus, spec: { resourceClass: 'performance' }, status: { phase: 'Lost' } });
    assert.equal(specWrite.status?.phase, 'Bound', 'a main-resource write leaves status alone');
    assert.equal(specWrite.metadata.generation, 2);
  });

  type Case = { reason: string; ref: (typeof allKinds)[number]['ref']; obj: KObject; field: string; message: RegExp };
  const concrete = (spec: Record<string, unknown>): KObject => ({
    apiVersion: localPostgreSQLInstanceKind.apiVersion,
    kind: localPostgreSQLInstanceKind.kind,
    metadata: { name: 'bad', namespace: SYSTEM_NAMESPACE },
    spec,
  });
  const claim = (kind: { apiVersion: string; kind: string }, spec: Record<string, unknown>): KObject => ({
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name: 'bad', namespace: NS },
    spec,
  });
  const invalid: Case[] = [
    {
      reason: 'an unknown rebindPolicy on a concrete resource',
      ref: localPostgreSQLInstanceKind.ref,
      obj: concrete({ rebindPolicy: 'Keep' }),
      field: 'spec.rebindPolicy',
      message: /Unsupported value: "Keep": supported values: "Retain", "Delete", "Recycle"/,
    },
    {
      reason: 'an unknown rebindPolicy on a ResourceClass (a top-level field)',
      ref: resourceClassKind.ref,
      obj: {
        apiVersion: resourceClassKind.apiVersion,
        kind: 'ResourceClass',
        metadata: { name: 'bad', namespace: SYSTEM_NAMESPACE },
        rebindPolicy: 'Never',
        template: { apiVersion: 'a/v1', kind: 'K' },
      },
      field: 'rebindPolicy',
      message: /Unsupported value: "Never"/,
    },
    {
      reason: 'a capacity that is not a quantity',
      ref: mysqlInstanceKind.ref,
      obj: claim(mysqlInstanceKind, { requirements: { capacity: { storage: '25 gigs' } } }),
      field: 'spec.requirements.capacity[storage]',
      message: /should match/,
    },
    {
      reason: 'a negative capacity',
      ref: mysqlInstanceKind.ref,
      obj: claim(mysqlInstanceKind, { requirements: { capacity: { storage: -5 } } }),
      field: 'spec.requirements.capacity[storage]',
      message: /greater than or equal to 0/,
    },
    {
      reason: 'an unknown access mode',
      ref: volumeKind.ref,
      obj: claim(volumeKind, { accessMode: 'ReadOnlyMany' }),
      field: 'spec.accessMode',
      message: /Unsupported value/,
    },
    {
      reason: 'a load balancer target naming both an address and a Service',
      ref: loadBalancerKind.ref,
      obj: claim(loadBalancerKind, { targets: [{ address: 'h:80', serviceRef: { name: 's', port: 80 } }] }),
      field: 'spec.targets[0]',
      message: /exactly one of address, claimRef or serviceRef must be set/,
    },
    {
      reason: 'maxClaims on an exclusive resource',
      ref: localPostgreSQLInstanceKind.ref,
      obj: concrete({ sharing: { mode: 'Exclusive', maxClaims: 3 } }),
      field: 'spec.sharing.maxClaims',
      message: /maxClaims applies only to mode Shared/,
    },
    {
      reason: 'a pool whose minFree exceeds maxFree',
      ref: resourceClassKind.ref,
      obj: {
        apiVersion: resourceClassKind.apiVersion,
        kind: 'ResourceClass',
        metadata: { name: 'bad', namespace: SYSTEM_NAMESPACE },
        pool: { minFree: 3, maxFree: 1 },
        template: { apiVersion: 'a/v1', kind: 'K' },
      },
      field: 'pool',
      message: /minFree must not exceed maxFree/,
    },
    {
      reason: 'a claim without spec',
      ref: mysqlInstanceKind.ref,
      obj: { apiVersion: mysqlInstanceKind.apiVersion, kind: 'MySQLInstance', metadata: { name: 'bad', namespace: NS } },
      field: 'spec',
      message: /Required value/,
    },
  ];
  for (const c of invalid) {
    test(`422 naming the field for ${c.reason}`, async () => {
      await assert.rejects(server.client.create(c.ref, c.obj), (err: unknown) => {
        assert.ok(isApiError(err), String(err));
        assert.equal(err.code, 422, err.message);
        const causes = err.status.details?.causes ?? [];
        const cause = causes.find((x) => x.field === c.field);
        assert.ok(cause, `no cause for ${c.field} in ${JSON.stringify(causes)}`);
        assert.match(cause.message, c.message);
        assert.ok(err.message.includes(c.field), `the message names the field: ${err.message}`);
        return true;
      });
    });
  }

  test('the default SchedulerProfile is created when absent and never overwritten', async () => {
    const created = await ensureDefaultSchedulerProfile(server.client, 'elsewhere');
    assert.equal(created.metadata.name, DEFAULT_SCHEDULER_PROFILE_NAME);
    assert.deepEqual(created.spec.costTiers, ['free-tier', 'standard', 'premium']);
    assert.deepEqual(created.spec.performanceTiers, ['standard', 'performance', 'extreme']);
    assert.deepEqual(created.spec.regionHierarchy?.['north-america'], ['us-east-1', 'us-west-2', 'ca-central-1']);
    const edited = await server.client.patch<SchedulerProfile>(
      schedulerProfileKind.ref,
      DEFAULT_SCHEDULER_PROFILE_NAME,
      'merge',
      { spec: { costTiers: ['cheap', 'dear'] } },
      { namespace: 'elsewhere' },
    );
    const again = await ensureDefaultSchedulerProfile(server.client, 'elsewhere');
    assert.deepEqual(again.spec.costTiers, ['cheap', 'dear']);
    assert.equal(again.metadata.resourceVersion, edited.metadata.resourceVersion);
  });
});
