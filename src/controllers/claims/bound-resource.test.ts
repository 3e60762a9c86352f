/**
 * verifiedResource believes a claim's status.resourceRef only when the resource it names
 * records the claim (namespace, name and uid): a forged or stale status finds nothing, and a
 * cache that lags behind a binding just written is checked against the API.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import type { ObjectReference } from '../../apis/index.js';
import { verifiedResource } from './bound-resource.js';
import { APP, claim, harness, refTo, resource, resourceRef, RESOURCE_API, SYS } from './testing/harness.js';

type Seed = { ref: ResourceRef; obj: KObject };

const to = (name: string, uid: string | undefined = `uid-${name}`): ObjectReference => ({
  apiVersion: RESOURCE_API,
  kind: 'MemoryDatabase',
  namespace: SYS,
  name,
  ...(uid ? { uid } : {}),
});

describe('verifiedResource', () => {
  const cases: { reason: string; seed: Seed[]; ref: ObjectReference; afterStart?: Seed; want: string | null }[] = [
    { reason: 'the resource records the claim: found', seed: [claim('mine'), resource('db-1', { claimRef: refTo('mine') })], ref: to('db-1'), want: 'db-1' },
    {
      reason: 'a forged ref to a resource recording another claim: nothing',
      seed: [claim('mine'), resource('db-1', { claimRef: refTo('other') })],
      ref: to('db-1'),
      want: null,
    },
    {
      reason: 'a ref whose uid is another object’s (the resource was recreated): nothing',
      seed: [claim('mine'), resource('db-1', { claimRef: refTo('mine') })],
      ref: to('db-1', 'uid-old'),
      want: null,
    },
    { reason: 'a ref to a resource that does not exist: nothing', seed: [claim('mine')], ref: to('gone'), want: null },
    {
      reason: 'a Shared resource lists the claim in its bindings: found',
      seed: [claim('mine'), resource('db-1', { sharing: { mode: 'Shared' } }, { bindings: [{ claimRef: refTo('mine') }] })],
      ref: to('db-1'),
      want: 'db-1',
    },
    {
      reason: 'a claimRef naming the claim without its uid (a reservation) binds nothing yet',
      seed: [claim('mine'), resource('db-1', { claimRef: { namespace: APP, name: 'mine' } })],
      ref: to('db-1'),
      want: null,
    },
    {
      reason: 'a ref of a kind not served: nothing',
      seed: [claim('mine')],
      ref: { ...to('db-1'), apiVersion: 'x.conductor.io/v1', kind: 'Other' },
      want: null,
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness(c.seed);
      try {
        const found = await verifiedResource(h.client, h.caches, h.claims.informer.store.get(APP, 'mine')!, c.ref);
        assert.deepEqual(found?.resource.metadata.name ?? null, c.want);
      } finally {
        h.stop();
      }
    });
  }

  test('a cache behind a binding just written is checked against the API', async () => {
    const h = await harness([claim('mine'), resource('db-1', {})]);
    try {
      // Written while nothing delivers it to the cache yet.
      const cur = h.stored(resourceRef, SYS, 'db-1')!;
      await h.client.patch(
        resourceRef,
        'db-1',
        'merge',
        { metadata: { resourceVersion: cur.metadata.resourceVersion }, spec: { claimRef: refTo('mine') } },
        { namespace: SYS },
      );
      assert.equal(h.concrete.informer.store.get(SYS, 'db-1')?.spec.claimRef, undefined, 'the cache has not caught up');
      const found = await verifiedResource(h.client, h.caches, h.claims.informer.store.get(APP, 'mine')!, to('db-1'));
      assert.equal(found?.resource.spec.claimRef?.uid, 'uid-mine');
    } finally {
      h.stop();
    }
  });
});
