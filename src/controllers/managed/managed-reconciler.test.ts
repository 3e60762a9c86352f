/**
 * The ManagedReconciler against the in-process API server, with a FakeExternal standing in
 * for the provider: creation (finalizer first, crash-guard marks around create, connection
 * Secret, Ready), the crash guard itself, drift correction, ObserveOnly, deletion that waits
 * for the provider, exponential backoff, poll intervals, credentials and provider lookup.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startConductor as startServer, type RunningConductor as RunningServer } from '../../conductor/index.js';
import { builtinRefs } from '../../client/types.js';
import { isNotFound } from '../../machinery/errors.js';
import type { Condition, KObject } from '../../machinery/object.js';
import { localPostgreSQLInstanceKind, postgresqlServerKind } from '../../providers/local/postgresql/kinds.js';
import { providerKind } from '../../apis/core/index.js';
import { postgresqlInstanceKind } from '../../apis/storage/kinds.js';
import {
  EXTERNAL_CREATE_FAILED_ANNOTATION,
  EXTERNAL_CREATE_PENDING_ANNOTATION,
  EXTERNAL_CREATE_SUCCEEDED_ANNOTATION,
  EXTERNAL_NAME_ANNOTATION,
  POLL_INTERVAL_ANNOTATION,
} from '../../apis/well-known.js';
import type { ConcreteKind, ProviderModule } from '../../providers/spi.js';
import { ManagedReconciler } from './managed-reconciler.js';
import type { ManagedReconcilerOptions } from './reconciler-options.js';
import { MANAGED_PROTECTION_FINALIZER } from './resource-writes.js';
import { CONNECTION_SECRET_TYPE } from './connection-secret.js';
import { startManagedReconcilers } from './start.js';
import { FakeExternal, fakeKind, type FakeKindOptions } from './testing/index.js';

const ref = localPostgreSQLInstanceKind.ref;
const kindNames: FakeKindOptions = {
  group: localPostgreSQLInstanceKind.group,
  version: localPostgreSQLInstanceKind.version,
  kind: localPostgreSQLInstanceKind.kind,
  plural: localPostgreSQLInstanceKind.plural,
};

let server: RunningServer;
let dataDir: string;
let namespaces = 0;
const running: ManagedReconciler[] = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'conductor-managed-'));
  // Only the reconcilers under test act on the resources: the server's own controllers stay off.
  server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }), controllers: false });
});

after(async () => {
  await Promise.all(running.map((r) => r.stop()));
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** until polls `probe` every 20 ms until it returns something other than undefined. */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Harness {
  ns: string;
  external: FakeExternal;
  reconciler: ManagedReconciler;
  /** Creates a LocalPostgreSQLInstance in the harness namespace. */
  create(name: string, spec?: Record<string, unknown>, annotations?: Record<string, string>, finalizers?: string[]): Promise<KObject>;
  get(name: string): Promise<KObject | undefined>;
  events(name: string): Promise<KObject[]>;
  key(name: string): string;
}

