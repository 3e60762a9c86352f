import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../machinery/object.js';
import { Informer } from './informer.js';
import { cacheInformer, SharedInformers } from './shared-informers.js';
import { FakeClient } from './testing/fake-client.js';
import { resourceRef } from './types.js';
import { LAST_APPLIED_ANNOTATION } from './unread-fields.js';

const widgets = resourceRef('example.conductor.io/v1alpha1', 'Widget', 'widgets', true);
const gadgets = resourceRef('example.conductor.io/v1alpha1', 'Gadget', 'gadgets', true);
const widget = (name: string, size = 1): KObject => ({
  apiVersion: 'example.conductor.io/v1alpha1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns' },
  spec: { size },
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, ms = 1000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(2);
  }
}

describe('SharedInformers', () => {
  test('consumers of one resource and scope share one list, one watch and one cache', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informers = new SharedInformers(fake);
    const first = informers.informer(widgets);
    const second = informers.informer(widgets);
    const seen: string[] = [];
    first.addHandler({ onAdd: (o) => seen.push(`first ${o.metadata.name}`) });
    second.addHandler({ onAdd: (o) => seen.push(`second ${o.metadata.name}`) });
    first.start();
    second.start();
    assert.equal(await first.waitForSync(), true);
    assert.equal(await second.waitForSync(), true);
    assert.equal(informers.size, 1);
    assert.equal(first.store, second.store);
    assert.equal(fake.actions.filter((a) => a.verb === 'list').length, 1);
    await eventually(() => fake.watchCount() === 1);
    await fake.create(widgets, widget('b'));
    await eventually(() => seen.length === 4);
    assert.deepEqual(seen.sort(), ['first a', 'first b', 'second a', 'second b']);
    assert.equal(first.store.get('ns', 'b'), second.store.get('ns', 'b'));
    informers.stop();
  });

  test('other scopes and other resources get informers of their own', () => {
    const informers = new SharedInformers(new FakeClient());
    informers.informer(widgets);
    informers.informer(widgets, { namespace: 'ns' });
    informers.informer(widgets, { labelSelector: 'app=x' });
    informers.informer(gadgets);
    informers.informer(widgets, { namespace: 'ns' });
    assert.equal(informers.size, 4);
    informers.stop();
    assert.equal(informers.size, 0);
  });

  test('a handler added after the sync is told about every cached object', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informers = new SharedInformers(fake);
    const early = informers.informer(widgets);
    early.start();
    await early.waitForSync();
    const late = informers.informer(widgets);
    const added: string[] = [];
    late.addHandler({ onAdd: (o) => added.push(o.metadata.name ?? '') });
    assert.deepEqual(added, ['a']);
    informers.stop();
  });

  test("stopping a view removes its handlers only; the last view's stop ends the watch", async () => {
    const fake = new FakeClient();
    const informers = new SharedInformers(fake);
    const kept = informers.informer(widgets);
    const dropped = informers.informer(widgets);
    const keptSeen: string[] = [];
    const droppedSeen: string[] = [];
    kept.addHandler({ onAdd: (o) => keptSeen.push(o.metadata.name ?? '') });
    dropped.addHandler({ onAdd: (o) => droppedSeen.push(o.metadata.name ?? '') });
    kept.start();
    await kept.waitForSync();
    await eventually(() => fake.watchCount() === 1);
    dropped.stop();
    assert.equal(await dropped.waitForSync(), false);
    await fake.create(widgets, widget('a'));
    await eventually(() => keptSeen.length === 1);
    assert.deepEqual(droppedSeen, []);
    assert.equal(informers.size, 1);
    kept.stop();
    assert.equal(informers.size, 0);
    await eventually(() => fake.watchCount() === 0);
  });

  test('an index added through one view serves every view', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a', 3));
    const informers = new SharedInformers(fake);
    const one = informers.informer(widgets);
    const other = informers.informer(widgets);
    one.addIndexer('size', (o) => [String((o.spec as { size: number }).size)]);
    other.start();
    await other.waitForSync();
    assert.deepEqual(
      other.store.byIndex('size', '3').map((o) => o.metadata.name),
      ['a'],
    );
    assert.throws(() => other.addIndexer('size', () => []), /an indexer with that name exists/);
    informers.stop();
  });

  test('two consumers are handed the same object instance, which neither can change', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informers = new SharedInformers(fake);
    // Two controllers' views, as a pool controller and a claim controller would take them.
    const pool = informers.informer(widgets);
    const claims = informers.informer(widgets);
    const poolSaw: KObject[] = [];
    const claimsSaw: KObject[] = [];
    pool.addHandler({ onAdd: (o) => poolSaw.push(o), onUpdate: (_old, o) => poolSaw.push(o) });
    claims.addHandler({ onAdd: (o) => claimsSaw.push(o), onUpdate: (_old, o) => claimsSaw.push(o) });
    pool.start();
    claims.start();
    await claims.waitForSync();
    await eventually(() => fake.watchCount() === 1);
    const current = await fake.get(widgets, 'a', 'ns');
    await fake.update(widgets, { ...current, spec: { size: 2 } });
    await eventually(() => poolSaw.length === 2 && claimsSaw.length === 2);
    assert.equal(poolSaw[0], claimsSaw[0], 'the listed object is one instance');
    assert.equal(poolSaw[1], claimsSaw[1], 'the watched update is one instance');
    assert.equal(pool.store.get('ns', 'a'), claimsSaw[1]);
    // scripts/run-tests.mjs sets CONDUCTOR_FREEZE_CACHED_OBJECTS=1: a consumer that writes fails loudly.
    assert.equal(process.env.CONDUCTOR_FREEZE_CACHED_OBJECTS, '1', 'tests must run with frozen caches (scripts/run-tests.mjs)');
    const shared = claimsSaw[1];
    assert.throws(() => {
      (shared.spec as { size: number }).size = 3;
    }, TypeError);
    assert.throws(() => {
      shared.metadata.labels = { mine: 'yes' };
    }, TypeError);
    assert.equal((pool.store.get('ns', 'a')!.spec as { size: number }).size, 2);
    informers.stop();
  });

  test('cached objects come without managedFields and the last-applied annotation', async () => {
    const fake = new FakeClient();
    const big = widget('a');
    big.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: JSON.stringify(widget('a')), keep: 'me' };
    big.metadata.managedFields = [
      { manager: 'kubectl', operation: 'Apply', apiVersion: 'example.conductor.io/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:size': {} } } },
    ];
    await fake.create(widgets, big);
    const informers = new SharedInformers(fake);
    const view = informers.informer(widgets);
    view.start();
    await view.waitForSync();
    await eventually(() => fake.watchCount() === 1);
    await fake.create(widgets, { ...big, metadata: { ...big.metadata, name: 'b' } });
    await eventually(() => view.store.get('ns', 'b') !== undefined);
    for (const name of ['a', 'b']) {
      const cached = view.store.get('ns', name)!;
      assert.equal(cached.metadata.managedFields, undefined, `${name}: managedFields`);
      assert.deepEqual(cached.metadata.annotations, { keep: 'me' }, `${name}: annotations`);
      assert.deepEqual(cached.spec, { size: 1 });
    }
    informers.stop();
  });

  test("a view's resync re-delivers to its own handlers only and shares the other views' cache", async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informers = new SharedInformers(fake);
    const resyncing = informers.informer(widgets, { resyncMs: 1000 });
    const quiet = informers.informer(widgets);
    assert.equal(informers.size, 1, 'resyncMs does not split the cache');
    const resynced: string[] = [];
    const quietUpdates: string[] = [];
    resyncing.addHandler({ onUpdate: (old, o) => old === o && resynced.push(o.metadata.name ?? '') });
    quiet.addHandler({ onUpdate: (_old, o) => quietUpdates.push(o.metadata.name ?? '') });
    resyncing.start();
    quiet.start();
    await resyncing.waitForSync();
    await new Promise((resolve) => setImmediate(resolve));
    t.mock.timers.tick(1000);
    assert.deepEqual(resynced, ['a']);
    assert.deepEqual(quietUpdates, []);
    resyncing.stop();
    t.mock.timers.tick(1000);
    assert.deepEqual(resynced, ['a'], 'a stopped view resyncs no more');
    informers.stop();
  });

  test('cacheInformer is a private Informer when the process does not share informers', () => {
    const fake = new FakeClient();
    assert.ok(cacheInformer(fake, undefined, widgets) instanceof Informer);
    const informers = new SharedInformers(fake);
    assert.ok(!(cacheInformer(fake, informers, widgets) instanceof Informer));
    assert.equal(informers.size, 1);
    informers.stop();
  });
});

describe('Informer freezeObjects', () => {
  test('cached objects are deeply frozen, so a handler that mutates one throws', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informer = new Informer(fake, widgets, { freezeObjects: true });
    informer.start();
    await informer.waitForSync();
    const cached = informer.store.get('ns', 'a')!;
    assert.throws(() => {
      (cached.spec as { size: number }).size = 2;
    }, TypeError);
    assert.throws(() => {
      cached.metadata.labels = {};
    }, TypeError);
    informer.stop();
  });

  test('without it, cached objects stay ordinary objects', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informer = new Informer(fake, widgets, { freezeObjects: false });
    informer.start();
    await informer.waitForSync();
    assert.equal(Object.isFrozen(informer.store.get('ns', 'a')), false);
    informer.stop();
  });
});
