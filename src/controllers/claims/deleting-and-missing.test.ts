/**
 * Claims and resources that are going away (issue 10 follow-up): a resource being deleted
 * takes no new claim (its deletion waits for every claim bound to it), and a claim's release
 * is never held up by a Provider that does not exist; a missing credentials Secret keeps it
 * waiting, with an Event saying what stays and what to restore. Against the real API server
 * and controllers in one process, with the memory provider (whose connector needs neither
 * Provider nor credentials, so only the controller's reading of them is what is tested).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startConductor as startServer } from '../../conductor/index.js';
import { apiRefs } from '../../conductor/catalog.js';
import { providerKind } from '../../apis/core/kinds.js';
import { builtinRefs, type Client } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import type { Condition, KObject } from '../../machinery/object.js';
import { startControllersAndProviders as startConductorControllers } from '../../conductor/controllers.js';

const SYS = 'conductor-system';
const MEMORY = 'database.memory.conductor.io/v1alpha1';
const PG = 'storage.conductor.io/v1alpha1';

type Status = { phase?: string; conditions?: Condition[]; bindings?: { claimRef: { name?: string; uid?: string } }[] };
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

describe('resources being deleted and dependencies that are gone', () => {
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
  const sharedDb = (name: string, provider: string): KObject => ({
    apiVersion: MEMORY,
    kind: 'MemoryDatabase',
    metadata: { name, namespace: SYS },
    spec: { version: '16.4', providerRef: { name: provider }, sharing: { mode: 'Shared', maxClaims: 10 }, rebindPolicy: 'Delete' },
  });
  const getClaim = (ns: string, name: string) => c.get<KObject>(apiRefs.postgresqlinstances, name, ns);
  const claimGone = (ns: string, name: string) => getOrUndefined(c, apiRefs.postgresqlinstances as never, name, ns).then((o) => o === undefined);
  const ready = (ns: string, name: string) =>
    until(async () => (condition(await getClaim(ns, name), 'Ready')?.status === 'True' ? getClaim(ns, name) : undefined), `claim ${ns}/${name} Ready`);
  const bindingNames = async (name: string) => (statusOf(await c.get<KObject>(apiRefs.memorydatabases, name, SYS)).bindings ?? []).map((b) => b.claimRef.name);
  const events = async (ns: string, involved: string, reason: string) =>
    (await c.list(builtinRefs.events, { namespace: ns })).items.filter((e) => (e.involvedObject as { name?: string }).name === involved && e.reason === reason);

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'conductor-claim-going-'));
    server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }), controllers: false });
    c = server.client;
    controllers = await startConductorControllers(c, { dataDir, logger: pino({ level: 'silent' }) });
    await c.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    await c.create(providerKind.ref, providerKind.make({ metadata: { name: 'plain', namespace: SYS }, spec: { type: 'local' } }));
    await c.create(builtinRefs.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'keyed-creds', namespace: SYS },
      data: { token: Buffer.from('t0ken').toString('base64') },
    });
    await c.create(
      providerKind.ref,
      providerKind.make({ metadata: { name: 'keyed', namespace: SYS }, spec: { type: 'local', credentialsSecretRef: { name: 'keyed-creds' } } }),
    );
  });
  after(async () => {
    await controllers?.stop();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a Shared resource being deleted takes no new claim, though it has free slots, and the claim says why', async () => {
    await c.create(apiRefs.memorydatabases, sharedDb('going-db', 'plain'));
    await c.create(apiRefs.postgresqlinstances, claim('team', 'first', { resourceName: 'going-db' }));
    await ready('team', 'first');
    // In-use protection: the resource waits for `first`, Terminating.
    await c.delete(apiRefs.memorydatabases, 'going-db', { namespace: SYS });
    await until(async () => (await c.get<KObject>(apiRefs.memorydatabases, 'going-db', SYS)).metadata.deletionTimestamp, 'going-db Terminating');

    // No resourceName: with one, every rejection reads as "no resource named" (no oracle).
    await c.create(apiRefs.postgresqlinstances, claim('team', 'late', {}));
    const late = await until(async () => {
      const o = await getClaim('team', 'late');
      return condition(o, 'Scheduled')?.status === 'False' || statusOf(o).phase === 'Bound' ? o : undefined;
    }, 'the late claim judged');
    assert.equal(statusOf(late).phase, 'Pending', 'not bound to a resource being deleted');
    assert.equal(condition(late, 'Scheduled')!.message, '0/1 candidates: 1 being deleted');
    assert.deepEqual(await bindingNames('going-db'), ['first'], 'the resource records no binding for the late claim');

    // Once its one claim goes, so does the resource.
    await c.delete(apiRefs.postgresqlinstances, 'first', { namespace: 'team' });
    await until(async () => (await getOrUndefined(c, apiRefs.memorydatabases as never, 'going-db', SYS)) === undefined, 'going-db gone');
    await c.delete(apiRefs.postgresqlinstances, 'late', { namespace: 'team' });
    await until(() => claimGone('team', 'late'), 'the late claim gone');
  });

  test('a claim on a Shared resource whose Provider does not exist is still released', async () => {
    await c.create(apiRefs.memorydatabases, sharedDb('orphan-db', 'plain'));
    await c.create(apiRefs.postgresqlinstances, claim('team', 'orphaned', { resourceName: 'orphan-db' }));
    await ready('team', 'orphaned');
    const bindingSecrets = async () =>
      (await c.list(builtinRefs.secrets, { namespace: SYS })).items.filter((s) => s.metadata.name!.startsWith('orphan-db-team-orphaned')).length;
    assert.equal(await bindingSecrets(), 1, 'the binding has its Secret beside the resource');
    // An administrator points the resource at a Provider that does not exist.
    await c.patch(apiRefs.memorydatabases, 'orphan-db', 'merge', { spec: { providerRef: { name: 'no-such-provider' } } }, { namespace: SYS });

    await c.delete(apiRefs.postgresqlinstances, 'orphaned', { namespace: 'team' });
    await until(() => claimGone('team', 'orphaned'), 'the claim gone despite the missing Provider');
    assert.deepEqual(await bindingNames('orphan-db'), [], 'its binding is gone from the resource');
    assert.equal(await bindingSecrets(), 0, 'and its binding Secret');
  });

  test('a claim whose Provider lost its credentials Secret waits, says which Secret and what stays, and goes once it is restored', async () => {
    await c.create(apiRefs.memorydatabases, sharedDb('keyed-db', 'keyed'));
    await c.create(apiRefs.postgresqlinstances, claim('team', 'locked', { resourceName: 'keyed-db' }));
    await ready('team', 'locked');
    const creds = await c.get<KObject>(builtinRefs.secrets, 'keyed-creds', SYS);
    await c.delete(builtinRefs.secrets, 'keyed-creds', { namespace: SYS });

    await c.delete(apiRefs.postgresqlinstances, 'locked', { namespace: 'team' });
    const [ev] = await until(async () => {
      const list = await events('team', 'locked', 'CannotRelease');
      return list.length > 0 ? list : undefined;
    }, 'a CannotRelease Event on the claim');
    assert.equal(ev.type, 'Warning');
    assert.match(String(ev.message), /credentials Secret conductor-system\/keyed-creds does not exist; restore it/);
    assert.match(String(ev.message), /the user and data of claim team\/locked on MemoryDatabase conductor-system\/keyed-db/);
    assert.doesNotMatch(String(ev.message), /t0ken/);
    assert.equal(await claimGone('team', 'locked'), false, 'the claim waits for the Secret');
    assert.deepEqual(await bindingNames('keyed-db'), ['locked']);

    await c.create(builtinRefs.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'keyed-creds', namespace: SYS },
      data: creds.data as Record<string, string>,
    });
    await until(() => claimGone('team', 'locked'), 'the claim gone once the Secret is back');
    assert.deepEqual(await bindingNames('keyed-db'), []);
  });
});
