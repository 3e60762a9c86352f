/**
 * The Resizer over the fake client, table-driven: a bound claim asking for more grows a
 * class-provisioned Exclusive resource within its class, or takes more of a Shared resource's
 * allocatable; otherwise its Resized condition says why — and nothing is written when there
 * is nothing to do.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import { CLASS_LABEL } from './labels.js';
import { ClaimReason } from './reasons.js';
import { Resizer } from './resize.js';
import { APP, claim, claimRef, harness, readyStatus, refTo, resource, resourceClass, resourceRef, SYS } from './testing/harness.js';

type Seed = { ref: ResourceRef; obj: KObject };

const asking = (storage: string, status?: Record<string, unknown>) => claim('mine', { requirements: { capacity: { storage } } }, status ? { status } : {});
const provisioned = { labels: { [CLASS_LABEL]: `${SYS}.fast` } };

describe('Resizer.resize', () => {
  interface Case {
    reason: string;
    seed: Seed[];
    sharing?: 'Exclusive' | 'Shared';
    want: {
      wrote: boolean;
      capacity?: unknown;
      myRequests?: unknown;
      allocatable?: unknown;
      resized?: string;
      resourcePatches: number;
      events: string[];
    };
  }
  const cases: Case[] = [
    {
      reason: 'Exclusive from a class allowing it: the resource grows to what the claim asks',
      seed: [
        asking('8Gi'),
        resourceClass('fast', { capabilities: { capacity: { storage: '20Gi' } } }),
        resource('db-1', { claimRef: refTo('mine'), capabilities: { capacity: { storage: '5Gi' } } }, readyStatus(), provisioned),
      ],
      want: { wrote: true, capacity: { storage: '8Gi' }, resourcePatches: 1, events: [ClaimReason.Resizing] },
    },
    {
      reason: 'Exclusive beyond its class’s capabilities: Resized=False, nothing grows',
      seed: [
        asking('50Gi'),
        resourceClass('fast', { capabilities: { capacity: { storage: '20Gi' } } }),
        resource('db-1', { claimRef: refTo('mine'), capabilities: { capacity: { storage: '5Gi' } } }, readyStatus(), provisioned),
      ],
      want: {
        wrote: true,
        capacity: { storage: '5Gi' },
        resized: `False/${ClaimReason.ResizeNotPossible}`,
        resourcePatches: 0,
        events: [ClaimReason.ResizeNotPossible],
      },
    },
    {
      reason: 'Exclusive not provisioned from a class cannot grow: Resized=False',
      seed: [asking('8Gi'), resource('db-1', { claimRef: refTo('mine'), capabilities: { capacity: { storage: '5Gi' } } }, readyStatus())],
      want: {
        wrote: true,
        capacity: { storage: '5Gi' },
        resized: `False/${ClaimReason.ResizeNotPossible}`,
        resourcePatches: 0,
        events: [ClaimReason.ResizeNotPossible],
      },
    },
    {
      reason: 'Exclusive already big enough: nothing to write',
      seed: [asking('5Gi'), resource('db-1', { claimRef: refTo('mine'), capabilities: { capacity: { storage: '10Gi' } } }, readyStatus())],
      want: { wrote: false, capacity: { storage: '10Gi' }, resourcePatches: 0, events: [] },
    },
    {
      reason: 'after a resize that was refused, enough again: Resized=True',
      seed: [
        asking('5Gi', {
          phase: 'Bound',
          conditions: [{ type: 'Resized', status: 'False', reason: 'ResizeNotPossible', message: 'no', lastTransitionTime: '2026-01-01T00:00:00Z' }],
        }),
        resource('db-1', { claimRef: refTo('mine'), capabilities: { capacity: { storage: '10Gi' } } }, readyStatus()),
      ],
      want: { wrote: true, capacity: { storage: '10Gi' }, resized: `True/${ClaimReason.Resized}`, resourcePatches: 0, events: [] },
    },
    {
      reason: 'Shared with room: the claim’s binding takes more and allocatable follows',
      sharing: 'Shared',
      seed: [
        asking('6Gi'),
        resource(
          'db-1',
          { sharing: { mode: 'Shared' }, capabilities: { capacity: { storage: '10Gi' } } },
          readyStatus({ bindings: [{ claimRef: refTo('mine'), requests: { storage: '2Gi' } }], allocatable: { storage: '8Gi' } }),
        ),
      ],
      want: { wrote: true, myRequests: { storage: '6Gi' }, allocatable: { storage: '4Gi' }, resourcePatches: 0, events: [] },
    },
    {
      reason: 'Shared without room: Resized=False says what is left',
      sharing: 'Shared',
      seed: [
        asking('9Gi'),
        resource(
          'db-1',
          { sharing: { mode: 'Shared' }, capabilities: { capacity: { storage: '10Gi' } } },
          readyStatus({
            bindings: [
              { claimRef: refTo('mine'), requests: { storage: '2Gi' } },
              { claimRef: refTo('other'), requests: { storage: '5Gi' } },
            ],
            allocatable: { storage: '3Gi' },
          }),
        ),
      ],
      want: {
        wrote: true,
        myRequests: { storage: '2Gi' },
        allocatable: { storage: '3Gi' },
        resized: `False/${ClaimReason.ResizeNotPossible}`,
        resourcePatches: 0,
        events: [ClaimReason.ResizeNotPossible],
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness(c.seed, { sharing: c.sharing });
      try {
        const wrote = await new Resizer({ client: h.client, caches: h.caches }).resize(
          h.claims,
          h.claims.informer.store.get(APP, 'mine')!,
          h.concrete,
          h.concrete.informer.store.get(SYS, 'db-1')!,
        );
        const after = h.stored<ConcreteResource>(resourceRef, SYS, 'db-1')!;
        const resized = h.stored<Claim>(claimRef, APP, 'mine')!.status?.conditions?.find((x) => x.type === 'Resized');
        const got: Case['want'] = {
          wrote,
          ...('capacity' in c.want ? { capacity: after.spec.capabilities?.capacity } : {}),
          ...('myRequests' in c.want ? { myRequests: after.status?.bindings?.find((b) => b.claimRef.name === 'mine')?.requests } : {}),
          ...('allocatable' in c.want ? { allocatable: after.status?.allocatable } : {}),
          ...(resized ? { resized: `${resized.status}/${resized.reason}` } : {}),
          resourcePatches: h.writes('patch', resourceRef.resource),
          events: h.events('mine').map((e) => e.reason),
        };
        assert.deepEqual(got, c.want);
      } finally {
        h.stop();
      }
    });
  }
});