/** harness makes a fresh namespace and a started reconciler over a FakeExternal. */
async function harness(
  kindOptions: Partial<FakeKindOptions> = {},
  options: ManagedReconcilerOptions = {},
  prepare?: (external: FakeExternal, ns: string) => void,
): Promise<Harness> {
  const ns = `managed-${++namespaces}`;
  await server.client.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const external = new FakeExternal();
  prepare?.(external, ns);
  const kind = fakeKind(external, { ...kindNames, ...kindOptions });
  const reconciler = new ManagedReconciler(server.client, kind, {
    namespace: ns,
    pollIntervalMs: 100,
    deletionCheckMs: 50,
    backoff: { baseDelayMs: 20, maxDelayMs: 2000 },
    ...options,
  }).start();
  running.push(reconciler);
  return {
    ns,
    external,
    reconciler,
    create: (name, spec = {}, annotations, finalizers) =>
      server.client.create(ref, {
        apiVersion: localPostgreSQLInstanceKind.apiVersion,
        kind: kindNames.kind,
        metadata: { name, namespace: ns, ...(annotations ? { annotations } : {}), ...(finalizers ? { finalizers } : {}) },
        spec,
      }),
    get: async (name) => {
      try {
        return await server.client.get(ref, name, ns);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    events: async (name) =>
      (await server.client.list(builtinRefs.events, { namespace: ns })).items.filter((e) => (e.involvedObject as { name?: string }).name === name),
    key: (name) => `${ns}/${name}`,
  };
}

function condition(obj: KObject | undefined, type: string): Condition | undefined {
  const conditions = (obj?.status as { conditions?: Condition[] } | undefined)?.conditions;
  return conditions?.find((c) => c.type === type);
}

function phase(obj: KObject | undefined): unknown {
  return (obj?.status as { phase?: unknown } | undefined)?.phase;
}

async function readyObject(h: Harness, name: string): Promise<KObject> {
  return until(`${name} Ready`, async () => {
    const o = await h.get(name);
    return condition(o, 'Ready')?.status === 'True' ? o : undefined;
  });
}

/**
 * eventWithReason waits for an Event with `reason` on `name` (whose message matches `message`,
 * when given: a reconcile that ran before the one under test may have said the same reason first).
 */
async function eventWithReason(h: Harness, name: string, reason: string, message?: RegExp): Promise<KObject> {
  return until(`event ${reason} on ${name}${message ? ` matching ${message}` : ''}`, async () =>
    (await h.events(name)).find((e) => e.reason === reason && (!message || message.test(String(e.message)))),
  );
}

describe('ManagedReconciler', () => {
  test('creates the external resource: finalizer first, pending mark before create, outcome after, connection Secret, Ready', async () => {
    const h = await harness();
    const seenAtConnect: string[][] = [];
    const seenAtCreate: Record<string, string>[] = [];
    h.external.connect = async (resource) => {
      const stored = await server.client.get(ref, resource.metadata.name!, resource.metadata.namespace);
      seenAtConnect.push(stored.metadata.finalizers ?? []);
    };
    const create = h.external.create;
    h.external.create = async (resource) => {
      const stored = await server.client.get(ref, resource.metadata.name!, resource.metadata.namespace);
      seenAtCreate.push({ ...(stored.metadata.annotations ?? {}) });
      return create(resource);
    };
    await h.create('db1', { writeConnectionSecretToRef: { name: 'db1-raw' } });
    const obj = await readyObject(h, 'db1');

    assert.ok(
      seenAtConnect.length > 0 && seenAtConnect.every((f) => f.includes(MANAGED_PROTECTION_FINALIZER)),
      'the finalizer is stored before any provider call',
    );
    assert.equal(seenAtCreate.length, 1, 'create is called once');
    assert.ok(seenAtCreate[0][EXTERNAL_CREATE_PENDING_ANNOTATION], 'the pending mark is stored before create runs');
    assert.equal(seenAtCreate[0][EXTERNAL_CREATE_SUCCEEDED_ANNOTATION], undefined, 'no outcome is stored before create runs');

    const a = obj.metadata.annotations ?? {};
    assert.equal(a[EXTERNAL_NAME_ANNOTATION], 'fake-db1');
    assert.ok(Date.parse(a[EXTERNAL_CREATE_SUCCEEDED_ANNOTATION]) >= Date.parse(a[EXTERNAL_CREATE_PENDING_ANNOTATION]), 'succeeded is not older than pending');
    assert.deepEqual(obj.metadata.finalizers, [MANAGED_PROTECTION_FINALIZER]);
    assert.equal(condition(obj, 'Synced')?.status, 'True');
    assert.equal(phase(obj), 'Available');
    assert.equal((obj.status as { observedGeneration?: number }).observedGeneration, obj.metadata.generation);
    assert.deepEqual((obj.status as { atProvider?: unknown }).atProvider, { state: 'running' });

    const secret = await server.client.get(builtinRefs.secrets, 'db1-raw', h.ns);
    assert.equal(secret.type, CONNECTION_SECRET_TYPE);
    const data = Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.deepEqual(data, { host: 'fake.example', port: '5432', username: 'admin', password: 'secret-of-db1' });
    assert.deepEqual(
      secret.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
      [[kindNames.kind, 'db1', obj.metadata.uid, true]],
    );

    const created = await eventWithReason(h, 'db1', 'CreatedExternalResource');
    assert.equal(created.type, 'Normal');
    assert.match(String(created.message), /fake-db1/);
    await sleep(250);
    assert.equal(h.external.callsOf('create').length, 1, 'polling a ready resource never creates again');
    const readyAgain = await h.get('db1');
    assert.equal(
      condition(readyAgain, 'Ready')?.lastTransitionTime,
      condition(obj, 'Ready')?.lastTransitionTime,
      'lastTransitionTime stays while Ready stays True',
    );
  });

  test('a resource the provider sees right after create is recorded from that observation: Ready without a Creating status in between', async () => {
    const h = await harness({}, { pollIntervalMs: 60_000 });
    const readyReasons: string[] = [];
    const watch = server.client.watch(
      ref,
      { namespace: h.ns },
      {
        onEvent: (e) => {
          const reason = condition(e.object, 'Ready')?.reason;
          if (reason && readyReasons.at(-1) !== reason) readyReasons.push(reason);
        },
        onClose: () => {},
      },
    );
    try {
      await h.create('quick', {}, undefined, [MANAGED_PROTECTION_FINALIZER]);
      await readyObject(h, 'quick');
      await eventWithReason(h, 'quick', 'ExternalResourceReady');
    } finally {
      watch.stop();
    }
    assert.deepEqual(readyReasons, ['Available'], 'the first status written is Ready=True');
    assert.equal(h.external.callsOf('create').length, 1);
    assert.ok(h.external.callsOf('observe').length >= 2, 'observed before create and right after it');
  });

  test('the connection Secret defaults to <name>-connection; Shared resources get none', async () => {
    const h = await harness();
    await h.create('db2');
    await readyObject(h, 'db2');
    const secret = await server.client.get(builtinRefs.secrets, 'db2-connection', h.ns);
    assert.deepEqual(Object.keys(secret.data as object).sort(), ['host', 'password', 'port', 'username']);

    await h.create('shared', { sharing: { mode: 'Shared' } });
    await readyObject(h, 'shared');
    await assert.rejects(server.client.get(builtinRefs.secrets, 'shared-connection', h.ns), (err) => isNotFound(err));
  });

  for (const c of [
    { reason: 'names are not deterministic: stop with a Warning instead of creating twice', deterministic: false, wantCreates: 0 },
    { reason: 'names are deterministic: create finds what the interrupted create made', deterministic: true, wantCreates: 1 },
  ]) {
    test(`crash guard: a pending mark without outcome — ${c.reason}`, async () => {
      const h = await harness({ deterministicExternalNames: c.deterministic });
      const pendingSince = new Date(Date.now() - 60_000).toISOString();
      const earlierFailure = new Date(Date.now() - 120_000).toISOString();
      await h.create('guarded', {}, { [EXTERNAL_CREATE_PENDING_ANNOTATION]: pendingSince, [EXTERNAL_CREATE_FAILED_ANNOTATION]: earlierFailure });
      if (c.deterministic) {
        await readyObject(h, 'guarded');
      } else {
        const ev = await eventWithReason(h, 'guarded', 'CreatePendingUnknownOutcome');
        assert.equal(ev.type, 'Warning');
        assert.match(String(ev.message), new RegExp(pendingSince.replace(/[.]/g, '\\.')));
        const obj = await until('Synced=False', async () => {
          const o = await h.get('guarded');
          return condition(o, 'Synced')?.status === 'False' ? o : undefined;
        });
        assert.equal(condition(obj, 'Synced')?.reason, 'CreatePendingUnknownOutcome');
        assert.equal(condition(obj, 'Ready')?.status, 'False');
        assert.equal(phase(obj), 'Failed');
        await sleep(300); // several poll intervals
        assert.ok(h.external.callsOf('observe').length >= 2, 'it keeps observing');
      }
      assert.equal(h.external.callsOf('create').length, c.wantCreates);
    });
  }

  test('a create that times out leaves the pending mark, and the guard then refuses a second create', async () => {
    const h = await harness({ deterministicExternalNames: false }, { callTimeoutMs: 100 });
    h.external.create = () => new Promise(() => {}); // never answers
    await h.create('hung');
    const ev = await eventWithReason(h, 'hung', 'CannotCreate');
    assert.match(
      String(ev.message),
      /provider call create on LocalPostgreSQLInstance\/managed-\d+\/hung did not finish in 100ms; cancelled; its outcome is unknown/,
    );
    assert.equal(h.external.callsOf('create')[0]?.signal?.aborted, true, 'the timed-out create was cancelled through its signal');
    await eventWithReason(h, 'hung', 'CreatePendingUnknownOutcome');
    const obj = await h.get('hung');
    assert.ok(obj?.metadata.annotations?.[EXTERNAL_CREATE_PENDING_ANNOTATION]);
    assert.equal(obj?.metadata.annotations?.[EXTERNAL_CREATE_FAILED_ANNOTATION], undefined, 'a timeout is not recorded as a failure');
    await sleep(200);
    assert.equal(h.external.callsOf('create').length, 1, 'create is never called a second time');
  });

  test('a provider call that blocks is cancelled through its signal at the deadline, and reported as a timeout', async () => {
    const h = await harness({}, { callTimeoutMs: 100 });
    let cancelled = 0;
    h.external.observe = (_r, options) =>
      new Promise((_, reject) => {
        // Waits forever unless aborted, like a query to a server that never answers.
        options?.signal?.addEventListener('abort', () => {
          cancelled++;
          reject(options.signal!.reason as Error);
        });
      });
    await h.create('blocked');
    const ev = await eventWithReason(h, 'blocked', 'CannotObserve');
    assert.match(String(ev.message), new RegExp(`provider call observe on LocalPostgreSQLInstance/${h.ns}/blocked did not finish in 100ms; cancelled`));
    const synced = await until('Synced=False', async () => {
      const c = condition(await h.get('blocked'), 'Synced');
      return c?.status === 'False' ? c : undefined;
    });
    assert.equal(synced.reason, 'CannotObserve');
    assert.match(String(synced.message), /did not finish in 100ms; cancelled/);
    const first = h.external.callsOf('observe', h.key('blocked'))[0];
    assert.ok(first?.signal, 'observe received a signal');
    assert.equal(first.signal.aborted, true);
    assert.ok(cancelled >= 1, 'the blocked observe saw the abort');
    assert.ok(h.external.callsOf('connect', h.key('blocked'))[0]?.signal, 'connect received a signal in its context');
  });

  test('stopping the reconciler cancels the provider calls still running', async () => {
    const h = await harness({}, { callTimeoutMs: 600_000 });
    let entered = false;
    h.external.observe = (_r, options) =>
      new Promise((_, reject) => {
        entered = true;
        options?.signal?.addEventListener('abort', () => reject(options.signal!.reason as Error));
      });
    await h.create('stopping');
    await until('observe running', () => (entered ? true : undefined));
    const stopped = h.reconciler.stop();
    const signal = h.external.callsOf('observe', h.key('stopping'))[0]?.signal;
    await until('the running observe cancelled', () => (signal?.aborted ? true : undefined));
    await stopped;
    // The signal is shared by the calls started with it; its reason says why, the reconciler's error names the call.
    assert.match(String((signal?.reason as Error | undefined)?.message), /provider calls cancelled: the controller is stopping/);
  });

  test('a failed create is recorded as failed, reported, and retried', async () => {
    const h = await harness();
    let failures = 1;
    const create = h.external.create;
    h.external.create = async (resource) => {
      if (failures-- > 0) throw new Error('quota exceeded in region north-america');
      return create(resource);
    };
    await h.create('flaky');
    const ev = await eventWithReason(h, 'flaky', 'CannotCreate');
    assert.equal(ev.type, 'Warning');
    assert.match(String(ev.message), /cannot create the external resource: quota exceeded in region north-america/);
    const obj = await readyObject(h, 'flaky');
    const a = obj.metadata.annotations ?? {};
    assert.ok(a[EXTERNAL_CREATE_FAILED_ANNOTATION], 'the failure was recorded');
    assert.ok(Date.parse(a[EXTERNAL_CREATE_SUCCEEDED_ANNOTATION]) >= Date.parse(a[EXTERNAL_CREATE_PENDING_ANNOTATION]));
    assert.ok(Date.parse(a[EXTERNAL_CREATE_PENDING_ANNOTATION]) > Date.parse(a[EXTERNAL_CREATE_FAILED_ANNOTATION]), 'the retry wrote a newer pending mark');
    assert.equal(h.external.callsOf('create').length, 2);
  });

  test("drift is found by polling and corrected with update, with an Event naming it; the binder's phase stays", async () => {
    const h = await harness();
    await h.create('drifty');
    const ready = await readyObject(h, 'drifty');
    await server.client.updateStatus(ref, { ...ready, status: { ...(ready.status as object), phase: 'Bound' } });
    h.external.resources.get(h.key('drifty'))!.drift = 'the server listens on port 5433, spec.port is 5432';
    const ev = await eventWithReason(h, 'drifty', 'UpdatedExternalResource');
    assert.equal(ev.type, 'Normal');
    assert.match(String(ev.message), /port 5433, spec\.port is 5432/);
    assert.equal(h.external.callsOf('update').length, 1);
    const after = await until('Ready again with the drift gone', async () => {
      const o = await h.get('drifty');
      return condition(o, 'Ready')?.status === 'True' && h.external.resources.get(h.key('drifty'))?.drift === undefined ? o : undefined;
    });
    assert.equal(phase(after), 'Bound', 'the reconciler never overwrites Bound');
  });

  test('a resource that exists and matches but is not ready (any more) is Ready=False with the provider’s reason, then Ready again', async () => {
    const h = await harness();
    await h.create('slow');
    await readyObject(h, 'slow');
    h.external.resources.get(h.key('slow'))!.notReady = { reason: 'OperatorProvisioning', message: 'the operator has not finished' };
    const notReady = await until('Ready=False with the reason', async () => {
      const o = await h.get('slow');
      return condition(o, 'Ready')?.reason === 'OperatorProvisioning' ? o : undefined;
    });
    assert.equal(condition(notReady, 'Ready')?.status, 'False');
    assert.equal(condition(notReady, 'Ready')?.message, 'the operator has not finished');
    assert.equal(condition(notReady, 'Synced')?.status, 'True', 'nothing failed: it is only not ready');
    assert.equal(h.external.callsOf('update').length, 0);
    delete h.external.resources.get(h.key('slow'))!.notReady;
    await until('Ready again', async () => (condition(await h.get('slow'), 'Ready')?.status === 'True' ? true : undefined));
  });

  test('broken shares of a Shared resource go to status.atProvider with a ShareDrift Event; the resource stays Ready and update is not called', async () => {
    const h = await harness();
    await h.create('server', { sharing: { mode: 'Shared' } });
    await readyObject(h, 'server');
    h.external.resources.get(h.key('server'))!.brokenShares = [{ claim: { namespace: 'app', name: 'orders', uid: 'u1' }, missing: 'database app_orders' }];
    const ev = await eventWithReason(h, 'server', 'ShareDrift');
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.message, 'claim app/orders: database app_orders missing; the claim controller recreates what is missing');
    const first = await until('brokenShares in atProvider', async () => {
      const o = await h.get('server');
      return (o?.status as { atProvider?: { brokenShares?: unknown } })?.atProvider?.brokenShares ? o : undefined;
    });
    const atProvider = (first.status as { atProvider: Record<string, unknown> }).atProvider;
    assert.deepEqual(atProvider.brokenShares, [{ claim: 'app/orders', uid: 'u1', missing: 'database app_orders' }]);
    assert.equal(atProvider.state, 'running', "the provider's own atProvider stays");
    assert.equal(condition(first, 'Ready')?.status, 'True');
    // Every observation that still finds them is a change (it wakes the bound claims again).
    await until('a later observation time', async () => {
      const o = await h.get('server');
      const later = (o?.status as { atProvider?: { brokenSharesObservedAt?: string } })?.atProvider?.brokenSharesObservedAt;
      return later && later !== atProvider.brokenSharesObservedAt ? true : undefined;
    });
    delete h.external.resources.get(h.key('server'))!.brokenShares;
    await until('brokenShares gone once the shares are whole', async () => {
      const o = await h.get('server');
      const a = (o?.status as { atProvider?: Record<string, unknown> })?.atProvider;
      return a && !('brokenShares' in a) && !('brokenSharesObservedAt' in a) ? true : undefined;
    });
    assert.equal(h.external.callsOf('update').length, 0);
  });

  test('ObserveOnly never creates, updates or deletes', async () => {
    const h = await harness({}, {}, (external, ns) => {
      external.resources.set(`${ns}/imported`, { details: { host: 'db.internal', port: '5432' }, drift: 'version 14 running, spec says 15' });
    });
    await h.create('imported', { managementPolicy: 'ObserveOnly' });
    await h.create('absent', { managementPolicy: 'ObserveOnly' });

    const drift = await eventWithReason(h, 'imported', 'DriftNotCorrected');
    assert.equal(drift.type, 'Warning');
    const missing = await eventWithReason(h, 'absent', 'ExternalResourceMissing');
    assert.equal(missing.type, 'Warning');
    const imported = await h.get('imported');
    assert.equal(condition(imported, 'Ready')?.reason, 'NotUpToDate');
    const absent = await until('absent Failed', async () => {
      const o = await h.get('absent');
      return phase(o) === 'Failed' ? o : undefined;
    });
    assert.equal(condition(absent, 'Synced')?.reason, 'ExternalResourceMissing');
    const secret = await server.client.get(builtinRefs.secrets, 'imported-connection', h.ns);
    assert.deepEqual(Object.keys(secret.data as object).sort(), ['host', 'port'], 'an imported resource still publishes what it observes');

    await server.client.delete(ref, 'imported', { namespace: h.ns });
    await until('imported gone', async () => ((await h.get('imported')) ? undefined : true));
    await sleep(150);
    for (const method of ['create', 'update', 'delete'] as const) assert.equal(h.external.callsOf(method).length, 0, `no ${method} call`);
    assert.ok(h.external.resources.has(`${h.ns}/imported`), 'the imported external resource is left in place');
  });

  test('deletion calls delete and removes the finalizer only once observe reports the resource gone', async () => {
    const h = await harness();
    h.external.deleteLag = 3;
    const observe = h.external.observe;
    const presentWhileReported: boolean[] = [];
    h.external.observe = async (resource) => {
      const o = await observe(resource);
      if (resource.metadata.deletionTimestamp && o.exists) presentWhileReported.push((await h.get(resource.metadata.name!)) !== undefined);
      return o;
    };
    await h.create('doomed', { rebindPolicy: 'Delete' });
    await readyObject(h, 'doomed');
    await server.client.delete(ref, 'doomed', { namespace: h.ns });
    await until('doomed gone', async () => ((await h.get('doomed')) ? undefined : true));
    assert.equal(h.external.callsOf('delete').length >= 1, true, 'delete was called');
    assert.ok(presentWhileReported.length >= 3, `observed it still there ${presentWhileReported.length} times`);
    assert.ok(presentWhileReported.every(Boolean), 'the resource kept its finalizer while the provider reported it');
    assert.equal(h.external.resources.has(h.key('doomed')), false);
    await eventWithReason(h, 'doomed', 'DeletedExternalResource');
  });

  test('rebindPolicy Retain: deleting the resource (Released or never bound) removes only the object; no provider call touches the external resource', async () => {
    const h = await harness();
    await h.create('kept', { rebindPolicy: 'Retain' });
    await h.create('kept-default'); // the field's default is Retain
    const kept = await readyObject(h, 'kept');
    await readyObject(h, 'kept-default');
    // As the claim controller leaves it after a Retain release: Released, claimRef kept for the record.
    await server.client.updateStatus(ref, { ...kept, status: { ...(kept.status as object), phase: 'Released' } });
    await server.client.delete(ref, 'kept', { namespace: h.ns });
    await server.client.delete(ref, 'kept-default', { namespace: h.ns });
    await until('kept gone', async () => ((await h.get('kept')) ? undefined : true));
    await until('kept-default gone', async () => ((await h.get('kept-default')) ? undefined : true));
    assert.equal(h.external.callsOf('delete').length, 0, 'delete is never called');
    assert.ok(h.external.resources.has(h.key('kept')) && h.external.resources.has(h.key('kept-default')), 'the external resources and their data stay');
    const ev = await eventWithReason(h, 'kept', 'RetainedExternalResource');
    assert.match(String(ev.message), /rebindPolicy Retain leaves the external resource "fake-kept" and its data in place/);
  });

  test('Registered resources are released without waiting for them to disappear', async () => {
    const h = await harness({ lifecycle: 'Registered', sharing: 'Shared' });
    await h.create('registered', { rebindPolicy: 'Delete' });
    await readyObject(h, 'registered');
    h.external.delete = async () => {}; // a registered server never goes away
    await server.client.delete(ref, 'registered', { namespace: h.ns });
    await until('registered gone', async () => ((await h.get('registered')) ? undefined : true));
    assert.equal(h.external.callsOf('delete').length, 1);
    await eventWithReason(h, 'registered', 'ReleasedExternalResource');
  });

  test('failures back off exponentially per resource, then recover', async () => {
    const base = 40;
    const h = await harness({}, { backoff: { baseDelayMs: base, maxDelayMs: 10_000 } });
    let failures = 4;
    const observe = h.external.observe;
    h.external.observe = async (resource) => {
      if (failures-- > 0) throw new Error('connection refused by fake.example:443');
      return observe(resource);
    };
    // With the finalizer already there, no metadata write re-queues the key behind the backoff's back.
    await h.create('backoff', {}, undefined, [MANAGED_PROTECTION_FINALIZER]);
    const notSynced = await until('Synced=False', async () => {
      const o = await h.get('backoff');
      return condition(o, 'Synced')?.status === 'False' ? o : undefined;
    });
    assert.equal(condition(notSynced, 'Synced')?.reason, 'CannotObserve');
    assert.match(condition(notSynced, 'Synced')!.message, /connection refused by fake\.example:443/);
    await readyObject(h, 'backoff');
    const times = h.external.callsOf('observe').map((c) => c.at);
    assert.ok(times.length >= 5);
    for (let i = 1; i <= 4; i++) {
      const gap = times[i] - times[i - 1];
      const want = base * 2 ** (i - 1);
      assert.ok(gap >= want - 5, `retry ${i} waited ${gap} ms, want at least ${want} ms`);
    }
    const ev = await eventWithReason(h, 'backoff', 'CannotObserve');
    assert.equal(ev.count, 4, 'the four identical failures are one Event with count 4');
    assert.equal(condition(await h.get('backoff'), 'Synced')?.status, 'True');
  });

  test('a provider error carrying retryAfterSeconds (the cloud’s Retry-After) is retried after that time, not after the backoff', async () => {
    const h = await harness({}, { backoff: { baseDelayMs: 20, maxDelayMs: 2000 } });
    let failures = 2;
    const observe = h.external.observe;
    h.external.observe = async (resource) => {
      if (failures-- > 0) throw Object.assign(new Error('throttled by Fake Cloud; retrying in 1s'), { retryAfterSeconds: 1 });
      return observe(resource);
    };
    await h.create('throttled', {}, undefined, [MANAGED_PROTECTION_FINALIZER]);
    const notSynced = await until('Synced=False', async () => {
      const o = await h.get('throttled');
      return condition(o, 'Synced')?.status === 'False' ? o : undefined;
    });
    assert.equal(condition(notSynced, 'Synced')?.reason, 'CannotObserve');
    assert.match(condition(notSynced, 'Synced')!.message, /throttled by Fake Cloud; retrying in 1s/);
    await readyObject(h, 'throttled');
    const times = h.external.callsOf('observe').map((c) => c.at);
    assert.ok(times.length >= 3);
    for (let i = 1; i <= 2; i++) {
      const gap = times[i] - times[i - 1];
      assert.ok(gap >= 990, `retry ${i} waited ${gap} ms, want the 1 s the provider asked for (the backoff would wait ${20 * 2 ** (i - 1)} ms)`);
    }
  });

  test("a create's own writes start no second reconcile (their events come before their answers); another's write during the reconcile does", async () => {
    const h = await harness({}, { pollIntervalMs: 3_600_000 });
    await h.create('quiet', {}, undefined, [MANAGED_PROTECTION_FINALIZER]);
    await readyObject(h, 'quiet');
    // Observe (absent), create, observe after the create: one reconcile. The pending mark's and
    // the outcome's watch events reach the informer before the writes' answers reach the reconcile.
    await sleep(300);
    assert.equal(h.external.callsOf('connect', h.key('quiet')).length, 1, 'one reconcile: its own writes started none');
    assert.equal(h.external.callsOf('observe', h.key('quiet')).length, 2);

    // Someone else annotates the resource while the create runs: looked at again once it ends.
    const create = h.external.create;
    h.external.create = async (resource, options) => {
      if (resource.metadata.name === 'touched') {
        await server.client.patch(
          ref,
          'touched',
          'merge',
          { metadata: { annotations: { 'example.com/note': 'hello' } } },
          { namespace: h.ns, fieldManager: 'someone' },
        );
      }
      return create(resource, options);
    };
    await h.create('touched', {}, undefined, [MANAGED_PROTECTION_FINALIZER]);
    await until('a second reconcile of the annotated resource', () => (h.external.callsOf('connect', h.key('touched')).length >= 2 ? true : undefined));
  });

  test('the poll-interval annotation overrides the default interval', async () => {
    const h = await harness({}, { pollIntervalMs: 60_000 });
    await h.create('fast', {}, { [POLL_INTERVAL_ANNOTATION]: '100ms' });
    await h.create('slow');
    await readyObject(h, 'fast');
    await readyObject(h, 'slow');
    await sleep(200); // let the reconciles the creation's own writes queued finish
    const fastBefore = h.external.callsOf('observe', h.key('fast')).length;
    const slowBefore = h.external.callsOf('observe', h.key('slow')).length;
    // Three polls of the annotated one (about 300 ms; however slow the machine) while the
    // other one is left alone for its 60 s default.
    await until(
      'three more observes of the annotated resource',
      () => (h.external.callsOf('observe', h.key('fast')).length - fastBefore >= 3 ? true : undefined),
      10_000,
    );
    const slow = h.external.callsOf('observe', h.key('slow')).length - slowBefore;
    assert.equal(slow, 0, 'the other one waits for the 60 s default');
  });

  test("connect gets the Provider and the decoded credentials (the kind's Secret, else the Provider's)", async () => {
    const viaKind = await harness({ credentialsSecretRef: (r) => ({ namespace: r.metadata.namespace!, name: 'admin-creds' }) });
    const viaProvider = await harness();
    for (const h of [viaKind, viaProvider]) {
      for (const [name, user] of [
        ['admin-creds', 'kind-admin'],
        ['provider-creds', 'provider-admin'],
      ] as const) {
        await server.client.create(builtinRefs.secrets, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace: h.ns },
          data: { username: Buffer.from(user).toString('base64'), password: Buffer.from('pa55 wörd').toString('base64') },
        });
      }
      await server.client.create(
        providerKind.ref,
        providerKind.make({ metadata: { name: 'local', namespace: h.ns }, spec: { type: 'local', credentialsSecretRef: { name: 'provider-creds' } } }),
      );
      await h.create('withcreds', { providerRef: { name: 'local' } });
      await readyObject(h, 'withcreds');
    }
    const kindCtx = viaKind.external.callsOf('connect')[0].context!;
    assert.deepEqual(kindCtx.credentials, { username: 'kind-admin', password: 'pa55 wörd' });
    assert.equal(kindCtx.provider?.metadata.name, 'local');
    const providerCtx = viaProvider.external.callsOf('connect')[0].context!;
    assert.deepEqual(providerCtx.credentials, { username: 'provider-admin', password: 'pa55 wörd' });
  });

  test('a missing Provider stops the reconcile before any provider call, with Synced=False', async () => {
    const h = await harness();
    await h.create('orphan', { providerRef: { name: 'nowhere' } });
    const ev = await eventWithReason(h, 'orphan', 'CannotConnect');
    assert.match(String(ev.message), /cannot read Provider managed-\d+\/nowhere named by spec\.providerRef/);
    const obj = await until('Synced=False', async () => {
      const o = await h.get('orphan');
      return condition(o, 'Synced')?.status === 'False' ? o : undefined;
    });
    assert.equal(condition(obj, 'Synced')?.reason, 'CannotConnect');
    assert.equal(phase(obj), 'Pending');
    assert.equal(h.external.callsOf('connect').length, 0);
  });

  test('deleting a resource whose Provider never existed is not blocked: nothing was created, the object goes', async () => {
    const h = await harness();
    await h.create('typo', { providerRef: { name: 'nowhere' }, rebindPolicy: 'Delete' });
    await eventWithReason(h, 'typo', 'CannotConnect');
    await server.client.delete(ref, 'typo', { namespace: h.ns });
    await until('typo gone', async () => ((await h.get('typo')) ? undefined : true));
    const ev = await eventWithReason(h, 'typo', 'DependencyNotFound');
    assert.match(String(ev.message), /Provider managed-\d+\/nowhere does not exist; no create was ever recorded/);
    assert.equal(h.external.callsOf('connect').length, 0);
  });

  test('a registered resource whose credentials Secret is gone is deleted (delete only forgets it); a created one waits for the Secret', async () => {
    const reg = await harness({
      lifecycle: 'Registered',
      sharing: 'Shared',
      credentialsSecretRef: (r) => ({ namespace: r.metadata.namespace!, name: 'admin' }),
    });
    const managed = await harness({ credentialsSecretRef: (r) => ({ namespace: r.metadata.namespace!, name: 'admin' }) });
    for (const h of [reg, managed]) {
      await server.client.create(builtinRefs.secrets, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'admin', namespace: h.ns },
        data: { password: Buffer.from('pw').toString('base64') },
      });
      await h.create('srv', { rebindPolicy: 'Delete' });
      await readyObject(h, 'srv');
      await server.client.delete(builtinRefs.secrets, 'admin', { namespace: h.ns });
      await server.client.delete(ref, 'srv', { namespace: h.ns });
    }
    await until('registered srv gone', async () => ((await reg.get('srv')) ? undefined : true));
    const ev = await eventWithReason(reg, 'srv', 'DependencyNotFound');
    assert.match(String(ev.message), /credentials Secret managed-\d+\/admin does not exist; a registered resource is only forgotten/);
    // A reconcile still queued when the Secret went may say CannotConnect first (without the deletion's words).
    const deletionWaits = /credentials Secret managed-\d+\/admin: it does not exist; restore it so the deletion can finish/;
    const waiting = await eventWithReason(managed, 'srv', 'CannotConnect', deletionWaits);
    assert.match(String(waiting.message), deletionWaits);
    assert.ok(await managed.get('srv'), 'a created external resource is not abandoned for a missing Secret');
    await server.client.create(builtinRefs.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'admin', namespace: managed.ns },
      data: { password: Buffer.from('pw').toString('base64') },
    });
    await until('managed srv gone once the Secret is back', async () => ((await managed.get('srv')) ? undefined : true), 10_000);
    assert.equal(managed.external.resources.has(managed.key('srv')), false);
  });

  test('a resource created through a Provider it no longer names: deletion goes on without the Provider, or says what is left', async () => {
    const h = await harness();
    await server.client.create(providerKind.ref, providerKind.make({ metadata: { name: 'p', namespace: h.ns }, spec: { type: 'local' } }));
    await h.create('moved', { providerRef: { name: 'p' }, rebindPolicy: 'Delete' });
    await h.create('stranded', { providerRef: { name: 'p' }, rebindPolicy: 'Delete' });
    for (const name of ['moved', 'stranded']) {
      await readyObject(h, name);
      // The provider-in-use check refuses to delete a Provider that is named, but a providerRef can be changed.
      await server.client.patch(ref, name, 'merge', { spec: { providerRef: { name: 'gone' } } }, { namespace: h.ns });
    }
    // The fake reaches 'moved' without a Provider; 'stranded' cannot be reached without one.
    h.external.connect = async (resource, context) => {
      if (resource.metadata.name === 'stranded' && !context.provider) throw new Error('no endpoint without a Provider');
    };
    await server.client.delete(ref, 'moved', { namespace: h.ns });
    await until('moved gone', async () => ((await h.get('moved')) ? undefined : true));
    assert.equal(h.external.resources.has(h.key('moved')), false, 'the external resource was deleted');
    assert.equal(h.external.callsOf('delete', h.key('moved')).length >= 1, true);

    await server.client.delete(ref, 'stranded', { namespace: h.ns });
    await until('stranded gone', async () => ((await h.get('stranded')) ? undefined : true));
    const left = await eventWithReason(h, 'stranded', 'ExternalResourceLeft');
    assert.equal(left.type, 'Warning');
    assert.match(
      String(left.message),
      /Provider managed-\d+\/gone named by spec\.providerRef does not exist .*no endpoint without a Provider.*external resource "fake-stranded" may be left behind \(it was created at /,
    );
    assert.ok(h.external.resources.has(h.key('stranded')), 'what could not be reached is left (and said so)');
  });

  // Broken credentials: the Provider exists but its connector refuses to connect (a key missing from its Secret).
  const brokenCredentialsCases: { reason: string; annotations: Record<string, string> | undefined; connectsAtFirst: boolean; wantReleased: boolean }[] = [
    {
      reason: 'never created (connect failed from the start): the object goes with a Normal ReleasedWithoutProvider, no provider call',
      annotations: undefined,
      connectsAtFirst: false,
      wantReleased: true,
    },
    {
      reason: 'only a failed create recorded: nothing was made, the object goes',
      annotations: { [EXTERNAL_CREATE_PENDING_ANNOTATION]: '2026-01-01T00:00:00.000Z', [EXTERNAL_CREATE_FAILED_ANNOTATION]: '2026-01-01T00:00:01.000Z' },
      connectsAtFirst: false,
      wantReleased: true,
    },
    {
      reason: 'created before the credentials broke: the deletion waits with CannotConnect saying what to fix, and finishes once they are fixed',
      annotations: undefined,
      connectsAtFirst: true,
      wantReleased: false,
    },
    {
      reason: 'imported (an external name set by an administrator): the deletion waits likewise',
      annotations: { [EXTERNAL_NAME_ANNOTATION]: 'imported-1' },
      connectsAtFirst: false,
      wantReleased: false,
    },
    {
      reason: 'a create started whose outcome is unknown: the deletion waits likewise',
      annotations: { [EXTERNAL_CREATE_PENDING_ANNOTATION]: '2026-01-01T00:00:00.000Z' },
      connectsAtFirst: false,
      wantReleased: false,
    },
  ];
  for (const c of brokenCredentialsCases) {
    test(`deletion with credentials the provider refuses — ${c.reason}`, async () => {
      const h = await harness();
      await server.client.create(providerKind.ref, providerKind.make({ metadata: { name: 'p', namespace: h.ns }, spec: { type: 'local' } }));
      let broken = !c.connectsAtFirst;
      h.external.connect = async () => {
        if (broken) throw new Error('the credentials Secret has accessKeyId but no secretAccessKey: add secretAccessKey');
      };
      await h.create('r', { providerRef: { name: 'p' }, rebindPolicy: 'Delete' }, c.annotations);
      if (c.connectsAtFirst) {
        await readyObject(h, 'r');
        broken = true;
      } else {
        await eventWithReason(h, 'r', 'CannotConnect');
      }
      const callsBefore = h.external.calls.filter((x) => x.method !== 'connect').length;
      await server.client.delete(ref, 'r', { namespace: h.ns });
      if (c.wantReleased) {
        await until('r gone', async () => ((await h.get('r')) ? undefined : true));
        const ev = await eventWithReason(h, 'r', 'ReleasedWithoutProvider');
        assert.equal(ev.type, 'Normal');
        assert.match(String(ev.message), /no secretAccessKey.*no create was ever recorded for this resource, so nothing external was made: deleted the object/);
        assert.equal(h.external.calls.filter((x) => x.method !== 'connect').length, callsBefore, 'no provider call but connect');
        return;
      }
      const waiting = await until('Synced=False naming what to fix', async () => {
        const o = await h.get('r');
        const synced = condition(o, 'Synced');
        return o?.metadata.deletionTimestamp && synced?.status === 'False' && /deletion waits/.test(synced.message ?? '') ? synced : undefined;
      });
      assert.equal(waiting.reason, 'CannotConnect');
      assert.match(
        waiting.message ?? '',
        /cannot connect to the provider: .*no secretAccessKey.*records an external resource \(created or imported\), so the deletion waits .*fix what stops Provider p from connecting — usually its credentials Secret/,
      );
      await sleep(200); // several backoffs
      assert.ok(await h.get('r'), 'what may hold an external resource is not released');
      assert.equal((await h.events('r')).filter((e) => e.reason === 'ReleasedWithoutProvider').length, 0);
      broken = false;
      await until('r gone once the credentials work', async () => ((await h.get('r')) ? undefined : true), 10_000);
      assert.equal(h.external.resources.has(h.key('r')), false);
    });
  }

  test('a connection Secret owned by something else is not taken over', async () => {
    const h = await harness();
    await server.client.create(builtinRefs.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'taken-connection', namespace: h.ns },
      data: { keep: 'bWU=' },
    });
    await h.create('taken');
    const ev = await eventWithReason(h, 'taken', 'CannotPublishConnection');
    assert.match(String(ev.message), /already exists and has no controller/);
    const secret = await server.client.get(builtinRefs.secrets, 'taken-connection', h.ns);
    assert.deepEqual(secret.data, { keep: 'bWU=' });
  });
});

