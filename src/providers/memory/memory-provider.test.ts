/**
 * The memory provider inside a running server (in-process, with Conductor's controllers):
 * static MemoryDatabases become Ready and Available, PostgreSQL and MySQL claims bind to them
 * and get their engine's connection Secret, Shared ones give each claim its own credentials,
 * and a class provisions MemoryDatabases that go with their claim under rebindPolicy Delete.
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
import { mysqlInstanceKind, postgresqlInstanceKind, resourceClassKind, SYSTEM_NAMESPACE } from '../../apis/index.js';
import { memoryDatabaseKind } from './kinds.js';

const NS = 'shop';
const SYS = SYSTEM_NAMESPACE;

let server: RunningServer;
let dataDir: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'conductor-memory-'));
  server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
  await server.client.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});

after(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** until polls `probe` every 25 ms until it returns something other than undefined. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

const ready = (o: KObject) => ((o.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const phase = (o: KObject) => (o.status as { phase?: string } | undefined)?.phase;

async function secretData(namespace: string, name: string): Promise<Record<string, string>> {
  const s = await server.client.get<KObject>(builtinRefs.secrets, name, namespace);
  return Object.fromEntries(Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

async function createMemoryDatabase(name: string, spec: Record<string, unknown> = {}): Promise<void> {
  await server.client.create(memoryDatabaseKind.ref, {
    apiVersion: memoryDatabaseKind.apiVersion,
    kind: 'MemoryDatabase',
    metadata: { name, namespace: SYS },
    spec,
  });
}

async function boundClaim(ref: typeof postgresqlInstanceKind.ref, name: string): Promise<KObject> {
  return until(`claim ${NS}/${name} Bound and Ready`, async () => {
    const c = await server.client.get<KObject>(ref, name, NS);
    return phase(c) === 'Bound' && ready(c) ? c : undefined;
  });
}

describe('the memory provider in a running server', () => {
  test('a static MemoryDatabase becomes Ready and Available with a raw connection Secret', async () => {
    await createMemoryDatabase('static-a', { version: '16.4' });
    const r = await until('static-a Available', async () => {
      const o = await server.client.get<KObject>(memoryDatabaseKind.ref, 'static-a', SYS);
      return phase(o) === 'Available' && ready(o) ? o : undefined;
    });
    assert.equal(r.metadata.annotations?.['conductor.io/external-name'], `${SYS}/static-a`);
    const raw = await secretData(SYS, 'static-a-connection');
    assert.deepEqual(Object.keys(raw).sort(), ['database', 'host', 'password', 'username']);
    assert.equal(raw.host, 'memory.invalid');
  });

  test('a PostgreSQLInstance claim binds to it and gets a PostgreSQL connection Secret', async () => {
    await server.client.create(
      postgresqlInstanceKind.ref,
      postgresqlInstanceKind.make({ metadata: { name: 'orders', namespace: NS }, spec: { version: '>= 15', resourceName: 'static-a' } }),
    );
    const claim = await boundClaim(postgresqlInstanceKind.ref, 'orders');
    assert.equal((claim.status as { resourceRef: { kind: string; name: string } }).resourceRef.name, 'static-a');
    const raw = await secretData(SYS, 'static-a-connection');
    const secret = await secretData(NS, 'orders');
    assert.deepEqual(secret, {
      host: 'memory.invalid',
      port: '5432',
      username: 'app',
      password: raw.password,
      database: 'app',
      uri: `postgresql://app:${raw.password}@memory.invalid:5432/app`,
    });
    const resource = await server.client.get<KObject>(memoryDatabaseKind.ref, 'static-a', SYS);
    assert.equal(phase(resource), 'Bound');
  });

  test("a MySQLInstance claim gets a MySQL connection Secret with the resource's port", async () => {
    await createMemoryDatabase('static-mysql', { version: '8.0.36', port: 6033, masterUsername: 'root' });
    await server.client.create(
      mysqlInstanceKind.ref,
      mysqlInstanceKind.make({
        metadata: { name: 'wordpress', namespace: NS },
        spec: { version: '>= 8', masterUsername: 'root', resourceName: 'static-mysql' },
      }),
    );
    await boundClaim(mysqlInstanceKind.ref, 'wordpress');
    const secret = await secretData(NS, 'wordpress');
    assert.equal(secret.port, '6033');
    assert.match(secret.uri, /^mysql:\/\/root:[^@]+@memory\.invalid:6033\/app$/);
  });

  test('a Shared MemoryDatabase gives each claim its own user and password', async () => {
    await createMemoryDatabase('shared', { sharing: { mode: 'Shared', maxClaims: 5 } });
    for (const name of ['team-a', 'team-b']) {
      await server.client.create(
        postgresqlInstanceKind.ref,
        postgresqlInstanceKind.make({ metadata: { name, namespace: NS }, spec: { resourceName: 'shared' } }),
      );
    }
    await boundClaim(postgresqlInstanceKind.ref, 'team-a');
    await boundClaim(postgresqlInstanceKind.ref, 'team-b');
    const [a, b] = [await secretData(NS, 'team-a'), await secretData(NS, 'team-b')];
    assert.notEqual(a.username, b.username);
    assert.notEqual(a.password, b.password);
    assert.match(a.username, /^shop_team_a_[0-9a-f]{16}$/);
  });

  test('a class provisions a MemoryDatabase for a claim, and rebindPolicy Delete removes it with the claim', async () => {
    await server.client.create(
      resourceClassKind.ref,
      resourceClassKind.make({
        metadata: { name: 'memory', namespace: SYS },
        resourceClass: 'memory',
        supportedResources: ['PostgreSQLInstance.v1alpha1.storage.conductor.io'],
        rebindPolicy: 'Delete',
        bindingMode: 'Immediate',
        template: { apiVersion: memoryDatabaseKind.apiVersion, kind: 'MemoryDatabase', spec: { version: '16' } },
      }),
    );
    await server.client.create(
      postgresqlInstanceKind.ref,
      postgresqlInstanceKind.make({ metadata: { name: 'dynamic', namespace: NS }, spec: { resourceClass: 'memory', databaseName: 'orders' } }),
    );
    const claim = await boundClaim(postgresqlInstanceKind.ref, 'dynamic');
    const ref = (claim.status as { resourceRef: { name: string } }).resourceRef;
    assert.match(ref.name, /^shop-dynamic-[0-9a-f]{8}$/);
    const resource = await server.client.get<KObject>(memoryDatabaseKind.ref, ref.name, SYS);
    assert.equal((resource.spec as { databaseName?: string }).databaseName, 'orders');
    assert.equal((await secretData(NS, 'dynamic')).database, 'orders');

    await server.client.delete(postgresqlInstanceKind.ref, 'dynamic', { namespace: NS });
    await until(`the provisioned ${ref.name} to be deleted`, async () => {
      try {
        await server.client.get(memoryDatabaseKind.ref, ref.name, SYS);
        return undefined;
      } catch (err) {
        return isNotFound(err) ? true : undefined;
      }
    });
  });
});
