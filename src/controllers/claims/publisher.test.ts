/**
 * The ConnectionPublisher over the fake client, table-driven: a ready resource's details
 * become the claim's Secret and ConfigMap (documented keys; the ConfigMap without secrets),
 * never over another object's Secret; a Shared resource's claim gets its own share through
 * bindClaim with the details remembered before; a resource not ready is reported on the claim.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinRefs, type ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import type { Claim, ConcreteResource } from '../../apis/index.js';
import { decodeSecretData } from './provider-access.js';
import { bindingSecretName } from './names.js';
import { ConnectionPublisher, CONFLICT_RETRY_MS } from './publisher.js';
import { ClaimReason } from './reasons.js';
import { APP, claim, claimRef, harness, readyStatus, refTo, resource, secret, SYS } from './testing/harness.js';

type Seed = { ref: ResourceRef; obj: KObject };

const details = { host: 'db.example', port: '5432', username: 'app', password: 's3cret', database: 'appdb' };
const boundClaim = (extra: Record<string, unknown> = {}) =>
  claim(
    'mine',
    {},
    {
      status: {
        phase: 'Bound',
        resourceRef: { apiVersion: resource('db-1').obj.apiVersion, kind: 'MemoryDatabase', namespace: SYS, name: 'db-1', uid: 'uid-db-1' },
        ...extra,
      },
    },
  );

describe('ConnectionPublisher.publish', () => {
  interface Case {
    reason: string;
    seed: Seed[];
    sharing?: 'Exclusive' | 'Shared';
    justBound?: string;
    want: {
      result: unknown;
      ready: string;
      /** The claim's Secret data (null: none of ours). */
      secret: Record<string, string> | null;
      /** The claim's ConfigMap data (null: none); left out: not compared. */
      configMap?: Record<string, string> | null;
      connectionSecretRef?: string;
      events: string[];
      bindClaims?: { previous?: Record<string, string> }[];
      bindingSecret?: Record<string, string>;
    };
  }
  const exclusive = resource('db-1', { claimRef: refTo('mine'), writeConnectionSecretToRef: { name: 'db-1-conn' } }, readyStatus({ phase: 'Bound' }));
  const cases: Case[] = [
    {
      reason: 'Exclusive: the resource’s own Secret, by the documented keys, into a Secret and a ConfigMap without the password; Ready=True',
      seed: [boundClaim(), exclusive, secret(SYS, 'db-1-conn', { ...details, extra: 'not documented' }, exclusive.obj)],
      want: {
        result: undefined,
        ready: `True/${ClaimReason.Available}`,
        secret: details,
        configMap: { host: 'db.example', port: '5432', username: 'app', database: 'appdb' },
        connectionSecretRef: 'mine',
        events: [ClaimReason.Ready],
      },
    },
    {
      reason: 'just bound: one Bound Event tells both',
      seed: [boundClaim(), exclusive, secret(SYS, 'db-1-conn', details, exclusive.obj)],
      justBound: 'bound to MemoryDatabase conductor-system/db-1',
      want: {
        result: undefined,
        ready: `True/${ClaimReason.Available}`,
        secret: details,
        configMap: { host: 'db.example', port: '5432', username: 'app', database: 'appdb' },
        connectionSecretRef: 'mine',
        events: [ClaimReason.Bound],
      },
    },
    {
      reason: 'a Secret of that name another object controls is never overwritten: ConnectionSecretConflict, retried later',
      seed: [boundClaim(), exclusive, secret(SYS, 'db-1-conn', details, exclusive.obj), secret(APP, 'mine', { mine: 'the developer’s own' })],
      want: {
        result: { requeueAfterMs: CONFLICT_RETRY_MS },
        ready: `False/${ClaimReason.ConnectionSecretConflict}`,
        secret: { mine: 'the developer’s own' },
        events: [ClaimReason.ConnectionSecretConflict],
      },
    },
    {
      reason: 'Shared: the claim’s own share from bindClaim, remembered in a binding Secret beside the resource',
      sharing: 'Shared',
      seed: [boundClaim(), resource('db-1', { sharing: { mode: 'Shared' } }, readyStatus({ phase: 'Bound', bindings: [{ claimRef: refTo('mine') }] }))],
      want: {
        result: undefined,
        ready: `True/${ClaimReason.Available}`,
        secret: { host: 'db.example', port: '5432', username: 'u-mine', password: 'p-mine', database: 'd-mine' },
        configMap: { host: 'db.example', port: '5432', username: 'u-mine', database: 'd-mine' },
        connectionSecretRef: 'mine',
        events: [ClaimReason.Ready],
        bindClaims: [{}],
        bindingSecret: { host: 'db.example', port: '5432', username: 'u-mine', password: 'p-mine', database: 'd-mine' },
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness(c.seed, { sharing: c.sharing });
      try {
        const pub = new ConnectionPublisher({ client: h.client, caches: h.caches, access: h.access });
        const res = h.concrete.informer.store.get(SYS, 'db-1')!;
        const result = await pub.publish(h.claims, h.claims.informer.store.get(APP, 'mine')!, h.concrete, res, c.justBound);
        await new Promise((r) => setImmediate(r)); // the best-effort Event of a fresh binding
        const st = h.stored<Claim>(claimRef, APP, 'mine')!.status!;
        const ready = st.conditions?.find((x) => x.type === 'Ready');
        const sec = h.stored(builtinRefs.secrets, APP, 'mine');
        const cm = h.stored(builtinRefs.configmaps, APP, 'mine');
        const got: Case['want'] = {
          result,
          ready: `${ready?.status}/${ready?.reason}`,
          secret: sec ? decodeSecretData(sec) : null,
          ...('configMap' in c.want ? { configMap: cm ? (cm.data as Record<string, string>) : null } : {}),
          ...(st.connectionSecretRef ? { connectionSecretRef: st.connectionSecretRef.name } : {}),
          events: h.events('mine').map((e) => e.reason),
          ...(c.want.bindClaims ? { bindClaims: h.provider.callsOf('bindClaim').map((x) => (x.previous ? { previous: x.previous } : {})) } : {}),
          ...(c.want.bindingSecret
            ? { bindingSecret: decodeSecretData(h.stored(builtinRefs.secrets, SYS, bindingSecretName(res, h.claims.informer.store.get(APP, 'mine')!))!) }
            : {}),
        };
        assert.deepEqual(got, c.want);
      } finally {
        h.stop();
      }
    });
  }

  test('Shared, published before: bindClaim gets the remembered details back, so a repeat does not rotate credentials', async () => {
    const shared = resource('db-1', { sharing: { mode: 'Shared' } }, readyStatus({ phase: 'Bound', bindings: [{ claimRef: refTo('mine') }] }));
    const mine = boundClaim();
    const remembered = { ...details, username: 'kept' };
    const h = await harness([mine, shared, secret(SYS, bindingSecretName(shared.obj, mine.obj), remembered, shared.obj)], { sharing: 'Shared' });
    try {
      const pub = new ConnectionPublisher({ client: h.client, caches: h.caches, access: h.access });
      await pub.publish(h.claims, h.claims.informer.store.get(APP, 'mine')!, h.concrete, h.concrete.informer.store.get(SYS, 'db-1')!);
      assert.deepEqual(
        {
          previous: h.provider.callsOf('bindClaim').map((x) => x.previous),
          secret: decodeSecretData(h.stored(builtinRefs.secrets, APP, 'mine')!),
          bindingSecretWrites: h.writes('update', 'secrets'),
        },
        { previous: [remembered], secret: remembered, bindingSecretWrites: 0 },
      );
    } finally {
      h.stop();
    }
  });
});

