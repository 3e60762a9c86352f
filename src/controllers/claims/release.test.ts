/**
 * The Releaser over the fake client, table-driven: a deleted claim's resource is let go by
 * its rebind policy (Exclusive: Released, deleted, or scrubbed and Available; Shared: the
 * claim's share unbound by the provider and its binding dropped), only when the resource
 * records the claim — a forged status releases nothing — and the finalizer goes either way.
 * A claim whose resource does not record it is marked Lost once.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinRefs, type ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import { bindingSecretName } from './names.js';
import { ClaimReason } from './reasons.js';
import { Releaser } from './release.js';
import { APP, claim, claimRef, harness, readyStatus, refTo, resource, resourceRef, secret, SYS } from './testing/harness.js';

type Seed = { ref: ResourceRef; obj: KObject };

const deleting = {
  metadata: { name: 'mine', namespace: APP, uid: 'uid-mine', finalizers: ['conductor.io/claim-protection'], deletionTimestamp: '2026-01-01T00:00:00Z' },
};
const statusNaming = (name: string) => ({
  phase: 'Bound' as const,
  resourceRef: { apiVersion: resource(name).obj.apiVersion, kind: 'MemoryDatabase', namespace: SYS, name, uid: `uid-${name}` },
});
const deletedClaim = (status = statusNaming('db-1')) => claim('mine', {}, { ...deleting, status });

describe('Releaser.release', () => {
  interface Case {
    reason: string;
    seed: Seed[];
    sharing?: 'Exclusive' | 'Shared';
    want: {
      /** The resource afterwards: null when deleted. */
      resource: null | { phase?: string; claimRefUid: string | null; bindings?: string[] };
      provider: string[];
      claimGone: boolean;
      resourceEvents: string[];
    };
  }
  const cases: Case[] = [
    {
      reason: 'Retain: the resource is Released and keeps its claimRef for the record',
      seed: [deletedClaim(), resource('db-1', { claimRef: refTo('mine'), rebindPolicy: 'Retain' }, readyStatus({ phase: 'Bound', claim: `${APP}/mine` }))],
      want: { resource: { phase: 'Released', claimRefUid: 'uid-mine' }, provider: [], claimGone: true, resourceEvents: [ClaimReason.Released] },
    },
    {
      reason: 'Delete: the resource is deleted',
      seed: [deletedClaim(), resource('db-1', { claimRef: refTo('mine'), rebindPolicy: 'Delete' }, readyStatus({ phase: 'Bound' }))],
      want: { resource: null, provider: [], claimGone: true, resourceEvents: [] },
    },
    {
      reason: 'Recycle: the provider scrubs the data, the claimRef is cleared and the resource is Available again',
      seed: [deletedClaim(), resource('db-1', { claimRef: refTo('mine'), rebindPolicy: 'Recycle' }, readyStatus({ phase: 'Bound' }))],
      want: {
        resource: { phase: 'Available', claimRefUid: null },
        provider: ['connect', 'scrub', 'close'],
        claimGone: true,
        resourceEvents: [ClaimReason.Recycled],
      },
    },
    {
      reason: 'Shared: the provider unbinds the claim’s share by policy and the binding is dropped; other claims keep theirs',
      sharing: 'Shared',
      seed: [
        deletedClaim(),
        resource(
          'db-1',
          { sharing: { mode: 'Shared' }, rebindPolicy: 'Delete' },
          readyStatus({ phase: 'Bound', bindings: [{ claimRef: refTo('other') }, { claimRef: refTo('mine') }] }),
        ),
      ],
      want: {
        resource: { phase: 'Bound', claimRefUid: null, bindings: ['other'] },
        provider: ['connect', 'unbindClaim:Delete', 'close'],
        claimGone: true,
        resourceEvents: [ClaimReason.Released],
      },
    },
    {
      reason: 'a forged status naming another claim’s resource releases nothing of it; the claim still goes',
      seed: [deletedClaim(), resource('db-1', { claimRef: refTo('other'), rebindPolicy: 'Delete' }, readyStatus({ phase: 'Bound' }))],
      want: { resource: { phase: 'Bound', claimRefUid: 'uid-other' }, provider: [], claimGone: true, resourceEvents: [] },
    },
    {
      reason: 'a claim whose status names nothing releases the resource that records it (a crash before the claim’s side was written)',
      seed: [claim('mine', {}, deleting), resource('db-2', { claimRef: refTo('mine'), rebindPolicy: 'Retain' }, readyStatus({ phase: 'Bound' }))],
      want: { resource: null, provider: [], claimGone: true, resourceEvents: [] },
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness(c.seed, { sharing: c.sharing });
      try {
        const r = new Releaser({ client: h.client, caches: h.caches, access: h.access });
        await r.release(h.claims, h.claims.informer.store.get(APP, 'mine')!);
        const after = h.stored<ConcreteResource>(resourceRef, SYS, 'db-1');
        const got: Case['want'] = {
          resource: after
            ? {
                ...(after.status?.phase ? { phase: after.status.phase } : {}),
                claimRefUid: after.spec.claimRef?.uid ?? null,
                ...(c.want.resource?.bindings ? { bindings: (after.status?.bindings ?? []).map((b) => b.claimRef.name) } : {}),
              }
            : null,
          provider: h.provider.calls.map((x) => (x.policy ? `${x.method}:${x.policy}` : x.method)),
          claimGone: h.stored(claimRef, APP, 'mine') === undefined,
          resourceEvents: h.events('db-1').map((e) => e.reason),
        };
        assert.deepEqual(got, c.want);
        if (c.reason.startsWith('a claim whose status names nothing')) {
          assert.equal(h.stored<ConcreteResource>(resourceRef, SYS, 'db-2')?.status?.phase, 'Released', 'the resource recording the claim is released');
        }
      } finally {
        h.stop();
      }
    });
  }

  test('Shared: the claim’s binding Secret goes with its binding', async () => {
    const shared = resource(
      'db-1',
      { sharing: { mode: 'Shared' }, rebindPolicy: 'Retain' },
      readyStatus({ phase: 'Bound', bindings: [{ claimRef: refTo('mine') }] }),
    );
    const mine = deletedClaim();
    const name = bindingSecretName(shared.obj, mine.obj);
    const h = await harness([mine, shared, secret(SYS, name, { username: 'u' }, shared.obj)], { sharing: 'Shared' });
    try {
      await new Releaser({ client: h.client, caches: h.caches, access: h.access }).release(h.claims, h.claims.informer.store.get(APP, 'mine')!);
      assert.deepEqual(
        { secret: h.stored(builtinRefs.secrets, SYS, name) ?? null, phase: h.stored<ConcreteResource>(resourceRef, SYS, 'db-1')!.status?.phase },
        { secret: null, phase: 'Available' },
      );
    } finally {
      h.stop();
    }
  });
});

