/**
 * What the claim controller must not believe or share (issue 10): a claim's status names a
 * resource, but only the resource's own record (spec.claimRef, status.bindings) binds it;
 * binding Secrets of different claims never share a name; what a class provisions lives in
 * the system namespace; a class in a tenant's namespace is that tenant's; a resource's
 * failure reaches its claim. Against the real API server and controllers in one process, with
 * the memory provider; the status writes a tenant could once make are made with the loopback
 * client (which may write any status), so the controller alone is what refuses.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startConductor as startServer } from '../../conductor/index.js';
import { apiRefs } from '../../conductor/catalog.js';
import { builtinRefs, type Client } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import type { Condition, KObject } from '../../machinery/object.js';
import { startControllersAndProviders as startConductorControllers } from '../../conductor/controllers.js';

const SYS = 'conductor-system';
const MEMORY = 'database.memory.conductor.io/v1alpha1';
const PG = 'storage.conductor.io/v1alpha1';

type Status = { phase?: string; conditions?: Condition[]; resourceRef?: { name: string; namespace: string } };
const statusOf = (o: KObject | undefined): Status => o?.status ?? {};
const condition = (o: KObject | undefined, type: string) => statusOf(o).conditions?.find((c) => c.type === type);

async function until<T>(probe: () => Promise<T | undefined | false>, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function getOrUndefined(c: Client, ref: typeof builtinRefs.secrets, name: string, namespace: string): Promise<KObject | undefined> {
  try {
    return await c.get<KObject>(ref, name, namespace);
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}

const decoded = (s: KObject) =>
  Object.fromEntries(Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

describe('the claim controller trusts only what resources record', () => {
  let dataDir: string;
  let server: Awaited<ReturnType<typeof startServer>>;
  let controllers: Awaited<ReturnType<typeof startConductorControllers>>;
  let c: Client;

  const claim = (namespace: string, name: string, spec: Record<string, unknown>): KObject => ({
    apiVersion: PG,
    kind: 'PostgreSQLInstance',
    metadata: { name, namespace },
    spec,
  });
  const memoryDb = (name: string, spec: Record<string, unknown> = {}): KObject => ({
    apiVersion: MEMORY,
    kind: 'MemoryDatabase',
    metadata: { name, namespace: SYS },
    spec: { version: '16.4', ...spec },
  });
  const getClaim = (ns: string, name: string) => c.get<KObject>(apiRefs.postgresqlinstances, name, ns);
  const ready = (ns: string, name: string) =>
    until(async () => (condition(await getClaim(ns, name), 'Ready')?.status === 'True' ? getClaim(ns, name) : undefined), `claim ${ns}/${name} Ready`);

  /** Writes a claim's status as its owner once could, then changes its labels so it is reconciled. */
  async function forge(ns: string, name: string, status: Record<string, unknown>): Promise<void> {
    const cur = await getClaim(ns, name);
    const written = await c.updateStatus(apiRefs.postgresqlinstances, { ...cur, status: { ...statusOf(cur), ...status } });
    await c.patch(
      apiRefs.postgresqlinstances,
      name,
      'merge',
      { metadata: { resourceVersion: written.metadata.resourceVersion, labels: { touched: String(Date.now()) } } },
      { namespace: ns },
    );
  }

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'conductor-claim-trust-'));
    server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }), controllers: false });
    c = server.client;
    controllers = await startConductorControllers(c, { dataDir, logger: pino({ level: 'silent' }) });
    for (const ns of ['victim', 'attacker', 'x', 'x-y', 'team-a', 'team-b']) {
      await c.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
  });
  after(async () => {
    await controllers?.stop();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("a forged status.resourceRef to another tenant's Exclusive resource publishes nothing, and releasing it changes nothing", async () => {
    const victimDb = await c.create(apiRefs.memorydatabases, memoryDb('victim-db', { sharing: { mode: 'Exclusive' } }));
    await c.create(apiRefs.postgresqlinstances, claim('victim', 'app-db', { resourceName: 'victim-db' }));
    await ready('victim', 'app-db');
    const victimSecret = decoded(await c.get<KObject>(builtinRefs.secrets, 'app-db', 'victim'));
    assert.ok(victimSecret.password, 'the victim has its password');

    await c.create(apiRefs.postgresqlinstances, claim('attacker', 'thief', { resourceName: 'does-not-exist' }));
    await until(async () => statusOf(await getClaim('attacker', 'thief')).phase === 'Pending', 'the thief claim Pending');
    await forge('attacker', 'thief', {
      phase: 'Bound',
      resourceRef: { apiVersion: MEMORY, kind: 'MemoryDatabase', namespace: SYS, name: 'victim-db', uid: victimDb.metadata.uid },
    });

    // Either the controller refuses (Lost) or it hands over the victim's details (the bug).
    const thief = await until(async () => {
      const t = await getClaim('attacker', 'thief');
      const leaked = await getOrUndefined(c, builtinRefs.secrets, 'thief', 'attacker');
      return statusOf(t).phase === 'Lost' || leaked ? t : undefined;
    }, 'the forged claim to be judged');
    assert.equal(
      await getOrUndefined(c, builtinRefs.secrets, 'thief', 'attacker'),
      undefined,
      "no Secret with the victim's details in the attacker's namespace",
    );
    assert.equal(await getOrUndefined(c, builtinRefs.configmaps, 'thief', 'attacker'), undefined, 'no ConfigMap either');
    assert.equal(statusOf(thief).phase, 'Lost');
    assert.equal(condition(thief, 'Ready')?.status, 'False');
    // The same words as for a resource that does not exist (asserted below).
    assert.equal(condition(thief, 'Bound')?.message, `MemoryDatabase ${SYS}/victim-db no longer exists or is not bound to this claim`);

    // Deleting the thief releases nothing of the victim's.
    await c.delete(apiRefs.postgresqlinstances, 'thief', { namespace: 'attacker' });
    await until(async () => !(await getOrUndefined(c, apiRefs.postgresqlinstances as never, 'thief', 'attacker')), 'the thief claim gone');
    const db = await c.get<KObject>(apiRefs.memorydatabases, 'victim-db', SYS);
    assert.equal((db.spec as { claimRef?: { name?: string } }).claimRef?.name, 'app-db', 'the victim keeps its resource');
    assert.equal(statusOf(await getClaim('victim', 'app-db')).phase, 'Bound');
    assert.deepEqual(decoded(await c.get<KObject>(builtinRefs.secrets, 'app-db', 'victim')), victimSecret, "the victim's Secret is unchanged");
  });

  test('a forged status.resourceRef to a resource that does not exist reads the same', async () => {
    await c.create(apiRefs.postgresqlinstances, claim('attacker', 'prober', { resourceName: 'does-not-exist' }));
    await until(async () => statusOf(await getClaim('attacker', 'prober')).phase === 'Pending', 'the prober claim Pending');
    await forge('attacker', 'prober', {
      phase: 'Bound',
      resourceRef: { apiVersion: MEMORY, kind: 'MemoryDatabase', namespace: SYS, name: 'no-such-db', uid: 'made-up' },
    });
    const t = await until(async () => {
      const got = await getClaim('attacker', 'prober');
      return statusOf(got).phase === 'Lost' ? got : undefined;
    }, 'the prober claim Lost');
    assert.equal(condition(t, 'Bound')?.message, `MemoryDatabase ${SYS}/no-such-db no longer exists or is not bound to this claim`);
  });

  test("a forged status.resourceRef to another tenant's Shared resource gets no share and removes none", async () => {
    await c.create(apiRefs.memorydatabases, memoryDb('shared-db', { sharing: { mode: 'Shared' }, capabilities: { capacity: { storage: '10Gi' } } }));
    await c.create(apiRefs.postgresqlinstances, claim('victim', 'shop-db', { resourceName: 'shared-db' }));
    await ready('victim', 'shop-db');
    const shared = await c.get<KObject>(apiRefs.memorydatabases, 'shared-db', SYS);
    const bindingsBefore = (shared.status as { bindings?: unknown[] }).bindings;
    assert.equal(bindingsBefore?.length, 1);
    const victimSecret = decoded(await c.get<KObject>(builtinRefs.secrets, 'shop-db', 'victim'));

    await c.create(apiRefs.postgresqlinstances, claim('attacker', 'sharer', { resourceName: 'does-not-exist' }));
    await until(async () => statusOf(await getClaim('attacker', 'sharer')).phase === 'Pending', 'the sharer claim Pending');
    await forge('attacker', 'sharer', {
      phase: 'Bound',
      resourceRef: { apiVersion: MEMORY, kind: 'MemoryDatabase', namespace: SYS, name: 'shared-db', uid: shared.metadata.uid },
    });
    await until(async () => {
      const leaked = await getOrUndefined(c, builtinRefs.secrets, 'sharer', 'attacker');
      return statusOf(await getClaim('attacker', 'sharer')).phase === 'Lost' || leaked !== undefined;
    }, 'the forged shared claim to be judged');
    assert.equal(await getOrUndefined(c, builtinRefs.secrets, 'sharer', 'attacker'), undefined, 'no share was made for the attacker');
    const secretsBeside = (await c.list(builtinRefs.secrets, { namespace: SYS })).items.map((s) => s.metadata.name!);
    assert.ok(!secretsBeside.some((n) => n.includes('attacker')), `no binding Secret for the attacker: ${secretsBeside.join(', ')}`);

    await c.delete(apiRefs.postgresqlinstances, 'sharer', { namespace: 'attacker' });
    await until(async () => !(await getOrUndefined(c, apiRefs.postgresqlinstances as never, 'sharer', 'attacker')), 'the sharer claim gone');
    const after = await c.get<KObject>(apiRefs.memorydatabases, 'shared-db', SYS);
    assert.deepEqual((after.status as { bindings?: unknown[] }).bindings, bindingsBefore, "the victim's binding is untouched");
    assert.deepEqual(decoded(await c.get<KObject>(builtinRefs.secrets, 'shop-db', 'victim')), victimSecret);
  });

  test('a reservation by namespace and name (no uid yet) is taken up by that claim, and by no other', async () => {
    await c.create(
      apiRefs.memorydatabases,
      memoryDb('reserved-db', {
        sharing: { mode: 'Exclusive' },
        claimRef: { apiVersion: PG, kind: 'PostgreSQLInstance', namespace: 'team-a', name: 'reserved' },
      }),
    );
    await c.create(apiRefs.postgresqlinstances, claim('team-b', 'reserved', { resourceName: 'reserved-db' }));
    await c.create(apiRefs.postgresqlinstances, claim('team-a', 'reserved', { resourceName: 'reserved-db' }));
    const bound = await ready('team-a', 'reserved');
    assert.equal(statusOf(bound).resourceRef?.name, 'reserved-db');
    const db = await c.get<KObject>(apiRefs.memorydatabases, 'reserved-db', SYS);
    assert.equal((db.spec as { claimRef?: { uid?: string } }).claimRef?.uid, bound.metadata.uid, 'the reservation now records the uid');
    const other = await getClaim('team-b', 'reserved');
    assert.equal(statusOf(other).phase, 'Pending');
    assert.equal(condition(other, 'Scheduled')?.message, '0/0 candidates: no resource named "reserved-db"');
  });

  test("a claim never overwrites a Secret that is not its own (writeConnectionSecretToRef naming the developer's Secret)", async () => {
    await c.create(builtinRefs.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'app-secret', namespace: 'team-a' },
      data: { token: Buffer.from('keep me').toString('base64') },
    });
    await c.create(apiRefs.memorydatabases, memoryDb('target-db', { sharing: { mode: 'Exclusive' } }));
    await c.create(apiRefs.postgresqlinstances, claim('team-a', 'clobber', { resourceName: 'target-db', writeConnectionSecretToRef: { name: 'app-secret' } }));
    const got = await until(async () => {
      const o = await getClaim('team-a', 'clobber');
      return condition(o, 'Ready')?.reason === 'ConnectionSecretConflict' ? o : undefined;
    }, 'the claim to refuse to overwrite app-secret');
    assert.match(condition(got, 'Ready')!.message, /Secret team-a\/app-secret already exists and is not controlled by Conductor/);
    assert.deepEqual(decoded(await c.get<KObject>(builtinRefs.secrets, 'app-secret', 'team-a')), { token: 'keep me' });
  });

  test("binding Secrets of claims x/y-c and x-y/c are two Secrets, each with its claim's credentials", async () => {
    await c.create(apiRefs.memorydatabases, memoryDb('pool-db', { sharing: { mode: 'Shared' }, capabilities: { capacity: { storage: '10Gi' } } }));
    await c.create(apiRefs.postgresqlinstances, claim('x', 'y-c', { resourceName: 'pool-db' }));
    await c.create(apiRefs.postgresqlinstances, claim('x-y', 'c', { resourceName: 'pool-db' }));
    await Promise.all([ready('x', 'y-c'), ready('x-y', 'c')]);
    const one = decoded(await c.get<KObject>(builtinRefs.secrets, 'y-c', 'x'));
    const two = decoded(await c.get<KObject>(builtinRefs.secrets, 'c', 'x-y'));
    assert.notEqual(one.username, two.username);
    assert.notEqual(one.password, two.password);
    const binding = (await c.list(builtinRefs.secrets, { namespace: SYS })).items.filter((s) => s.metadata.name!.startsWith('pool-db-'));
    assert.equal(binding.length, 2, `one binding Secret per claim: ${binding.map((s) => s.metadata.name).join(', ')}`);
    const byUser = new Map(binding.map((s) => [decoded(s).username, decoded(s)]));
    assert.deepEqual(byUser.get(one.username)?.password, one.password);
    assert.deepEqual(byUser.get(two.username)?.password, two.password);
  });

  test('a binding made before hashed names keeps its credentials: carried over from the old Secret, which goes', async () => {
    // The claim exists first (its uid goes into the binding), pending on a name nothing has yet.
    // It asks for more than the resource has, so the scheduler does not bind it before the old binding is written.
    const old = await c.create(
      apiRefs.postgresqlinstances,
      claim('victim', 'legacy', { resourceName: 'legacy-db', requirements: { capacity: { storage: '20Gi' } } }),
    );
    await until(async () => statusOf(await getClaim('victim', 'legacy')).phase === 'Pending', 'the legacy claim Pending');
    const legacyName = 'legacy-db-victim-legacy';
    await c.create(builtinRefs.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: legacyName, namespace: SYS },
      type: 'Opaque',
      data: { username: Buffer.from('victim_legacy').toString('base64'), password: Buffer.from('the-old-password').toString('base64') },
    });
    const db = await c.create(apiRefs.memorydatabases, memoryDb('legacy-db', { sharing: { mode: 'Shared' }, capabilities: { capacity: { storage: '10Gi' } } }));
    const claimRef = { apiVersion: PG, kind: 'PostgreSQLInstance', namespace: 'victim', name: 'legacy', uid: old.metadata.uid };
    await until(async () => {
      const cur = await c.get<KObject>(apiRefs.memorydatabases, 'legacy-db', SYS);
      if ((cur.status as { bindings?: unknown[] } | undefined)?.bindings?.length) return true;
      await c.updateStatus(apiRefs.memorydatabases, {
        ...cur,
        status: { ...(cur.status ?? {}), bindings: [{ claimRef, requests: { storage: '20Gi' }, secretName: legacyName }], phase: 'Bound' },
      });
      return false;
    }, 'the old binding recorded');
    assert.ok(db.metadata.uid);
    const got = await ready('victim', 'legacy');
    assert.equal(statusOf(got).resourceRef?.name, 'legacy-db');
    assert.equal(decoded(await c.get<KObject>(builtinRefs.secrets, 'legacy', 'victim')).password, 'the-old-password', 'the claim keeps its password');
    await until(async () => (await getOrUndefined(c, builtinRefs.secrets, legacyName, SYS)) === undefined, 'the old binding Secret removed');
    const hashed = (await c.list(builtinRefs.secrets, { namespace: SYS })).items.filter((o) => /^legacy-db-victim-legacy-[0-9a-f]{16}$/.test(o.metadata.name!));
    assert.equal(hashed.length, 1);
    assert.equal(decoded(hashed[0]).password, 'the-old-password');
  });

  test("a class in a tenant's namespace serves only that namespace, and what it provisions lives in the system namespace", async () => {
    await c.create(apiRefs.resourceclasses, {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name: 'team-a-pg', namespace: 'team-a' },
      resourceClass: 'team-a-pg',
      supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
      rebindPolicy: 'Delete',
      template: { apiVersion: MEMORY, kind: 'MemoryDatabase', spec: { version: '16.4' } },
    });
    await c.create(apiRefs.postgresqlinstances, claim('team-b', 'other', { resourceClass: 'team-a-pg' }));
    await c.create(apiRefs.postgresqlinstances, claim('team-a', 'own', { resourceClass: 'team-a-pg' }));
    const own = await ready('team-a', 'own');
    assert.equal(statusOf(own).resourceRef?.namespace, SYS, 'provisioned into the system namespace, not team-a');
    assert.equal((await c.list(apiRefs.memorydatabases, { namespace: 'team-a' })).items.length, 0, 'nothing provisioned in team-a');
    const other = await until(async () => {
      const o = await getClaim('team-b', 'other');
      return condition(o, 'Scheduled')?.status === 'False' ? o : undefined;
    }, 'the team-b claim refused');
    assert.equal(statusOf(other).phase, 'Pending');
    assert.match(condition(other, 'Scheduled')!.message, /class of another namespace/);
  });

  test("a resource's failing condition (a Provider that does not exist) reaches its claim's Ready condition and Events", async () => {
    await c.create(apiRefs.resourceclasses, {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name: 'orphan', namespace: SYS },
      resourceClass: 'orphan',
      supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
      rebindPolicy: 'Delete',
      providerRef: { name: 'no-such-provider' },
      template: { apiVersion: MEMORY, kind: 'MemoryDatabase', spec: { version: '16.4' } },
    });
    await c.create(apiRefs.postgresqlinstances, claim('team-a', 'stuck', { resourceClass: 'orphan' }));
    const stuck = await until(async () => {
      const o = await getClaim('team-a', 'stuck');
      return condition(o, 'Ready')?.reason === 'CannotConnect' ? o : undefined;
    }, "the claim's Ready condition to carry the resource's failure");
    assert.equal(condition(stuck, 'Ready')?.status, 'False');
    assert.match(condition(stuck, 'Ready')!.message, /no-such-provider/);
    const events = await until(async () => {
      const list = (await c.list(builtinRefs.events, { namespace: 'team-a' })).items.filter(
        (e) => (e.involvedObject as { name?: string }).name === 'stuck' && e.type === 'Warning',
      );
      return list.length > 0 ? list : undefined;
    }, 'a Warning Event on the claim');
    assert.ok(
      events.some((e) => e.reason === 'CannotConnect' && /no-such-provider/.test(String(e.message))),
      JSON.stringify(events.map((e) => [e.reason, e.message])),
    );
  });
});
