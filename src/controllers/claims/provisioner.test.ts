/**
 * The Provisioner over the fake client, table-driven: what a class's template becomes for a
 * claim (name, namespace, labels, the common concrete fields, the provider's configuration)
 * and what happens when the class or its kind is missing or the resource exists already.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../machinery/object.js';
import type { ConcreteResource } from '../../apis/index.js';
import { classCandidateFromObject } from '../../scheduler/index.js';
import { CLAIM_NAME_LABEL, CLAIM_NAMESPACE_LABEL, CLASS_LABEL } from './labels.js';
import { provisionedName } from './names.js';
import { Provisioner } from './provisioner.js';
import { ClaimReason } from './reasons.js';
import { MANAGED_PROTECTION_FINALIZER } from '../../apis/well-known.js';
import { APP, claim, claimRef, harness, refTo, resource, resourceClass, resourceRef, RESOURCE_API, SYS } from './testing/harness.js';
import type { ResourceRef } from '../../client/types.js';

type Seed = { ref: ResourceRef; obj: KObject };

describe('Provisioner.provision', () => {
  const mine = claim('mine', { resourceClass: 'fast' });
  const name = provisionedName(mine.obj);
  interface Case {
    reason: string;
    seed: Seed[];
    /** The class the scheduler chose (default the seeded `fast` in SYS). */
    chosen?: KObject;
    want: {
      outcome: string;
      why?: string;
      /** The created resource's fields that matter, or null when none was created. */
      created: null | { namespace: string; labels: Record<string, string>; spec: Record<string, unknown> };
      resources: number;
      events: string[];
    };
  }
  const cases: Case[] = [
    {
      reason: 'a class wins: its template, configured by the provider, pre-bound to the claim, with the class’s policy, profile, provider and capabilities',
      seed: [
        mine,
        resourceClass('fast', {
          resourceClass: 'performance',
          rebindPolicy: 'Retain',
          providerRef: { name: 'mem' },
          capabilities: { capacity: { storage: '5Gi' } },
          template: { apiVersion: RESOURCE_API, kind: 'MemoryDatabase', metadata: { labels: { team: 'a' } }, spec: { version: '16.4' } },
        }),
      ],
      want: {
        outcome: 'created',
        created: {
          namespace: SYS,
          labels: { team: 'a', [CLASS_LABEL]: `${SYS}.fast`, [CLAIM_NAMESPACE_LABEL]: APP, [CLAIM_NAME_LABEL]: 'mine' },
          spec: {
            version: '16.4',
            configuredFor: 'mine',
            claimRef: refTo('mine'),
            rebindPolicy: 'Retain',
            resourceClass: 'performance',
            providerRef: { name: 'mem' },
            capabilities: { capacity: { storage: '5Gi' } },
          },
        },
        resources: 1,
        events: [], // the claim's Bound event tells it (see below)
      },
    },
    {
      reason: 'defaults: rebindPolicy Delete, the profile is the class’s name',
      seed: [mine, resourceClass('fast')],
      want: {
        outcome: 'created',
        created: {
          namespace: SYS,
          labels: { [CLASS_LABEL]: `${SYS}.fast`, [CLAIM_NAMESPACE_LABEL]: APP, [CLAIM_NAME_LABEL]: 'mine' },
          spec: { version: '16.4', configuredFor: 'mine', claimRef: refTo('mine'), rebindPolicy: 'Delete', resourceClass: 'fast' },
        },
        resources: 1,
        events: [], // the claim's Bound event tells it (see below)
      },
    },
    {
      reason: 'a class in a tenant’s namespace still provisions into the system namespace',
      seed: [mine, resourceClass('fast', {}, APP)],
      chosen: resourceClass('fast', {}, APP).obj,
      want: {
        outcome: 'created',
        created: {
          namespace: SYS,
          labels: { [CLASS_LABEL]: `${APP}.fast`, [CLAIM_NAMESPACE_LABEL]: APP, [CLAIM_NAME_LABEL]: 'mine' },
          spec: { version: '16.4', configuredFor: 'mine', claimRef: refTo('mine'), rebindPolicy: 'Delete', resourceClass: 'fast' },
        },
        resources: 1,
        events: [], // the claim's Bound event tells it (see below)
      },
    },
    {
      reason: 'made by an earlier attempt (the deterministic name exists): no second resource',
      seed: [mine, resourceClass('fast'), resource(name, { claimRef: refTo('mine') })],
      want: { outcome: 'exists', created: null, resources: 1, events: [] },
    },
    {
      reason: 'a class gone from the cache provisions nothing',
      seed: [mine],
      chosen: resourceClass('fast').obj,
      want: { outcome: 'class-gone', created: null, resources: 0, events: [] },
    },
    {
      reason: 'a template of a kind no installed provider manages: nothing is created, and the claim is told',
      seed: [mine, resourceClass('fast', { template: { apiVersion: 'database.elsewhere.conductor.io/v1alpha1', kind: 'OtherDatabase' } })],
      want: {
        outcome: 'kind-not-served',
        why: `class ${SYS}/fast provisions OtherDatabase, which no installed provider manages`,
        created: null,
        resources: 0,
        events: [],
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness(c.seed);
      try {
        const p = new Provisioner({ client: h.client, caches: h.caches, systemNamespace: SYS });
        const cls = c.chosen ?? c.seed.find((s) => s.obj.kind === 'ResourceClass')!.obj;
        const out = await p.provision(h.claims, h.claims.informer.store.get(APP, 'mine')!, classCandidateFromObject(cls));
        const made = h.client.stored<ConcreteResource>(resourceRef).find((r) => r.metadata.name === name && out.type === 'created');
        const got: Case['want'] = {
          outcome: out.type,
          ...(out.type === 'kind-not-served' ? { why: out.why } : {}),
          created: made ? { namespace: made.metadata.namespace!, labels: made.metadata.labels ?? {}, spec: made.spec } : null,
          resources: h.client.stored(resourceRef).length,
          events: h.events('mine').map((e) => e.reason),
        };
        assert.deepEqual(got, c.want);
        if (made) assert.equal(h.writes('create', claimRef.resource), 0, 'the claim itself is not written');
        if (out.type === 'created') {
          assert.equal(out.from, `provisioned from class ${cls.metadata.namespace}/${cls.metadata.name}`, 'for the Bound event that follows');
          await out.event();
          assert.deepEqual(
            h.events('mine').map((e) => [e.reason, e.message]),
            [[ClaimReason.Provisioning, `provisioning MemoryDatabase ${SYS}/${name} from class ${cls.metadata.namespace}/${cls.metadata.name}`]],
            'recorded on its own only when asked (the binding did not follow)',
          );
        }
        if (made)
          assert.deepEqual(
            made.metadata.finalizers,
            [MANAGED_PROTECTION_FINALIZER],
            'born with the managed reconciler’s finalizer (its kind is reconciled in this process)',
          );
      } finally {
        h.stop();
      }
    });
  }

  test('a kind of an out-of-process provider gets no finalizer of the managed reconciler (its provider manages its own)', async () => {
    const h = await harness([mine, resourceClass('fast')]);
    try {
      const p = new Provisioner({ client: h.client, caches: h.caches, systemNamespace: SYS });
      const cls = resourceClass('fast').obj as Parameters<Provisioner['resourceFor']>[2];
      const claimObj = h.claims.informer.store.get(APP, 'mine')!;
      assert.deepEqual(p.resourceFor(h.claims, claimObj, cls, h.concrete).metadata.finalizers, [MANAGED_PROTECTION_FINALIZER]);
      assert.equal(p.resourceFor(h.claims, claimObj, cls, { ...h.concrete, outOfProcess: true }).metadata.finalizers, undefined);
    } finally {
      h.stop();
    }
  });
});