describe('Releaser.markLost', () => {
  const cases = [
    {
      reason: 'a bound claim whose resource is gone: Lost, Bound=False and Ready=False ResourceLost, a ClaimLost Warning',
      status: statusNaming('gone'),
      want: {
        phase: 'Lost',
        conditions: [`Bound=False/${ClaimReason.ResourceLost}`, `Ready=False/${ClaimReason.ResourceLost}`],
        writes: 1,
        events: [ClaimReason.ClaimLost],
      },
    },
    {
      reason: 'already Lost: nothing is written again',
      status: { ...statusNaming('gone'), phase: 'Lost' as const },
      want: { phase: 'Lost', conditions: [] as string[], writes: 0, events: [] as string[] },
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness([claim('mine', {}, { status: c.status })]);
      try {
        await new Releaser({ client: h.client, caches: h.caches, access: h.access }).markLost(
          h.claims,
          h.claims.informer.store.get(APP, 'mine')!,
          c.status.resourceRef,
        );
        const st = h.stored<Claim>(claimRef, APP, 'mine')!.status!;
        assert.deepEqual(
          {
            phase: st.phase,
            conditions: (st.conditions ?? []).map((x) => `${x.type}=${x.status}/${x.reason}`),
            writes: h.writes('updateStatus', claimRef.resource),
            events: h.events('mine').map((e) => e.reason),
          },
          c.want,
        );
        if (c.want.writes) assert.equal(st.conditions![0].message, `MemoryDatabase ${SYS}/gone no longer exists or is not bound to this claim`);
      } finally {
        h.stop();
      }
    });
  }
});
