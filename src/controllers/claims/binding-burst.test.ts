/**
 * Many claims at once onto many identical resources: every worker must choose a different
 * resource, so each binding is one compare-and-swap write of the resource's claimRef — no
 * worker loses a race for a resource another worker chose at the same moment.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startConductor as startServer } from '../../conductor/index.js';
import { apiRefs } from '../../conductor/catalog.js';
import { builtinRefs, type Client, type PatchOptions, type PatchType, type ResourceRef } from '../../client/types.js';
import { isApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/object.js';
import { startControllersAndProviders as startConductorControllers } from '../../conductor/controllers.js';

const N = 40;

/** A Client that counts the patches of one resource type and the conflicts they met. */
function countingPatches(inner: Client, resource: string): { client: Client; patches: () => number; conflicts: () => number; reset: () => void } {
  let patches = 0;
  let conflicts = 0;
  const client = Object.create(inner) as Client;
  client.patch = async <T extends KObject = KObject>(ref: ResourceRef, name: string, type: PatchType, patch: unknown, o?: PatchOptions): Promise<T> => {
    if (ref.resource === resource) patches++;
    try {
      return await inner.patch<T>(ref, name, type, patch, o);
    } catch (err) {
      if (ref.resource === resource && isApiError(err) && err.code === 409) conflicts++;
      throw err;
    }
  };
  const reset = () => {
    patches = 0;
    conflicts = 0;
  };
  return { client, patches: () => patches, conflicts: () => conflicts, reset };
}

async function until(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a burst of claims', () => {
  test(`${N} claims on ${N} identical resources: one claimRef write each, no lost races`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'conductor-burst-'));
    const server = await startServer({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }), controllers: false });
    const counting = countingPatches(server.client, apiRefs.memorydatabases.resource);
    const controllers = await startConductorControllers(counting.client, { dataDir, logger: pino({ level: 'silent' }) });
    try {
      const c = server.client;
      await c.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'burst' } });
      await Promise.all(
        Array.from({ length: N }, (_, i) =>
          c.create(apiRefs.memorydatabases, {
            apiVersion: 'database.memory.conductor.io/v1alpha1',
            kind: 'MemoryDatabase',
            metadata: { name: `db-${i}`, namespace: 'conductor-system' },
            spec: { version: '16.4', sharing: { mode: 'Exclusive' } },
          }),
        ),
      );
      await until(
        async () =>
          (await c.list(apiRefs.memorydatabases, { namespace: 'conductor-system' })).items.filter(
            (o) => (o.status as { phase?: string } | undefined)?.phase === 'Available',
          ).length === N,
        'every resource Available',
      );
      // From here on the only patches of the resources are the bindings' claimRef writes.
      counting.reset();
      await Promise.all(
        Array.from({ length: N }, (_, i) =>
          c.create(apiRefs.postgresqlinstances, {
            apiVersion: 'storage.conductor.io/v1alpha1',
            kind: 'PostgreSQLInstance',
            metadata: { name: `claim-${i}`, namespace: 'burst' },
            spec: { version: '>= 15' },
          }),
        ),
      );
      await until(
        async () =>
          (await c.list(apiRefs.postgresqlinstances, { namespace: 'burst' })).items.filter(
            (o) => (o.status as { phase?: string } | undefined)?.phase === 'Bound',
          ).length === N,
        'every claim Bound',
      );
      const claims = (await c.list(apiRefs.postgresqlinstances, { namespace: 'burst' })).items;
      const resources = new Set(claims.map((o) => (o.status as { resourceRef: { name: string } }).resourceRef.name));
      assert.equal(resources.size, N, 'each claim has a resource of its own');
      assert.equal(counting.conflicts(), 0, 'no claimRef write lost a compare-and-swap');
      assert.equal(counting.patches(), N, 'one claimRef write per claim');
    } finally {
      await controllers.stop();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
