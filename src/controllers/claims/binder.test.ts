/**
 * The Binder over the fake client, table-driven: each case seeds a world, binds a claim to a
 * candidate (as the scheduler chose it, possibly from a stale view) and compares what the
 * resource records, what came back and how many writes were made with what it wants.
 * Races are interleaved by wrapping the fake client's verbs (function fields): a competing
 * write lands between the binder's read and its write.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import type { PatchOptions, PatchType, ResourceRef } from '../../client/types.js';
import { Binder } from './binder.js';
import { ClaimReason } from './reasons.js';
import { APP, candidateOf, claim, claimRef, harness, readyStatus, refTo, resource, resourceRef, SYS, type Harness } from './testing/harness.js';

type Seed = { ref: ResourceRef; obj: KObject };

function binderFor(h: Harness, synced: { calls: number } = { calls: 0 }): Binder {
  return new Binder({
    client: h.client,
    caches: h.caches,
    scheduler: h.feed.scheduler,
    resourceSeen: (entry, r) => h.feed.resource(entry, r),
    syncBound: async () => {
      synced.calls++;
    },
  });
}

/** Makes `competitor` write once, just before the first patch of a MemoryDatabase goes through. */
function beforeFirstResourcePatch(h: Harness, competitor: () => Promise<unknown>): void {
  const inner = h.client.patch;
  let done = false;
  h.client.patch = async <T extends KObject = KObject>(ref: ResourceRef, name: string, type: PatchType, body: unknown, o?: PatchOptions): Promise<T> => {
    if (!done && ref.resource === resourceRef.resource) {
      done = true;
      await competitor();
    }
    return inner<T>(ref, name, type, body, o);
  };
}

