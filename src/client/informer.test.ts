import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { errors } from '../machinery/errors.js';
import type { KObject } from '../machinery/object.js';
import { Informer } from './informer.js';
import { FakeClient } from './testing/fake-client.js';
import { resourceRef } from './types.js';
import type { ListOptions, ResourceRef, WatchEvent } from './types.js';

const widgets = resourceRef('example.conductor.io/v1alpha1', 'Widget', 'widgets', true);
const widget = (name: string, spec: Record<string, unknown> = { size: 1 }, labels?: Record<string, string>): KObject => ({
  apiVersion: 'example.conductor.io/v1alpha1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) },
  spec,
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds, failing after `ms`. */
async function eventually(check: () => boolean, ms = 1000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(2);
  }
}

/** Records every delivery as a short string: `add a`, `update a 3→4`, `delete a`. */
function recorder(informer: Informer): string[] {
  const log: string[] = [];
  informer.addHandler({
    onAdd: (o) => log.push(`add ${o.metadata.name}`),
    onUpdate: (old, o) => log.push(`update ${o.metadata.name} ${old.metadata.resourceVersion}→${o.metadata.resourceVersion}`),
    onDelete: (o) => log.push(`delete ${o.metadata.name}`),
  });
  return log;
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

describe('Informer', () => {
  test('lists page by page, caches, and reports adds before sync', async () => {
    const fake = new FakeClient();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await fake.create(widgets, widget(n));
    const informer = new Informer(fake, widgets, { pageSize: 2 });
    const log = recorder(informer);
    assert.equal(informer.hasSynced(), false);
    informer.start();
    assert.equal(await informer.waitForSync(), true);
    assert.deepEqual(log, ['add a', 'add b', 'add c', 'add d', 'add e']);
    assert.deepEqual(fake.actions.filter((a) => a.verb === 'list').length, 3);
    assert.equal(informer.store.get('ns', 'c')?.metadata.name, 'c');
    assert.equal(informer.lastSyncResourceVersion, '5');
    informer.stop();
  });

  test('fills in apiVersion and kind missing from list items', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const realList = fake.list;
    fake.list = (async (ref: ResourceRef, options?: ListOptions) => {
      const list = await realList(ref, options);
      return { ...list, items: list.items.map((i) => ({ metadata: i.metadata, spec: i.spec }) as unknown as KObject) };
    }) as FakeClient['list'];
    const informer = new Informer(fake, widgets).start();
    await informer.waitForSync();
    const a = informer.store.get('ns', 'a');
    assert.equal(a?.apiVersion, 'example.conductor.io/v1alpha1');
    assert.equal(a?.kind, 'Widget');
    informer.stop();
  });

  test('delivers watch events as add, update and delete', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informer = new Informer(fake, widgets).start();
    await informer.waitForSync();
    const log = recorder(informer);
    assert.deepEqual(log, ['add a'], 'a late handler first hears of cached objects');
    await fake.create(widgets, widget('b'));
    const a = await fake.get(widgets, 'a', 'ns');
    await fake.update(widgets, { ...a, spec: { size: 2 } });
    await fake.delete(widgets, 'b', { namespace: 'ns' });
    await eventually(() => log.length === 4);
    assert.deepEqual(log, ['add a', 'add b', 'update a 1→3', 'delete b']);
    assert.equal(informer.store.get('ns', 'b'), undefined);
    assert.deepEqual(informer.store.get('ns', 'a')?.spec, { size: 2 });
    assert.equal(informer.lastSyncResourceVersion, '4');
    informer.stop();
  });

  test('a bookmark advances the resourceVersion without events', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const other = resourceRef('v1', 'ConfigMap', 'configmaps', true);
    const informer = new Informer(fake, widgets).start();
    await informer.waitForSync();
    const log = recorder(informer);
    await fake.create(other, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unrelated', namespace: 'ns' } });
    fake.bookmark();
    await eventually(() => informer.lastSyncResourceVersion === '2');
    assert.deepEqual(log, ['add a']);
    informer.stop();
  });

  test('on 410 Expired it relists and delivers only the difference', async () => {
    const fake = new FakeClient();
    for (const n of ['a', 'b', 'c']) await fake.create(widgets, widget(n));
    // A watch that goes deaf: it drops events (as if the connection stalled) but passes ERRORs.
    let deaf = false;
    const realWatch = fake.watch;
    fake.watch = (ref, options, handlers) =>
      realWatch(ref, options, {
        onEvent: (e: WatchEvent) => {
          if (!deaf || e.type === 'ERROR') handlers.onEvent(e as never);
        },
        onClose: (err) => handlers.onClose(err),
      });
    const informer = new Informer(fake, widgets).start();
    await informer.waitForSync();
    const log = recorder(informer);
    log.length = 0;
    deaf = true;
    const a = await fake.get(widgets, 'a', 'ns');
    await fake.update(widgets, { ...a, spec: { size: 7 } });
    await fake.delete(widgets, 'b', { namespace: 'ns' });
    await fake.create(widgets, widget('d'));
    await fake.settle();
    assert.deepEqual(log, [], 'the deaf watch delivered nothing');
    deaf = false;
    const listsBefore = fake.actions.filter((x) => x.verb === 'list').length;
    fake.compact();
    fake.expireWatches();
    await eventually(() => log.length === 3);
    assert.deepEqual(log.sort(), ['add d', 'delete b', 'update a 1→4'].sort());
    assert.equal(fake.actions.filter((x) => x.verb === 'list').length, listsBefore + 1);
    assert.deepEqual(
      informer.store
        .list()
        .map((o) => o.metadata.name)
        .sort(),
      ['a', 'c', 'd'],
    );
    // the new watch starts from the relist's resourceVersion: later changes arrive once
    await fake.create(widgets, widget('e'));
    await eventually(() => log.length === 4);
    await fake.settle();
    assert.equal(log[3], 'add e');
    assert.equal(log.length, 4);
    informer.stop();
  });

  test('a 410 from the watch call itself relists', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const realWatch = fake.watch;
    let refuse = 1;
    fake.watch = (ref, options, handlers) => {
      if (refuse-- > 0) {
        setImmediate(() => handlers.onClose(errors.expired('too old resource version: 1 (2)')));
        return { stop: () => {} };
      }
      return realWatch(ref, options, handlers);
    };
    const informer = new Informer(fake, widgets, { backoff: { initialMs: 1 } }).start();
    await informer.waitForSync();
    await eventually(() => fake.actions.filter((x) => x.verb === 'list').length === 2);
    await eventually(() => fake.watchCount() === 1);
    informer.stop();
  });

  test('after a dropped watch it re-watches from the last resourceVersion without relisting', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informer = new Informer(fake, widgets, { backoff: { initialMs: 5 } }).start();
    await informer.waitForSync();
    const log = recorder(informer);
    fake.closeWatches(new Error('connection reset'));
    await fake.create(widgets, widget('b'));
    await eventually(() => log.includes('add b'));
    assert.equal(fake.actions.filter((x) => x.verb === 'list').length, 1, 'no relist');
    const watches = fake.actions.filter((x) => x.verb === 'watch').length;
    assert.equal(watches, 2);
    assert.deepEqual(log, ['add a', 'add b']);
    informer.stop();
  });

  test('a watch from a compacted resourceVersion (ERROR 410 event) relists', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informer = new Informer(fake, widgets, { backoff: { initialMs: 5 } }).start();
    await informer.waitForSync();
    const log = recorder(informer);
    const realWatch = fake.watch;
    let held = true;
    fake.watch = (ref, options, handlers) => {
      // the first re-watch waits until history was compacted
      if (held) {
        held = false;
        setTimeout(() => ((fake.watch = realWatch), void realWatch(ref, options, handlers)), 0);
        return { stop: () => {} };
      }
      return realWatch(ref, options, handlers);
    };
    fake.closeWatches();
    await fake.create(widgets, widget('b'));
    fake.compact();
    await eventually(() => log.includes('add b'));
    assert.equal(fake.actions.filter((x) => x.verb === 'list').length, 2);
    informer.stop();
  });

  test('a watch call that throws is retried', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const realWatch = fake.watch;
    let throws = 1;
    fake.watch = (ref, options, handlers) => {
      if (throws-- > 0) throw new Error('cannot open watch');
      return realWatch(ref, options, handlers);
    };
    const informer = new Informer(fake, widgets, { backoff: { initialMs: 5 } }).start();
    await informer.waitForSync();
    await eventually(() => fake.watchCount() === 1);
    const log = recorder(informer);
    await fake.create(widgets, widget('b'));
    await eventually(() => log.includes('add b'));
    informer.stop();
  });

  test('a failing list is retried with backoff until it succeeds', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const realList = fake.list;
    let failures = 2;
    fake.list = async (ref: ResourceRef, options?: ListOptions) => {
      if (failures-- > 0) throw errors.internal('database is busy');
      return realList(ref, options);
    };
    const informer = new Informer(fake, widgets, { backoff: { initialMs: 5, maxMs: 20 } }).start();
    assert.equal(await informer.waitForSync(), true);
    assert.equal(informer.store.size, 1);
    informer.stop();
  });

  test('resync re-delivers every cached object as an update to itself', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    await fake.create(widgets, widget('b'));
    const informer = new Informer(fake, widgets, { resyncMs: 20 });
    const updates: Array<[KObject, KObject]> = [];
    informer.onUpdate((old, obj) => updates.push([old, obj]));
    informer.start();
    await eventually(() => updates.length >= 4);
    for (const [old, obj] of updates) assert.equal(old, obj);
    assert.deepEqual(new Set(updates.map(([, o]) => o.metadata.name)), new Set(['a', 'b']));
    informer.stop();
  });

  test('selectors narrow the cache; leaving the selector is a delete', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('db', { size: 1 }, { app: 'db' }));
    await fake.create(widgets, widget('web', { size: 1 }, { app: 'web' }));
    const informer = new Informer(fake, widgets, { labelSelector: 'app=db', namespace: 'ns' }).start();
    await informer.waitForSync();
    const log = recorder(informer);
    assert.deepEqual(log, ['add db']);
    const db = await fake.get(widgets, 'db', 'ns');
    await fake.update(widgets, { ...db, metadata: { ...db.metadata, labels: { app: 'other' } } });
    await eventually(() => log.length === 2);
    assert.equal(log[1], 'delete db');
    informer.stop();
  });

  test('indexes are kept current', async () => {
    const fake = new FakeClient();
    await fake.create(widgets, widget('a', { owner: 'x' }));
    const informer = new Informer(fake, widgets);
    informer.addIndexer('owner', (o) => [String((o.spec as { owner?: string }).owner ?? '')]);
    informer.start();
    await informer.waitForSync();
    assert.equal(informer.store.byIndex('owner', 'x').length, 1);
    const a = await fake.get(widgets, 'a', 'ns');
    await fake.update(widgets, { ...a, spec: { owner: 'y' } });
    await eventually(() => informer.store.byIndex('owner', 'y').length === 1);
    assert.equal(informer.store.byIndex('owner', 'x').length, 0);
    informer.stop();
  });

  test('a throwing handler does not stop delivery to others', async () => {
    const fake = new FakeClient();
    const informer = new Informer(fake, widgets).start();
    await informer.waitForSync();
    informer.onAdd(() => {
      throw new Error('handler bug');
    });
    const seen: string[] = [];
    informer.onAdd((o) => seen.push(o.metadata.name as string));
    await fake.create(widgets, widget('a'));
    await fake.create(widgets, widget('b'));
    await eventually(() => seen.length === 2);
    informer.stop();
  });

  test('stop ends the watch and every timer; nothing is delivered afterwards', async () => {
    const baseline = activeTimers();
    const fake = new FakeClient();
    await fake.create(widgets, widget('a'));
    const informer = new Informer(fake, widgets, { resyncMs: 10_000, backoff: { initialMs: 10_000 } }).start();
    await informer.waitForSync();
    const log = recorder(informer);
    fake.closeWatches(new Error('reset')); // schedules a re-watch 10 s out
    await fake.settle();
    assert.ok(activeTimers() > baseline);
    informer.stop();
    assert.equal(activeTimers(), baseline, 'no timer outlives stop');
    assert.equal(fake.watchCount(), 0);
    await fake.create(widgets, widget('b'));
    await fake.settle();
    assert.deepEqual(log, ['add a']);
    assert.equal(await informer.waitForSync(), true, 'it did sync before stopping');
  });

  test('waitForSync resolves false when stopped before syncing', async () => {
    const fake = new FakeClient();
    fake.list = async () => {
      throw errors.internal('down');
    };
    const informer = new Informer(fake, widgets, { backoff: { initialMs: 10 } }).start();
    const waiting = informer.waitForSync();
    await sleep(5);
    informer.stop();
    assert.equal(await waiting, false);
    const controller = new AbortController();
    const other = new Informer(new FakeClient(), widgets);
    const aborted = other.waitForSync(controller.signal);
    controller.abort();
    assert.equal(await aborted, false);
  });
});
