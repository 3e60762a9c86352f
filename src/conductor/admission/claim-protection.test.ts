/**
 * ClaimProtectionAdmission on the in-process server with the controllers off, so nothing but
 * the admission plugin can have added the finalizer: a claim carries the claim-protection
 * finalizer as created (in the create's answer and in what is stored), next to finalizers of
 * its own and only once; a claim kind added by CRD gets it too; objects that are not claims
 * do not.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startConductor, type RunningConductor } from '../index.js';
import { builtinRefs, resourceRef, type ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/object.js';
import { CLAIM_PROTECTION_FINALIZER } from '../../apis/index.js';
import { apiRefs } from '../../conductor/catalog.js';
import { eventually } from '../../../test/support/eventually.js';

const postgres = apiRefs.postgresqlinstances;
const SYS = 'conductor-system';

let server: RunningConductor;
let dataDir: string;
let nsCounter = 0;

async function namespace(): Promise<string> {
  const name = `protect-${++nsCounter}`;
  await server.client.create(builtinRefs.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

function objectOf(ref: ResourceRef, ns: string, name: string, extra: Partial<KObject> = {}): KObject {
  return { apiVersion: `${ref.group}/${ref.version}`, kind: ref.kind, metadata: { name, namespace: ns }, spec: {}, ...extra };
}

async function storedFinalizers(ref: ResourceRef, ns: string, name: string): Promise<string[] | undefined> {
  return (await server.client.get(ref, name, ns)).metadata.finalizers;
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'conductor-claim-protection-'));
  server = await startConductor({ dataDir, host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }), controllers: false });
});
after(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ClaimProtection admission', () => {
  test('a claim carries the claim-protection finalizer as created: in the answer and in the store', async () => {
    const ns = await namespace();
    const created = await server.client.create(postgres, objectOf(postgres, ns, 'db'));
    assert.deepEqual(created.metadata.finalizers, [CLAIM_PROTECTION_FINALIZER]);
    assert.deepEqual(await storedFinalizers(postgres, ns, 'db'), [CLAIM_PROTECTION_FINALIZER]);
  });

  test('a dry-run create answers with the finalizer and stores nothing', async () => {
    const ns = await namespace();
    const answer = await server.client.create(postgres, objectOf(postgres, ns, 'dry'), { dryRun: true });
    assert.deepEqual(answer.metadata.finalizers, [CLAIM_PROTECTION_FINALIZER]);
    assert.equal((await server.client.list(postgres, { namespace: ns })).items.length, 0);
  });

  test("the claim's own finalizers are kept; the protection finalizer is never added twice", async () => {
    const ns = await namespace();
    await server.client.create(postgres, objectOf(postgres, ns, 'own', { metadata: { name: 'own', namespace: ns, finalizers: ['example.com/keep'] } }));
    assert.deepEqual(await storedFinalizers(postgres, ns, 'own'), ['example.com/keep', CLAIM_PROTECTION_FINALIZER]);
    await server.client.create(
      postgres,
      objectOf(postgres, ns, 'already', { metadata: { name: 'already', namespace: ns, finalizers: [CLAIM_PROTECTION_FINALIZER] } }),
    );
    assert.deepEqual(await storedFinalizers(postgres, ns, 'already'), [CLAIM_PROTECTION_FINALIZER]);
  });

  test('a claim kind added by CRD (abstract label) is protected too', async () => {
    const gadgets = resourceRef('extra.conductor.io/v1', 'Gadget', 'gadgets', true);
    await server.client.create(builtinRefs.customresourcedefinitions, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.extra.conductor.io', labels: { 'conductor.io/abstract': 'true' } },
      spec: {
        group: 'extra.conductor.io',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const ns = await namespace();
    // The CRD is served a moment after it is created.
    const created = await eventually(() => server.client.create(gadgets, objectOf(gadgets, ns, 'g')), 'the Gadget CRD served and a Gadget created');
    assert.deepEqual(created.metadata.finalizers, [CLAIM_PROTECTION_FINALIZER]);
  });

  test('objects that are not claims get no finalizer: a concrete resource, a ResourceClass, a ConfigMap', async () => {
    const ns = await namespace();
    const db = await server.client.create(apiRefs.memorydatabases, objectOf(apiRefs.memorydatabases, SYS, `${ns}-mem`, { spec: { version: '16.4' } }));
    assert.equal(db.metadata.finalizers, undefined);
    const cls = await server.client.create<KObject>(apiRefs.resourceclasses, {
      apiVersion: 'core.conductor.io/v1alpha1',
      kind: 'ResourceClass',
      metadata: { name: 'plain', namespace: ns },
      template: { apiVersion: 'x.conductor.io/v1alpha1', kind: 'X' },
    });
    assert.equal(cls.metadata.finalizers, undefined);
    const cm = await server.client.create<KObject>(builtinRefs.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns } });
    assert.equal(cm.metadata.finalizers, undefined);
  });
});