describe('Binder.bindResource', () => {
  interface Case {
    reason: string;
    seed: Seed[];
    sharing?: 'Exclusive' | 'Shared';
    /** The resource the scheduler chose, as it saw it (default: as seeded). */
    chosen?: KObject;
    /** A competing write between the binder's read and its write. */
    race?: (h: Harness) => Promise<unknown>;
    want: {
      outcome?: 'bound' | 'taken' | 'being-deleted' | 'kind-not-served';
      /** The HTTP code of the error bindResource throws instead. */
      error?: number;
      /** The uid of the claim spec.claimRef names afterwards (null: none). */
      claimRefUid: string | null;
      /** Claims in status.bindings afterwards (Shared). */
      bindings?: string[];
      allocatable?: Record<string, string>;
      resourcePatches: number;
    };
  }
  const other = refTo('other');
  const cases: Case[] = [
    {
      reason: 'static bind: an unbound Exclusive resource gets the claim’s claimRef',
      seed: [claim('mine'), resource('db-1', {}, { phase: 'Available' })],
      want: { outcome: 'bound', claimRefUid: 'uid-mine', resourcePatches: 1 },
    },
    {
      reason: 'an administrator’s reservation (claimRef without uid) is taken up and gets the uid',
      seed: [claim('mine'), resource('db-1', { claimRef: { namespace: APP, name: 'mine' } }, { phase: 'Available' })],
      want: { outcome: 'bound', claimRefUid: 'uid-mine', resourcePatches: 1 },
    },
    {
      reason: 'taken meanwhile: the cache shows another claim’s claimRef that the scheduler had not seen: nothing is written',
      seed: [claim('mine'), resource('db-1', { claimRef: other }, { phase: 'Bound' })],
      chosen: resource('db-1', {}, { phase: 'Available' }).obj,
      want: { outcome: 'taken', claimRefUid: 'uid-other', resourcePatches: 0 },
    },
    {
      reason: 'a reservation for another claim of the same name in another namespace is not taken',
      seed: [claim('mine'), resource('db-1', { claimRef: { namespace: 'elsewhere', name: 'mine' } }, { phase: 'Available' })],
      chosen: resource('db-1', {}, { phase: 'Available' }).obj,
      want: { outcome: 'taken', claimRefUid: null, resourcePatches: 0 },
    },
    {
      reason: 'compare-and-swap: another claim binds the resource between the read and the write: 409, the other keeps it',
      seed: [claim('mine'), resource('db-1', {}, { phase: 'Available' })],
      race: (h) => h.client.patch(resourceRef, 'db-1', 'merge', { spec: { claimRef: other } }, { namespace: SYS }),
      want: { error: 409, claimRefUid: 'uid-other', resourcePatches: 2 },
    },
    {
      reason: 'a resource being deleted takes no new claim',
      seed: [claim('mine'), resource('db-1', {}, { phase: 'Available' }, { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['conductor.io/in-use'] })],
      want: { outcome: 'being-deleted', claimRefUid: null, resourcePatches: 0 },
    },
    {
      reason: 'a candidate of a kind the controller does not serve is not bound',
      seed: [claim('mine'), resource('db-1', {}, { phase: 'Available' })],
      chosen: { ...resource('db-1').obj, apiVersion: 'database.elsewhere.conductor.io/v1alpha1', kind: 'OtherDatabase' },
      want: { outcome: 'kind-not-served', claimRefUid: null, resourcePatches: 0 },
    },
    {
      reason: 'Shared: the claim is appended to status.bindings and allocatable recomputed, spec untouched',
      sharing: 'Shared',
      seed: [
        claim('mine', { requirements: { capacity: { storage: '3Gi' } } }),
        resource(
          'db-1',
          { sharing: { mode: 'Shared' }, capabilities: { capacity: { storage: '10Gi' } } },
          readyStatus({ phase: 'Bound', bindings: [{ claimRef: other, requests: { storage: '2Gi' } }] }),
        ),
      ],
      want: { outcome: 'bound', claimRefUid: null, bindings: ['other', 'mine'], allocatable: { storage: '5Gi' }, resourcePatches: 0 },
    },
    {
      reason: 'Shared, compare-and-swap: a binding written meanwhile makes the status write fail, and is kept',
      sharing: 'Shared',
      seed: [claim('mine'), resource('db-1', { sharing: { mode: 'Shared' } }, readyStatus({ phase: 'Available', bindings: [] }))],
      race: async () => {},
      want: { error: 409, claimRefUid: null, bindings: ['other'], resourcePatches: 0 },
    },
  ];

  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness(c.seed, { sharing: c.sharing });
      try {
        const binder = binderFor(h);
        const mine = h.claims.informer.store.get(APP, 'mine')!;
        const chosen = c.chosen ?? h.stored(resourceRef, SYS, 'db-1')!;
        if (c.race && c.sharing === 'Shared') {
          // The competing binding lands right before the binder's status write.
          const inner = h.client.updateStatus;
          let done = false;
          h.client.updateStatus = async <T extends KObject = KObject>(ref: ResourceRef, obj: T, o?: { fieldManager?: string }): Promise<T> => {
            if (!done && ref.resource === resourceRef.resource) {
              done = true;
              const cur = h.stored<ConcreteResource>(resourceRef, SYS, 'db-1')!;
              await inner(resourceRef, { ...cur, status: { ...cur.status, bindings: [{ claimRef: other }] } });
            }
            return inner<T>(ref, obj, o);
          };
        } else if (c.race) {
          const race = c.race;
          beforeFirstResourcePatch(h, () => race(h));
        }
        let outcome: string | undefined;
        let error: number | undefined;
        try {
          outcome = (await binder.bindResource(mine, candidateOf(chosen))).type;
        } catch (err) {
          if (!isApiError(err)) throw err;
          error = err.code;
        }
        const after = h.stored<ConcreteResource>(resourceRef, SYS, 'db-1')!;
        const got: Case['want'] = {
          ...(outcome !== undefined ? { outcome: outcome as Case['want']['outcome'] } : {}),
          ...(error !== undefined ? { error } : {}),
          claimRefUid: after.spec.claimRef?.uid ?? null,
          ...(c.want.bindings ? { bindings: (after.status?.bindings ?? []).map((b) => b.claimRef.name) } : {}),
          ...(c.want.allocatable ? { allocatable: after.status?.allocatable as Record<string, string> } : {}),
          resourcePatches: h.writes('patch', resourceRef.resource),
        };
        assert.deepEqual(got, c.want);
      } finally {
        h.stop();
      }
    });
  }
});

describe('Binder.reserve', () => {
  const cases = [
    { reason: 'a free resource is reserved, and a second claim cannot reserve it', second: 'other', want: [true, false] },
    { reason: 'the same claim may reserve again (a retry)', second: 'mine', want: [true, true] },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness([claim('mine'), claim('other'), resource('db-1', {}, { phase: 'Available' })]);
      try {
        const binder = binderFor(h);
        const store = h.claims.informer.store;
        const cand = candidateOf(h.stored(resourceRef, SYS, 'db-1')!);
        h.feed.resource(h.concrete, h.stored<ConcreteResource>(resourceRef, SYS, 'db-1')!);
        const got = [binder.reserve(cand, store.get(APP, 'mine')!), binder.reserve(cand, store.get(APP, c.second)!)];
        assert.deepEqual(got, c.want);
      } finally {
        h.stop();
      }
    });
  }
});