describe('ConnectionPublisher.reportNotReady', () => {
  const cases = [
    {
      reason: 'a resource still coming up: Ready=False Waiting, no Warning',
      status: {
        phase: 'Bound',
        conditions: [{ type: 'Ready', status: 'False', reason: 'Creating', message: 'starting', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      },
      want: {
        ready: `False/${ClaimReason.Waiting}`,
        message: `waiting for MemoryDatabase ${SYS}/db-1 to become ready (Creating: starting)`,
        events: [] as string[],
      },
    },
    {
      reason: 'a failing resource: its Synced reason is carried (credentials masked) with a Warning Event',
      status: {
        phase: 'Bound',
        conditions: [
          { type: 'Synced', status: 'False', reason: 'ReconcileError', message: 'login failed: password=hunter2', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      },
      want: {
        ready: 'False/ReconcileError',
        message: `MemoryDatabase ${SYS}/db-1 is not ready: ReconcileError: login failed: password=***`,
        events: ['ReconcileError'],
      },
    },
  ];
  for (const c of cases) {
    test(c.reason, async () => {
      const h = await harness([boundClaim(), resource('db-1', { claimRef: refTo('mine') }, c.status)]);
      try {
        const pub = new ConnectionPublisher({ client: h.client, caches: h.caches, access: h.access });
        await pub.reportNotReady(h.claims, h.claims.informer.store.get(APP, 'mine')!, h.concrete.informer.store.get(SYS, 'db-1') as ConcreteResource);
        const ready = h.stored<Claim>(claimRef, APP, 'mine')!.status!.conditions!.find((x) => x.type === 'Ready')!;
        assert.deepEqual({ ready: `${ready.status}/${ready.reason}`, message: ready.message, events: h.events('mine').map((e) => e.reason) }, c.want);
      } finally {
        h.stop();
      }
    });
  }
});
