import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../machinery/object.js';
import { Informer } from './informer.js';
import { cacheInformer, SharedInformers } from './shared-informers.js';
import { FakeClient } from './testing/fake-client.js';
import { resourceRef } from './types.js';

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
    assert.deepEqual(other.store.byIndex('size', '3').map((o) => o.metadata.name), ['a']);
    assert.throws(() => other.addIndexer('size', () => []), /an indexer with that name exists/);
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
