/**
 * The ClaimController's routing over the fake client, end to end within one process: a
 * pending claim binds and is published, a claim racing another writer (a second controller
 * whose write lands between this one's read and write) loses the compare-and-swap and stays
 * Pending, and a forged status gets nothing. Waits on conditions, never on time.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinRefs, type PatchOptions, type PatchType, type ResourceRef } from '../../client/types.js';
import { FakeClient } from '../../client/testing/fake-client.js';
import type { KObject } from '../../machinery/object.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import { eventually } from '../../../test/support/eventually.js';
import { ClaimReason } from './reasons.js';
import { APP, claim, claimRef, readyStatus, refTo, resource, resourceClass, resourceRef, runningController, secret, SYS } from './testing/harness.js';

type Seed = { ref: ResourceRef; obj: KObject };

async function running(
  seed: Seed[],
  wrap?: (client: FakeClient) => void,
): Promise<{ client: FakeClient; controller: Awaited<ReturnType<typeof runningController>> }> {
  const client = new FakeClient();
  for (const ns of [SYS, APP]) client.seed(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const { ref, obj } of seed) client.seed(ref, obj);
  wrap?.(client);
  return { client, controller: await runningController(client) };
}

const claimOf = (client: FakeClient, name: string) => client.stored<Claim>(claimRef, APP).find((c) => c.metadata.name === name);
const resourceOf = (client: FakeClient, name: string) => client.stored<ConcreteResource>(resourceRef, SYS).find((r) => r.metadata.name === name);
const condition = (c: Claim | undefined, type: string) => c?.status?.conditions?.find((x) => x.type === type);

describe('ClaimController', () => {
  test('a pending claim binds to a free ready resource and gets its connection Secret', async () => {
    const db = resource('db-1', { writeConnectionSecretToRef: { name: 'db-1-conn' } }, readyStatus({ phase: 'Available' }));
    const { client, controller } = await running([
      claim('mine', {}, { metadata: { name: 'mine', namespace: APP, uid: 'uid-mine' } }),
      db,
      secret(SYS, 'db-1-conn', { host: 'h', port: '1', username: 'u', password: 'p', database: 'd' }, db.obj),
    ]);
    try {
      const bound = await eventually(
        () => (condition(claimOf(client, 'mine'), 'Ready')?.status === 'True' ? claimOf(client, 'mine') : undefined),
        'the claim Ready',
        10_000,
      );
      assert.deepEqual(
        {
          phase: bound.status?.phase,
          resource: bound.status?.resourceRef?.name,
          claimRef: resourceOf(client, 'db-1')?.spec.claimRef?.uid,
          finalizers: bound.metadata.finalizers,
          secret: client.stored(builtinRefs.secrets, APP).some((s) => s.metadata.name === 'mine'),
        },
        { phase: 'Bound', resource: 'db-1', claimRef: 'uid-mine', finalizers: ['conductor.io/claim-protection'], secret: true },
      );
    } finally {
      controller.stop();
    }
  });

  test('a claim provisioned from a class gets one Bound event that names the class (no Provisioning event before it)', async () => {
    const { client, controller } = await running([claim('mine', { resourceClass: 'fast' }), resourceClass('fast')]);
    try {
      const made = await eventually(() => client.stored<ConcreteResource>(resourceRef, SYS)[0], 'the provisioned resource', 10_000);
      await eventually(() => (claimOf(client, 'mine')?.status?.phase === 'Bound' ? true : undefined), 'the claim Bound', 10_000);
      const events = await eventually(
        () => {
          const got = client.stored(builtinRefs.events, APP).map((e) => [e.reason, e.message] as const);
          return got.length > 0 ? got : undefined;
        },
        'the claim’s event',
        10_000,
      );
      assert.deepEqual(events, [[ClaimReason.Bound, `bound to MemoryDatabase ${SYS}/${made.metadata.name}, provisioned from class ${SYS}/fast`]]);
    } finally {
      controller.stop();
    }
  });

  test('racing another writer for the resource: the compare-and-swap fails, the claim stays Pending and the other keeps it', async () => {
    const { client, controller } = await running([claim('mine'), resource('db-1', {}, readyStatus({ phase: 'Available' }))], (c) => {
      const inner = c.patch;
      let raced = false;
      c.patch = async <T extends KObject = KObject>(ref: ResourceRef, name: string, type: PatchType, body: unknown, o?: PatchOptions): Promise<T> => {
        if (!raced && ref.resource === resourceRef.resource) {
          raced = true;
          // Another controller binds the resource first; this one's cache has not seen it.
          await inner(resourceRef, 'db-1', 'merge', { spec: { claimRef: refTo('other') } }, { namespace: SYS });
        }
        return inner<T>(ref, name, type, body, o);
      };
    });
    try {
      const pending = await eventually(
        () => {
          const c = claimOf(client, 'mine');
          return c?.status?.phase === 'Pending' && condition(c, 'Scheduled')?.reason === ClaimReason.Unschedulable ? c : undefined;
        },
        'the claim Pending with the reason',
        10_000,
      );
      assert.equal(pending.status?.resourceRef, undefined, 'the claim names no resource');
      assert.equal(resourceOf(client, 'db-1')?.spec.claimRef?.uid, 'uid-other', 'the other writer keeps the resource');
    } finally {
      controller.stop();
    }
  });

  test('a forged status naming another claim’s resource makes the claim Lost and publishes nothing', async () => {
    const db = resource('db-1', { claimRef: refTo('other'), writeConnectionSecretToRef: { name: 'db-1-conn' } }, readyStatus({ phase: 'Bound' }));
    const forged = { phase: 'Bound', resourceRef: { apiVersion: db.obj.apiVersion, kind: 'MemoryDatabase', namespace: SYS, name: 'db-1', uid: 'uid-db-1' } };
    const { client, controller } = await running([
      claim('mine', {}, { status: forged } as Partial<Claim>),
      db,
      secret(SYS, 'db-1-conn', { password: 'victim' }, db.obj),
    ]);
    try {
      const lost = await eventually(() => (claimOf(client, 'mine')?.status?.phase === 'Lost' ? claimOf(client, 'mine') : undefined), 'the claim Lost', 10_000);
      assert.deepEqual(
        {
          bound: `${condition(lost, 'Bound')?.status}/${condition(lost, 'Bound')?.reason}`,
          secret: client.stored(builtinRefs.secrets, APP).map((s) => s.metadata.name),
          claimRef: resourceOf(client, 'db-1')?.spec.claimRef?.uid,
        },
        { bound: `False/${ClaimReason.ResourceLost}`, secret: [], claimRef: 'uid-other' },
      );
    } finally {
      controller.stop();
    }
  });
});
