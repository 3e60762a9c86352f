import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planPool } from './sizing.js';
import type { MemberState, PoolMember } from './members.js';
import type { PoolSettings } from './pool-settings.js';

/** m builds a member: `pool-<n>` created at second n unless told otherwise. */
function m(n: number, state: MemberState, opts: { available?: boolean; pooled?: boolean; createdAt?: number } = {}): PoolMember {
  return {
    kind: 'LocalPostgreSQLInstance',
    name: `c-pool-${n}`,
    namespace: 'sys',
    uid: `uid-${n}`,
    resourceVersion: String(n + 1),
    pooled: opts.pooled ?? true,
    state,
    available: opts.available ?? state !== 'deleting',
    createdAt: opts.createdAt ?? n * 1000,
  };
}

const settings = (minFree: number, maxFree = 0, maxInstances = 0): PoolSettings => ({ minFree, maxFree, maxInstances });

describe('planPool', () => {
  const cases: {
    reason: string;
    settings: PoolSettings;
    members: PoolMember[];
    create: number;
    deletes: string[];
    capped?: boolean;
    trimReason?: string;
  }[] = [
    { reason: 'no pool and no resources: nothing to do', settings: settings(0), members: [], create: 0, deletes: [] },
    { reason: 'an empty pool fills to minFree', settings: settings(3), members: [], create: 3, deletes: [] },
    { reason: 'bound resources do not count as free', settings: settings(2), members: [m(0, 'taken'), m(1, 'taken'), m(2, 'free')], create: 1, deletes: [] },
    {
      reason: 'members still provisioning count as free, so none are added while they come up',
      settings: settings(2),
      members: [m(0, 'free', { available: false }), m(1, 'free', { available: false })],
      create: 0,
      deletes: [],
    },
    { reason: 'resources being deleted are not free', settings: settings(1), members: [m(0, 'deleting')], create: 1, deletes: [] },
    {
      reason: 'unbound resources the claim controller made (recycled) count as free',
      settings: settings(1),
      members: [m(0, 'free', { pooled: false })],
      create: 0,
      deletes: [],
    },
    {
      reason: 'maxInstances limits the fill to the room left',
      settings: settings(3, 0, 4),
      members: [m(0, 'taken'), m(1, 'taken'), m(2, 'free')],
      create: 1,
      deletes: [],
      capped: true,
    },
    {
      reason: 'resources being deleted still count against maxInstances',
      settings: settings(2, 0, 2),
      members: [m(0, 'deleting'), m(1, 'taken')],
      create: 0,
      deletes: [],
      capped: true,
    },
    {
      reason: 'a full class cannot fill at all and says so',
      settings: settings(1, 0, 2),
      members: [m(0, 'taken'), m(1, 'taken')],
      create: 0,
      deletes: [],
      capped: true,
    },
    {
      reason: 'free members above maxFree go, newest first',
      settings: settings(1, 2),
      members: [m(0, 'free'), m(1, 'free'), m(2, 'free'), m(3, 'free'), m(4, 'taken')],
      create: 0,
      deletes: ['c-pool-3', 'c-pool-2'],
      trimReason: 'surplus',
    },
    {
      reason: 'only Available members are deleted; a newer one still provisioning waits',
      settings: settings(1, 2),
      members: [m(0, 'free'), m(1, 'free'), m(2, 'free', { available: false })],
      create: 0,
      deletes: ['c-pool-1'],
      trimReason: 'surplus',
    },
    {
      reason: 'resources the pool did not create are never deleted',
      settings: settings(0, 1),
      members: [m(0, 'free', { pooled: false }), m(1, 'free', { pooled: false }), m(2, 'free')],
      create: 0,
      deletes: ['c-pool-2'],
      trimReason: 'surplus',
    },
    {
      reason: 'members with the same creation second: the higher index is the newer',
      settings: settings(0, 1),
      members: [m(9, 'free', { createdAt: 5000 }), m(10, 'free', { createdAt: 5000 }), m(2, 'free', { createdAt: 5000 })],
      create: 0,
      deletes: ['c-pool-10', 'c-pool-9'],
      trimReason: 'surplus',
    },
    {
      reason: 'maxFree 0 is unlimited: free members stay',
      settings: settings(1, 0),
      members: [m(0, 'free'), m(1, 'free'), m(2, 'free')],
      create: 0,
      deletes: [],
    },
    {
      reason: 'maxFree below minFree (rejected by the CRD) reads as minFree, so the plan does not flap',
      settings: settings(3, 1),
      members: [m(0, 'free'), m(1, 'free'), m(2, 'free')],
      create: 0,
      deletes: [],
    },
    {
      reason: 'a lowered maxInstances deletes free members down to the cap, below minFree if need be',
      settings: settings(2, 0, 2),
      members: [m(0, 'taken'), m(1, 'free'), m(2, 'free')],
      create: 0,
      deletes: ['c-pool-2'],
      trimReason: 'over-cap',
      capped: true,
    },
    {
      reason: 'resources already being deleted count towards bringing the class under maxInstances',
      settings: settings(0, 0, 2),
      members: [m(0, 'taken'), m(1, 'free'), m(2, 'deleting')],
      create: 0,
      deletes: [],
    },
    {
      reason: 'bound members are never deleted, even above maxInstances',
      settings: settings(0, 0, 1),
      members: [m(0, 'taken'), m(1, 'taken')],
      create: 0,
      deletes: [],
    },
  ];
  for (const c of cases) {
    test(c.reason, () => {
      const plan = planPool(c.settings, c.members);
      assert.deepEqual(
        { create: plan.create, deletes: plan.delete.map((x) => x.name), capped: plan.capped, trimReason: plan.trimReason },
        { create: c.create, deletes: c.deletes, capped: c.capped ?? false, trimReason: c.trimReason },
      );
    });
  }

  const arbMember = fc.record({
    n: fc.nat({ max: 50 }),
    state: fc.constantFrom<MemberState>('free', 'taken', 'deleting'),
    available: fc.boolean(),
    pooled: fc.boolean(),
    createdAt: fc.nat({ max: 10 }),
  });
  const arbInput = fc.record({
    settings: fc.record({ minFree: fc.nat({ max: 6 }), maxFree: fc.nat({ max: 6 }), maxInstances: fc.nat({ max: 8 }) }),
    members: fc.uniqueArray(arbMember, { selector: (x) => x.n, maxLength: 12 }).map((xs) => xs.map((x) => m(x.n, x.state, x))),
  });

  test('property: never creates past maxInstances, and never both creates and deletes', () => {
    fc.assert(
      fc.property(arbInput, ({ settings: s, members }) => {
        const plan = planPool(s, members);
        if (s.maxInstances > 0) assert.ok(plan.create === 0 || members.length + plan.create <= s.maxInstances);
        assert.ok(plan.create === 0 || plan.delete.length === 0);
      }),
    );
  });

  test('property: deletes only free, Available members the pool created, newest first, never below maxFree for surplus', () => {
    fc.assert(
      fc.property(arbInput, ({ settings: s, members }) => {
        const plan = planPool(s, members);
        for (const d of plan.delete) assert.ok(d.pooled && d.state === 'free' && d.available, `deletes ${JSON.stringify(d)}`);
        for (let i = 1; i < plan.delete.length; i++) assert.ok(plan.delete[i - 1].createdAt >= plan.delete[i].createdAt);
        if (plan.trimReason === 'surplus') assert.ok(plan.free - plan.delete.length >= Math.max(s.maxFree, s.minFree));
      }),
    );
  });

  test('property: applying the plan reaches minFree unless maxInstances stops it', () => {
    fc.assert(
      fc.property(arbInput, ({ settings: s, members }) => {
        const plan = planPool(s, members);
        const freeAfter = plan.free + plan.create - plan.delete.length;
        assert.equal(plan.capped, freeAfter < s.minFree);
        if (plan.capped) assert.ok(s.maxInstances > 0, 'only maxInstances keeps a pool below minFree');
      }),
    );
  });
});
