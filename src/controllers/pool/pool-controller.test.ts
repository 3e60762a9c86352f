/**
 * The PoolController against the in-process API server, with the managed reconciler (a
 * FakeExternal standing in for PostgreSQL) and the claim controller running beside it:
 * pools fill to minFree under deterministic names, a claim of the class's profile binds to
 * a free member and the pool refills, maxFree trims newest first, maxInstances caps, a
 * deleted class takes its free members with it, and two pool managers at once (a crash and
 * a restart overlapping) make no extras.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startConductor as startServer, type RunningConductor as RunningServer } from '../../conductor/index.js';
import { catalog } from '../../conductor/catalog.js';
import { builtinRefs, type Client, type DeleteOptions, type ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import { apiRefs, ensureDefaultSchedulerProfile, postgresqlInstanceKind } from '../../apis/index.js';
import { localPostgreSQLInstanceKind } from '../../providers/local/postgresql/kinds.js';
import type { ProviderModule } from '../../providers/spi.js';
import { ClaimController } from '../claims/claim-controller.js';
import { ProviderAccess } from '../claims/provider-access.js';
import { startManagedReconcilers, type RunningManagedReconcilers } from '../managed/index.js';
import { FakeExternal, fakeKind } from '../managed/testing/index.js';
import { PoolController, poolKindsOf, POOL_LABEL, poolReasons } from './index.js';

const SYS = 'pool-sys';
const APP = 'pool-app';
const pgRef = localPostgreSQLInstanceKind.ref;
const silent = pino({ level: 'silent' });

let server: RunningServer;
let dataDir: string;
let provider: ProviderModule;
let managed: RunningManagedReconcilers;
let claims: ClaimController;
let pools: PoolController;
/** Runs before each delete the pool manager sends: a test's way to win a race against it. */
let beforeDelete: ((name: string) => Promise<void>) | undefined;

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'conductor-pool-'));
  server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: silent, controllers: false });
  const c = server.client;
  await ensureDefaultSchedulerProfile(c);
  for (const ns of [SYS, APP]) await c.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const external = new FakeExternal();
  const kind = {
    ...fakeKind(external, {
      group: localPostgreSQLInstanceKind.group,
      version: localPostgreSQLInstanceKind.version,
      kind: localPostgreSQLInstanceKind.kind,
      plural: localPostgreSQLInstanceKind.plural,
    }),
    implements: [
      {
        claimKind: { group: postgresqlInstanceKind.group, kind: postgresqlInstanceKind.kind },
        connectionSecretKeys: ['host', 'port', 'username', 'password'],
        match: () => ({ fits: true as const }),
        configure: (_claim: KObject, t: { spec?: Record<string, unknown> }) => ({ ...(t.spec ?? {}) }) as never,
        formatConnection: (d: Record<string, string>) => d,
      },
    ],
  };
  provider = { type: 'local', kinds: [kind] };
  managed = startManagedReconcilers(c, [provider], { logger: silent });
  claims = new ClaimController(c, new ProviderAccess(c, [provider]), { logger: silent, kinds: catalog, systemNamespace: SYS });
  await claims.start();
  const hooked = new Proxy(c, {
    get(target, prop) {
      if (prop === 'delete') {
        return async (ref: ResourceRef, name: string, options?: DeleteOptions) => {
          await beforeDelete?.(name);
          return target.delete(ref, name, options);
        };
      }
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Client;
  pools = new PoolController(hooked, { kinds: poolKindsOf([provider]), logger: silent, memberNamespace: SYS });
  await pools.start();
});

after(async () => {
  pools?.stop();
  claims?.stop();
  await managed?.stop();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function applyClass(name: string, pool: Record<string, number>, template?: Record<string, unknown>): Promise<KObject> {
  const body: KObject = {
    apiVersion: 'core.conductor.io/v1alpha1',
    kind: 'ResourceClass',
    metadata: { name, namespace: SYS },
    resourceClass: name,
    supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
    rebindPolicy: 'Delete',
    capabilities: { capacity: { storage: '10Gi' } },
    pool,
    template: template ?? { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance', spec: { databaseName: 'app' } },
  };
  try {
    return await server.client.create(apiRefs.resourceclasses, body);
  } catch {
    return server.client.patch(apiRefs.resourceclasses, name, 'merge', { pool }, { namespace: SYS });
  }
}

async function membersOf(cls: string): Promise<KObject[]> {
  const list = await server.client.list(pgRef, { namespace: SYS, labelSelector: `conductor.io/resource-class=${SYS}.${cls}` });
  return list.items.sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!, 'en', { numeric: true }));
}

const phaseOf = (o: KObject) => (o.status as { phase?: string } | undefined)?.phase;
const names = (objs: KObject[]) => objs.map((o) => o.metadata.name);

async function eventsOf(cls: string, reason: string): Promise<KObject[]> {
  const list = await server.client.list(builtinRefs.events, { namespace: SYS });
  return list.items.filter((e) => (e.involvedObject as { name?: string }).name === cls && e.reason === reason);
}

/** Waits until the class has exactly `n` members, all Available and live. */
function availableMembers(cls: string, n: number): Promise<KObject[]> {
  return until(`${n} Available members of ${cls}`, async () => {
    const ms = (await membersOf(cls)).filter((m) => !m.metadata.deletionTimestamp);
    return ms.length === n && ms.every((m) => phaseOf(m) === 'Available') ? ms : undefined;
  });
}

describe('PoolController', () => {
  test('fills an empty pool to minFree under <class>-pool-<n>, unbound, and says so on the class', async () => {
    await applyClass('fill', { minFree: 2 });
    const ms = await availableMembers('fill', 2);
    assert.deepEqual(names(ms), ['fill-pool-0', 'fill-pool-1']);
    for (const m of ms) {
      assert.equal(m.metadata.labels?.[POOL_LABEL], 'true');
      assert.equal((m.spec as { claimRef?: unknown }).claimRef, undefined);
      assert.equal((m.spec as { resourceClass?: string }).resourceClass, 'fill');
      assert.equal((m.spec as { databaseName?: string }).databaseName, 'app', 'the template spec');
    }
    const ev = await until('a PoolScaledUp event', async () => (await eventsOf('fill', poolReasons.scaledUp))[0]);
    assert.match(String(ev.message), /fill-pool-0/);
    await sleep(300);
    assert.equal((await membersOf('fill')).length, 2, 'no more than minFree');
  });

  test('a claim of the profile binds to a free member at once, and the pool refills', async () => {
    await applyClass('warm', { minFree: 1 });
    const [member] = await availableMembers('warm', 1);
    const claim = await server.client.create<KObject>(postgresqlInstanceKind.ref, {
      apiVersion: 'storage.conductor.io/v1alpha1',
      kind: 'PostgreSQLInstance',
      metadata: { name: 'orders', namespace: APP },
      spec: { resourceClass: 'warm', requirements: { capacity: { storage: '5Gi' } } },
    });
    const bound = await until('the claim Bound', async () => {
      const c = await server.client.get(postgresqlInstanceKind.ref, 'orders', APP);
      return (c.status as { phase?: string } | undefined)?.phase === 'Bound' ? c : undefined;
    });
    const ref = (bound.status as { resourceRef: { name: string } }).resourceRef;
    assert.equal(ref.name, member.metadata.name, 'bound to the pool member, not a new resource');
    assert.deepEqual((bound.status as { classRef?: unknown }).classRef, { namespace: SYS, name: 'warm' });
    const taken = await server.client.get(pgRef, member.metadata.name!, SYS);
    assert.equal((taken.spec as { claimRef?: { uid?: string } }).claimRef?.uid, claim.metadata.uid);
    // The pool refills with the lowest free name, and nothing was provisioned for the claim itself.
    await until('a refill', async () => {
      const ms = await membersOf('warm');
      const free = ms.filter((m) => !(m.spec as { claimRef?: unknown }).claimRef && phaseOf(m) === 'Available');
      return free.length === 1 && free[0].metadata.name === 'warm-pool-1' ? true : undefined;
    });
    assert.deepEqual(names(await membersOf('warm')), ['warm-pool-0', 'warm-pool-1']);
  });

  test('maxFree deletes the surplus, newest first, with a PoolScaledDown event', async () => {
    await applyClass('trim', { minFree: 3 });
    await availableMembers('trim', 3);
    await applyClass('trim', { minFree: 1, maxFree: 1 });
    const left = await until('the pool trimmed to 1', async () => {
      const ms = (await membersOf('trim')).filter((m) => !m.metadata.deletionTimestamp);
      return ms.length === 1 ? ms : undefined;
    });
    assert.deepEqual(names(left), ['trim-pool-0'], 'the oldest stays');
    const ev = await until('a PoolScaledDown event', async () => (await eventsOf('trim', poolReasons.scaledDown))[0]);
    assert.match(String(ev.message), /maxFree 1/);
  });

  test('maxInstances caps the pool below minFree and a PoolCapped warning says why', async () => {
    await applyClass('capped', { minFree: 3, maxInstances: 2 });
    await availableMembers('capped', 2);
    const ev = await until('a PoolCapped event', async () => (await eventsOf('capped', poolReasons.capped))[0]);
    assert.equal(ev.type, 'Warning');
    assert.match(String(ev.message), /maxInstances 2/);
    await sleep(300);
    assert.equal((await membersOf('capped')).length, 2);
  });

  test('deleting the class deletes its free members; a member a claim holds stays', async () => {
    await applyClass('gone', { minFree: 1 });
    const [member] = await availableMembers('gone', 1);
    await server.client.create(postgresqlInstanceKind.ref, {
      apiVersion: 'storage.conductor.io/v1alpha1',
      kind: 'PostgreSQLInstance',
      metadata: { name: 'keeper', namespace: APP },
      spec: { resourceClass: 'gone' },
    });
    await until('the claim to take the member', async () => {
      const m = await server.client.get(pgRef, member.metadata.name!, SYS);
      return (m.spec as { claimRef?: unknown }).claimRef ? true : undefined;
    });
    await until('a refill', async () => ((await membersOf('gone')).length === 2 ? true : undefined));
    await server.client.delete(apiRefs.resourceclasses, 'gone', { namespace: SYS });
    const left = await until('the free member to go', async () => {
      const ms = await membersOf('gone');
      return ms.length === 1 ? ms : undefined;
    });
    assert.equal(left[0].metadata.name, member.metadata.name, 'the bound member stays');
  });

  test('a second pool manager running at once (a restart overlapping a crash) creates no extras', async () => {
    const second = new PoolController(server.client, { kinds: poolKindsOf([provider]), logger: silent, memberNamespace: SYS });
    await second.start();
    try {
      await applyClass('twice', { minFree: 3 });
      await availableMembers('twice', 3);
      await sleep(500);
      assert.deepEqual(names(await membersOf('twice')), ['twice-pool-0', 'twice-pool-1', 'twice-pool-2']);
    } finally {
      second.stop();
    }
  });

  test("a class in a tenant's namespace keeps its members in the system namespace, not the tenant's", async () => {
    await server.client.create(apiRefs.resourceclasses, {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name: 'tenant-pool', namespace: APP },
      supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
      pool: { minFree: 1 },
      template: { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance', spec: { databaseName: 'app' } },
    });
    const members = await until('a member of the tenant class', async () => {
      const list = await server.client.list(pgRef, { labelSelector: `conductor.io/resource-class=${APP}.tenant-pool` });
      return list.items.length > 0 ? list.items : undefined;
    });
    assert.deepEqual(
      members.map((m) => `${m.metadata.namespace}/${m.metadata.name}`),
      [`${SYS}/tenant-pool-pool-0`],
    );
    assert.equal((await server.client.list(pgRef, { namespace: APP })).items.length, 0, "nothing in the tenant's namespace");
    await server.client.delete(apiRefs.resourceclasses, 'tenant-pool', { namespace: APP });
  });

  test('a template of a kind no provider manages: a PoolTemplateUnsupported warning and nothing created', async () => {
    await applyClass('alien', { minFree: 1 }, { apiVersion: 'example.io/v1', kind: 'Teapot', spec: {} });
    const ev = await until('a PoolTemplateUnsupported event', async () => (await eventsOf('alien', poolReasons.templateUnsupported))[0]);
    assert.equal(ev.type, 'Warning');
    assert.match(String(ev.message), /Teapot/);
  });

  test('a template the API rejects: a PoolScaleUpFailed warning with the reason, and no member', async () => {
    await applyClass(
      'broken',
      { minFree: 1 },
      { apiVersion: 'database.local.conductor.io/v1alpha1', kind: 'LocalPostgreSQLInstance', spec: { port: 'not-a-port' } },
    );
    const ev = await until('a PoolScaleUpFailed event', async () => (await eventsOf('broken', poolReasons.cannotScaleUp))[0]);
    assert.equal(ev.type, 'Warning');
    assert.match(String(ev.message), /broken-pool-0.*port/);
    assert.deepEqual(await membersOf('broken'), []);
  });

  test('a member a claim takes just before the pool deletes it survives (the delete is compare-and-swap)', async () => {
    await applyClass('race', { minFree: 2 });
    await availableMembers('race', 2);
    const attempted: string[] = [];
    beforeDelete = async (name) => {
      attempted.push(name);
      // The claim controller wins: it writes claimRef between the pool's read and its delete.
      if (name === 'race-pool-1') {
        await server.client.patch(
          pgRef,
          name,
          'merge',
          {
            spec: {
              claimRef: { apiVersion: 'storage.conductor.io/v1alpha1', kind: 'PostgreSQLInstance', namespace: APP, name: 'winner', uid: 'uid-of-winner' },
            },
          },
          { namespace: SYS },
        );
      }
    };
    try {
      await applyClass('race', { minFree: 1, maxFree: 1 });
      await until('the pool to try deleting race-pool-1', () => (attempted.includes('race-pool-1') ? true : undefined));
      await sleep(500);
      const ms = await membersOf('race');
      assert.deepEqual(names(ms), ['race-pool-0', 'race-pool-1'], 'nothing deleted: one free (maxFree 1) and one taken');
      assert.equal((ms[1].spec as { claimRef?: { name?: string } }).claimRef?.name, 'winner');
      assert.equal(ms.filter((m) => m.metadata.deletionTimestamp).length, 0);
    } finally {
      beforeDelete = undefined;
    }
  });
});