describe('startManagedReconcilers', () => {
  test("a kind's own workers apply unless the options set them", async () => {
    const external = new FakeExternal();
    const busy: ConcreteKind = { ...fakeKind(external, kindNames), workers: 16 };
    const plain = fakeKind(external, {
      group: postgresqlServerKind.group,
      version: postgresqlServerKind.version,
      kind: postgresqlServerKind.kind,
      plural: postgresqlServerKind.plural,
      sharing: 'Shared',
    });
    const provider: ProviderModule = { type: 'local', kinds: [busy, plain] };
    const ns = `managed-${++namespaces}`;
    const byKind = async (options: ManagedReconcilerOptions) => {
      const started = startManagedReconcilers(server.client, [provider], { namespace: ns, ...options });
      try {
        return Object.fromEntries(started.reconcilers.map((r) => [r.kind.kind, r.options.workers]));
      } finally {
        await started.stop();
      }
    };
    assert.deepEqual(await byKind({}), { [kindNames.kind]: 16, [postgresqlServerKind.kind]: 4 });
    assert.deepEqual(await byKind({ workers: 2 }), { [kindNames.kind]: 2, [postgresqlServerKind.kind]: 2 });
  });

  test('starts one reconciler per concrete kind and stops the providers with them', async () => {
    const external = new FakeExternal();
    let stopped = 0;
    const kinds: ConcreteKind[] = [
      fakeKind(external, kindNames),
      fakeKind(external, {
        group: postgresqlServerKind.group,
        version: postgresqlServerKind.version,
        kind: postgresqlServerKind.kind,
        plural: postgresqlServerKind.plural,
        sharing: 'Shared',
      }),
    ];
    const provider: ProviderModule = { type: 'local', kinds, stop: async () => void stopped++ };
    const ns = `managed-${++namespaces}`;
    await server.client.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const started = startManagedReconcilers(server.client, [provider], { namespace: ns, pollIntervalMs: 100 });
    try {
      assert.deepEqual(
        started.reconcilers.map((r) => r.kind.kind),
        [kindNames.kind, postgresqlServerKind.kind],
      );
      await server.client.create(
        postgresqlServerKind.ref,
        postgresqlServerKind.make({
          metadata: { name: 'pg', namespace: ns },
          spec: { host: 'db', adminCredentialsSecretRef: { name: 'x' }, rebindPolicy: 'Retain', managementPolicy: 'Full' },
        }),
      );
      await until('the PostgreSQLServer reconciled', async () => {
        const o = await server.client.get(postgresqlServerKind.ref, 'pg', ns);
        return condition(o, 'Ready')?.status === 'True' ? o : undefined;
      });
    } finally {
      await started.stop();
    }
    assert.equal(stopped, 1, 'the provider was stopped');
  });

  test('refuses two providers contributing the same kind', () => {
    const external = new FakeExternal();
    const a: ProviderModule = { type: 'local', kinds: [fakeKind(external, kindNames)] };
    const b: ProviderModule = { type: 'kubernetes', kinds: [fakeKind(external, kindNames)] };
    assert.throws(() => startManagedReconcilers(server.client, [a, b]), /contributed by providers "local" and "kubernetes"/);
  });
});