describe('Binder.schedule', () => {
  test('two claims scheduled at once (two workers) never get the same resource: the second is told none fits', async () => {
    const h = await harness([claim('mine'), claim('other'), resource('db-1', {}, { phase: 'Available' })]);
    try {
      const binder = binderFor(h);
      const store = h.claims.informer.store;
      h.feed.resource(h.concrete, h.stored<ConcreteResource>(resourceRef, SYS, 'db-1')!);
      const [a, b] = await Promise.all([binder.schedule(store.get(APP, 'mine')!), binder.schedule(store.get(APP, 'other')!)]);
      const chosen = (s: typeof a) => (s.result.decision.type === 'resource' ? s.result.decision.candidate.name : s.result.decision.type);
      assert.deepEqual([chosen(a), a.reserved, chosen(b)], ['db-1', true, 'none']);
    } finally {
      h.stop();
    }
  });
});

describe('Binder: the claim’s side', () => {
  test('finishBinding onto a resource not yet ready: the claim is Bound with its resourceRef, Ready=False Waiting, one Bound Event', async () => {
    const h = await harness([claim('mine'), resource('db-1', { claimRef: refTo('mine') }, { phase: 'Bound' })]);
    try {
      const synced = { calls: 0 };
      const binder = binderFor(h, synced);
      const mine = h.claims.informer.store.get(APP, 'mine')!;
      await binder.finishBinding(h.claims, mine, h.concrete, h.concrete.informer.store.get(SYS, 'db-1')!, 'chosen: db-1');
      const got = h.stored<Claim>(claimRef, APP, 'mine')!.status!;
      assert.deepEqual(
        {
          phase: got.phase,
          resourceRef: got.resourceRef,
          conditions: got.conditions?.map((x) => `${x.type}=${x.status}/${x.reason}`),
          scheduled: got.conditions?.find((x) => x.type === 'Scheduled')?.message,
          events: h.events('mine').map((e) => e.reason),
          synced: synced.calls,
        },
        {
          phase: 'Bound',
          resourceRef: { apiVersion: resource('db-1').obj.apiVersion, kind: 'MemoryDatabase', namespace: SYS, name: 'db-1', uid: 'uid-db-1' },
          conditions: ['Scheduled=True/Scheduled', 'Bound=True/Bound', `Ready=False/${ClaimReason.Waiting}`],
          scheduled: 'chosen: db-1',
          events: [ClaimReason.Bound],
          synced: 0,
        },
      );
    } finally {
      h.stop();
    }
  });

  test('finishBinding onto a ready resource hands over to syncBound (one status write with the connection)', async () => {
    const h = await harness([claim('mine'), resource('db-1', { claimRef: refTo('mine') }, readyStatus({ phase: 'Bound' }))]);
    try {
      const synced = { calls: 0 };
      const binder = binderFor(h, synced);
      await binder.finishBinding(h.claims, h.claims.informer.store.get(APP, 'mine')!, h.concrete, h.concrete.informer.store.get(SYS, 'db-1')!);
      assert.deepEqual({ synced: synced.calls, claimStatusWrites: h.writes('updateStatus', claimRef.resource) }, { synced: 1, claimStatusWrites: 0 });
    } finally {
      h.stop();
    }
  });

  test('markPending writes Scheduled=False Unschedulable and a FailedScheduling Event once; the same words again write nothing', async () => {
    const h = await harness([claim('mine')]);
    try {
      const binder = binderFor(h);
      await binder.markPending(h.claims, h.claims.informer.store.get(APP, 'mine')!, '0/0 candidates');
      await h.client.settle();
      await binder.markPending(h.claims, h.claims.informer.store.get(APP, 'mine')!, '0/0 candidates');
      const st = h.stored<Claim>(claimRef, APP, 'mine')!.status!;
      assert.deepEqual(
        {
          phase: st.phase,
          scheduled: st.conditions?.map((x) => `${x.type}=${x.status}/${x.reason}: ${x.message}`),
          writes: h.writes('updateStatus', claimRef.resource),
          events: h.events('mine').map((e) => e.reason),
        },
        { phase: 'Pending', scheduled: ['Scheduled=False/Unschedulable: 0/0 candidates'], writes: 1, events: [ClaimReason.FailedScheduling] },
      );
    } finally {
      h.stop();
    }
  });
});