describe('in-use protection', () => {
  const claimRef = postgresqlInstanceKind.ref;
  const makeClaim = async (ns: string, name: string, finalizers?: string[]) =>
    server.client.create(claimRef, postgresqlInstanceKind.make({ metadata: { name, namespace: ns, ...(finalizers ? { finalizers } : {}) }, spec: {} }));
  const refTo = (c: KObject) => ({ apiVersion: c.apiVersion, kind: c.kind, namespace: c.metadata.namespace!, name: c.metadata.name!, uid: c.metadata.uid! });
  const inUse = (o: KObject | undefined) => condition(o, 'InUse');

  test('an Exclusive resource bound to a live claim waits, keeps being reconciled, and goes by its policy once the claim is gone', async () => {
    const h = await harness({}, { inUseCheckMs: 50 });
    const claim = await makeClaim(h.ns, 'app');
    await h.create('bound', { rebindPolicy: 'Delete', claimRef: refTo(claim) });
    await readyObject(h, 'bound');
    await server.client.delete(ref, 'bound', { namespace: h.ns });
    const waiting = await until('InUse=True', async () => {
      const o = await h.get('bound');
      return inUse(o)?.status === 'True' ? o : undefined;
    });
    assert.ok(waiting.metadata.deletionTimestamp, 'the object shows its deletion');
    assert.equal(inUse(waiting)?.reason, 'WaitingForRelease');
    assert.match(inUse(waiting)!.message, new RegExp(`waiting for claim ${h.ns}/app to release this resource`));
    const ev = await eventWithReason(h, 'bound', 'WaitingForRelease');
    assert.match(String(ev.message), /rebindPolicy Delete applies/);
    // Still served: drift is corrected while it waits; nothing is deleted.
    h.external.resources.get(h.key('bound'))!.drift = 'stopped';
    await until('drift corrected while waiting', () => (h.external.resources.get(h.key('bound'))?.drift === undefined ? true : undefined));
    await sleep(200);
    assert.equal(h.external.callsOf('delete').length, 0, 'the external resource is untouched while the claim uses it');
    assert.ok(await h.get('bound'));

    await server.client.delete(claimRef, 'app', { namespace: h.ns });
    await until('bound gone', async () => ((await h.get('bound')) ? undefined : true));
    assert.ok(h.external.callsOf('delete', h.key('bound')).length >= 1, 'then deleted by its policy');
    assert.equal(h.external.resources.has(h.key('bound')), false);
  });

  test('a Shared resource waits for every bound claim', async () => {
    const h = await harness({ sharing: 'Shared' }, { inUseCheckMs: 50 });
    const a = await makeClaim(h.ns, 'a');
    const b = await makeClaim(h.ns, 'b');
    await h.create('shared', { rebindPolicy: 'Delete', sharing: { mode: 'Shared' } });
    const obj = await readyObject(h, 'shared');
    await server.client.updateStatus(ref, {
      ...obj,
      status: { ...(obj.status as object), phase: 'Bound', bindings: [{ claimRef: refTo(a) }, { claimRef: refTo(b) }] },
    });
    await server.client.delete(ref, 'shared', { namespace: h.ns });
    await until('waiting for both', async () => (/2 claims \(.*\/a, .*\/b\)/.test(inUse(await h.get('shared'))?.message ?? '') ? true : undefined));
    await server.client.delete(claimRef, 'a', { namespace: h.ns });
    await until('waiting for b only', async () =>
      new RegExp(`waiting for claim ${h.ns}/b to`).test(inUse(await h.get('shared'))?.message ?? '') ? true : undefined,
    );
    assert.equal(h.external.callsOf('delete').length, 0);
    await server.client.delete(claimRef, 'b', { namespace: h.ns });
    await until('shared gone', async () => ((await h.get('shared')) ? undefined : true));
  });

  test('no wait for a claim that is being deleted (it is releasing the resource), a stale uid, a missing claim, or a Released resource', async () => {
    const h = await harness({}, { inUseCheckMs: 50 });
    const releasing = await makeClaim(h.ns, 'releasing', ['test.conductor.io/hold']);
    await server.client.delete(claimRef, 'releasing', { namespace: h.ns });
    const live = await makeClaim(h.ns, 'live');
    await h.create('r1', { rebindPolicy: 'Delete', claimRef: refTo(releasing) });
    await h.create('r2', { rebindPolicy: 'Delete', claimRef: { ...refTo(live), uid: 'not-the-claims-uid' } });
    await h.create('r3', { rebindPolicy: 'Delete', claimRef: { ...refTo(live), name: 'no-such-claim' } });
    const r4 = await h.create('r4', { rebindPolicy: 'Retain', claimRef: refTo(live) });
    for (const n of ['r1', 'r2', 'r3', 'r4']) await readyObject(h, n);
    const fresh = (await h.get('r4'))!;
    await server.client.updateStatus(ref, { ...fresh, status: { ...(fresh.status as object), phase: 'Released' } });
    void r4;
    for (const n of ['r1', 'r2', 'r3', 'r4']) await server.client.delete(ref, n, { namespace: h.ns });
    for (const n of ['r1', 'r2', 'r3', 'r4']) await until(`${n} gone`, async () => ((await h.get(n)) ? undefined : true));
    const events = (await Promise.all(['r1', 'r2', 'r3', 'r4'].map((n) => h.events(n)))).flat();
    assert.equal(events.filter((e) => e.reason === 'WaitingForRelease').length, 0);
    const held = await server.client.get(claimRef, 'releasing', h.ns);
    await server.client.update(claimRef, { ...held, metadata: { ...held.metadata, finalizers: [] } });
  });
});
